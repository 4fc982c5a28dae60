// The tokenizer's Unicode normalization (NFC, NFD, NFKC, NFKD; tables generated from Node at build time) against
// String.prototype.normalize, on every code point. The native CLI runs a made-up tokenizer.json whose normalizer is
// the form under test, whose ByteLevel model has one token per byte (id = the byte) and no merges: the ids it gives
// are the bytes of the normalized text. Inputs: all code points in runs of 256 (so neighbours compose too), and
// seeded sequences of starters, combining marks in shuffled order and Hangul jamo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './support.mjs';
import { rng } from './tokenizer-corpus.mjs';

const cli = join(repoRoot, 'build', 'native', 'arcscope');

// GPT-2's byte-to-unicode table: how a byte-level tokenizer.json writes each byte.
function byteLevelChars() {
  const chars = [];
  let next = 256;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    chars.push(String.fromCodePoint(printable ? b : next++));
  }
  return chars;
}

function tokenizerJson(form) {
  const vocab = Object.fromEntries(byteLevelChars().map((ch, b) => [ch, b]));
  return JSON.stringify({
    version: '1.0', truncation: null, padding: null, added_tokens: [],
    normalizer: { type: form },
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    post_processor: null,
    decoder: { type: 'ByteLevel' },
    model: { type: 'BPE', vocab, merges: [] },
  });
}

function inputs() {
  const out = [];
  let run = '';
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    run += String.fromCodePoint(cp);
    if (run.length >= 256) {
      out.push(run);
      run = '';
    }
  }
  out.push(run);
  const r = rng(15);
  const starters = ['a', 'e', 'o', 'u', 'A', 'E', 'O', 'U', 'n', 'c', 's', 'ǖ', 'é', 'Å', 'ω', 'α', 'и', 'ɛ', 'ᄀ', '가', '각', 'x'];
  const marks = ['\u0300', '\u0301', '\u0302', '\u0303', '\u0304', '\u0306', '\u0307', '\u0308', '\u030a', '\u030c',
    '\u0323', '\u0327', '\u0328', '\u0331', '\u0345', '\u0334', '\u05b0', '\u0651', '\u093c', '\u0f71', '\u0f72',
    '\u302a', '\u1161', '\u1175', '\u11a8', '\u11c2', '\u0342', '\u0313', '\u0314', '\u1dce', '\u20d0', '\ufe20'];
  for (let i = 0; i < 4000; i++) {
    let s = '';
    for (let k = 1 + r.int(4); k > 0; k--) {
      s += r.pick(starters);
      for (let m = r.int(5); m > 0; m--) s += r.pick(marks);
    }
    out.push(s);
  }
  return out;
}

test('NFC, NFD, NFKC and NFKD equal String.prototype.normalize on every code point', { timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'arcscope-normalization-'));
  try {
    const texts = inputs();
    const input = texts.map((t) => JSON.stringify(t)).join('\n') + '\n';
    for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD']) {
      const file = join(dir, `${form}.json`);
      writeFileSync(file, tokenizerJson(form));
      const run = spawnSync(cli, ['tokenize', '--tokenizer', file, '--jsonl'], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
      assert.equal(run.status, 0, `${cli} failed: ${run.error ?? run.stderr}`);
      const lines = run.stdout.trimEnd().split('\n');
      assert.equal(lines.length, texts.length);
      let differing = 0, first = null;
      for (let i = 0; i < texts.length; i++) {
        const ours = Buffer.from(JSON.parse(lines[i]).ids);
        const theirs = Buffer.from(texts[i].normalize(form));
        if (!ours.equals(theirs)) {
          differing++;
          first ??= { text: texts[i].slice(0, 20), ours: ours.toString().slice(0, 20), theirs: theirs.toString().slice(0, 20) };
        }
      }
      console.log(`${form}: ${texts.length} strings, ${differing} differing${first ? ' ' + JSON.stringify(first) : ''}`);
      assert.equal(differing, 0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
