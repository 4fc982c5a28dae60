// The tokenizer's surfaces other than parity: the CLI's output format and errors, invalid UTF-8 from files,
// and the JavaScript API's values and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engine, repoRoot } from './support.mjs';
import { rng } from './tokenizer-corpus.mjs';

const require = createRequire(import.meta.url);
const gpt3 = require('gpt-3-encoder');
const cli = join(repoRoot, 'build', 'native', 'arcscope');

function arcscope(args, { input = undefined, cwd = repoRoot } = {}) {
  return spawnSync(cli, args, { input, cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
}

function withTempDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'arcscope-tokenizer-'));
  try { return fn(dir); } finally { rmSync(dir, { recursive: true, force: true }); }
}

test('tokenize --text prints ids and display tokens as JSON', () => {
  const text = 'Say "hi"\n\tthen \\ leave\u0001 \u00e9\u{1F600}';
  const run = arcscope(['tokenize', '--text', text]);
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  assert.deepEqual(out.ids, gpt3.encode(text));
  assert.deepEqual(out.tokens, out.ids.map((id) => gpt3.decode([id])));
});

test('tokenize works from another directory (finds the tokenizer beside the build)', () => {
  const run = arcscope(['tokenize', '--text', 'Hello world'], { cwd: tmpdir() });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout).ids, [15496, 995]);
});

test('tokenize --file reads raw bytes; invalid UTF-8 is read as TextDecoder reads it', () => {
  const r = rng(99);
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  withTempDir((dir) => {
    let differences = 0;
    const n = 40;
    for (let i = 0; i < n; i++) {
      const bytes = Uint8Array.from({ length: 1 + r.int(60) }, () => (r() < 0.3 ? 0x80 + r.int(0x80) : r.int(256)));
      const path = join(dir, `bytes${i}.bin`);
      writeFileSync(path, bytes);
      const run = arcscope(['tokenize', '--file', path]);
      assert.equal(run.status, 0, run.stderr);
      const ids = JSON.parse(run.stdout).ids;
      differences += ids.join() !== gpt3.encode(decoder.decode(bytes)).join();
    }
    console.log(`invalid UTF-8 files: ${n} compared with gpt-3-encoder(TextDecoder(bytes)), ${differences} differences`);
    assert.equal(differences, 0);
  });
});

test('bad arguments and input: "error: ..." on stderr, exit status 1', () => {
  const cases = [
    [['tokenize'], null, 'give exactly one of'],
    [['tokenize', '--text', 'a', '--jsonl'], null, 'give exactly one of'],
    [['tokenize', '--text'], null, 'needs a value'],
    [['tokenize', '--txt', 'a'], null, 'unknown option --txt'],
    [['tokenize', '--text', 'a', '--colour', 'red'], null, 'unknown option --colour'],
    [['tokenize', '--jsonl'], '"fine"\nnot json\n', 'stdin line 2: expected a JSON string'],
    [['tokenize', '--jsonl'], '"unterminated\n', 'stdin line 1'],
    [['tokenize', '--jsonl'], '"a" "b"\n', 'trailing text'],
    [['tokenize', '--file', 'no/such/file.txt'], null, 'cannot open no/such/file.txt: No such file or directory'],
    [['tokenize', '--text', 'a', '--tokenizer', 'no/such/tokenizer.bin'], null,
      'cannot open no/such/tokenizer.bin: No such file or directory (the tokenizer file'],
    [['tokenize', '--text', 'a', '--repeat', 'x'], null, 'expects an integer'],
  ];
  for (const [args, input, message] of cases) {
    const run = arcscope(args, { input: input ?? '' });
    assert.equal(run.status, 1, `${args.join(' ')}: status ${run.status}`);
    assert.match(run.stderr, /^error: /, args.join(' '));
    assert.ok(run.stderr.includes(message), `${args.join(' ')}: ${run.stderr}`);
  }
  withTempDir((dir) => {
    const path = join(dir, 'garbage.bin');
    writeFileSync(path, 'ARCSBPE\0garbage');
    const run = arcscope(['tokenize', '--text', 'a', '--tokenizer', path]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^error: .*tokenizer file: version/);
  });
});

test('tokenize --jsonl: one {"ids"} line per input line; lone surrogates become U+FFFD like TextEncoder', () => {
  const texts = ['a', '', '\ud800', 'x\udfffy\ud83d', '\u2028\u2029', 'line\r\nbreak'];
  const run = arcscope(['tokenize', '--jsonl'], { input: texts.map((t) => JSON.stringify(t)).join('\n') });
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => Object.keys(l)), texts.map(() => ['ids']));
  assert.deepEqual(lines.map((l) => l.ids), texts.map((t) => gpt3.encode(t)));
});

test('engine.tokenize / decode / tokenSpans return plain values', async () => {
  const e = await engine();
  const t = e.tokenize('Hello world \u{1F44D}\u{1F3FD}');
  assert.ok(Array.isArray(t.ids) && Array.isArray(t.tokens));
  assert.deepEqual(t.ids, gpt3.encode('Hello world \u{1F44D}\u{1F3FD}'));
  assert.deepEqual(t.tokens.slice(0, 2), ['Hello', ' world']);
  assert.ok(t.tokens.slice(2).every((s) => s.includes('\ufffd')), 'emoji pieces show U+FFFD alone');
  assert.equal(e.decode(t.ids), 'Hello world \u{1F44D}\u{1F3FD}');
  const spans = e.tokenSpans(t.ids);
  assert.deepEqual(spans.map((s) => s.text), ['Hello', ' world', ' \u{1F44D}', '\u{1F3FD}']);
  assert.equal(spans.reduce((n, s) => n + s.count, 0), t.ids.length);
  assert.equal(e.tokenizer.vocabSize, 50257);
  assert.equal(e.tokenizer.eotId, 50256);
  assert.equal(e.decode([e.tokenizer.eotId]), '<|endoftext|>');
  assert.deepEqual(e.tokenize(''), { ids: [], tokens: [] });
});

test('engine tokenizer errors are Errors with the C++ message', async () => {
  const e = await engine();
  // One check, in the bindings: JavaScript passes ids through and the message comes from C++.
  assert.throws(() => e.decode([1, 50257]), { message: 'token id 50257 at position 1 is outside the vocabulary [0, 50257)' });
  assert.throws(() => e.decode([-1]), { message: 'token id -1 at position 0 is outside the vocabulary [0, 50257)' });
  assert.throws(() => e.decode([1.5]), { message: 'token id 1.5 at position 0 is not an integer' });
  assert.throws(() => e.decode(['7']), { message: 'ids[0] is the string "7", not a number' });
  assert.throws(() => e.tokenSpans([1, null]), { message: 'ids[1] is null, not a number' });
  assert.throws(() => e.tokenText('7'), { message: 'token id must be a number, got the string "7"' });
  assert.throws(() => e.core.Tokenizer.fromBytes(new Uint8Array(50257)), /not a tokenizer file/);
  assert.throws(() => e.tokenize(42), TypeError);
  // the bindings' own handle says the same: there is no second check in JavaScript
  const handle = e.core.Tokenizer.fromBytes(new Uint8Array(
    await (await import('node:fs/promises')).readFile(join(repoRoot, 'build', 'lib', 'models', 'gpt2-tokenizer.bin'))));
  assert.throws(() => handle.decode([50257]), { message: 'token id 50257 at position 0 is outside the vocabulary [0, 50257)' });
  handle.delete();
});
