// GPT-2 tokenizer parity: arcscope (native CLI and wasm) against gpt-3-encoder (OpenAI's encoder ported to
// JavaScript, shipping OpenAI's vocabulary) and gpt-tokenizer's r50k_base, over thousands of seeded strings plus
// Shakespeare. Zero differences required.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { engine, repoRoot } from './support.mjs';
import { buildCorpus } from './tokenizer-corpus.mjs';

const require = createRequire(import.meta.url);
const gpt3 = require('gpt-3-encoder');
const r50k = require('gpt-tokenizer/cjs/encoding/r50k_base');

const shakespeare = join(repoRoot, '..', 'shared', 'data', 'tinyshakespeare.txt');
const corpus = buildCorpus({ shakespeare });
const cli = join(repoRoot, 'build', 'native', 'arcscope');

// gpt-3-encoder is quadratic in the length of its input (it concatenates arrays per word), so long texts go in
// pieces cut between matches of its own pattern. A cut goes only after a match that is not whitespace: a
// whitespace match depends on what follows it (\s+(?!\S)), nothing else does, so each piece gives the same ids.
const gpt2Pattern = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
function gpt3Encode(text) {
  if (text.length <= 4000) return gpt3.encode(text);
  const ids = [];
  let piece = '', last = '';
  for (const [word] of text.matchAll(gpt2Pattern)) {
    if (piece.length + word.length > 2000 && piece && !/^\s+$/u.test(last)) {
      ids.push(...gpt3.encode(piece));
      piece = '';
    }
    piece += word;
    last = word;
  }
  if (piece) ids.push(...gpt3.encode(piece));
  return ids;
}

let references = null;
function referenceIds() {
  references ??= {
    gpt3: corpus.map(({ text }) => gpt3Encode(text)),
    r50k: corpus.map(({ text }) => r50k.encode(text, { disallowedSpecial: new Set() })),  // <|endoftext|> as text
  };
  return references;
}

// Compares ids per string against both references; prints the count and the first few differences.
function compare(label, actual) {
  const { gpt3: g, r50k: r } = referenceIds();
  const differences = [];
  for (let i = 0; i < corpus.length; i++) {
    for (const [name, expected] of [['gpt-3-encoder', g[i]], ['r50k_base', r[i]]]) {
      if (actual[i].length !== expected.length || actual[i].some((id, k) => id !== expected[k])) {
        differences.push({ name, kind: corpus[i].kind, text: JSON.stringify(corpus[i].text).slice(0, 120),
          expected: expected.slice(0, 20), actual: actual[i].slice(0, 20) });
      }
    }
  }
  const bytes = corpus.reduce((n, { text }) => n + Buffer.byteLength(text), 0);
  console.log(`${label}: ${corpus.length} strings (${bytes} bytes) compared with gpt-3-encoder and r50k_base, ` +
    `${differences.length} differences`);
  for (const d of differences.slice(0, 5)) console.log('  difference:', d);
  assert.equal(differences.length, 0);
}

test('the corpus is large and varied', () => {
  const kinds = new Set(corpus.map((c) => c.kind));
  assert.ok(corpus.length >= 2000, `only ${corpus.length} strings`);
  for (const k of ['prose', 'code', 'numbers', 'whitespace', 'contraction', 'accents', 'script', 'emoji', 'control', 'long']) {
    assert.ok(kinds.has(k), `no ${k} strings`);
  }
  assert.ok(corpus.some(({ text }) => Buffer.byteLength(text) >= 100000), 'no input of 100 KB');
  if (!kinds.has('shakespeare')) console.log(`note: ${shakespeare} not found, corpus without Shakespeare`);
});

test('the two references agree with each other', () => {
  const { gpt3: g, r50k: r } = referenceIds();
  let differences = 0;
  for (let i = 0; i < corpus.length; i++) differences += g[i].join() !== r[i].join();
  console.log(`gpt-3-encoder vs r50k_base: ${corpus.length} strings, ${differences} differences`);
  assert.equal(differences, 0);
});

test('native tokenizer (arcscope tokenize --jsonl) matches', () => {
  const input = corpus.map(({ text }) => JSON.stringify(text)).join('\n') + '\n';
  const run = spawnSync(cli, ['tokenize', '--jsonl'], { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(run.status, 0, `${cli} failed: ${run.error ?? run.stderr}`);
  const lines = run.stdout.trimEnd().split('\n');
  assert.equal(lines.length, corpus.length);
  compare('native', lines.map((line) => JSON.parse(line).ids));
});

test('wasm tokenizer (engine.encode) matches', async () => {
  const e = await engine();
  compare('wasm', corpus.map(({ text }) => Array.from(e.encode(text))));
});

test('wasm decode(encode(s)) == s for well-formed strings', async () => {
  const e = await engine();
  const wellFormed = corpus.filter(({ text }) => text.isWellFormed());
  let failures = 0;
  for (const { text } of wellFormed) failures += e.decode(Array.from(e.encode(text))) !== text;
  console.log(`wasm round trips: ${wellFormed.length} strings, ${failures} differences`);
  assert.equal(failures, 0);
});

test('every token\'s display text equals gpt-3-encoder\'s decode of that token alone', async () => {
  const e = await engine();
  let differences = 0;
  for (let id = 0; id < e.tokenizer.vocabSize; id++) differences += e.tokenText(id) !== gpt3.decode([id]);
  console.log(`token texts: ${e.tokenizer.vocabSize} ids, ${differences} differences`);
  assert.equal(differences, 0);
});
