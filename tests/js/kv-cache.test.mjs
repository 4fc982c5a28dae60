// kv-cache.test.mjs: the f16 KV cache (engine.loadModel(bytes, {kvCache: 'f16'})) in wasm: the native engine's bits
// (arcscope run --kv-cache f16), decoding through it equals the full pass, attentionPattern follows it, and a bad
// choice is an error (its size: tests/cpp/test_half.cpp). Its accuracy against PyTorch: include/arcscope/model/kv_cache.h.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { engine, maxAbsDiff, python, repoRoot } from './support.mjs';

const cli = `${repoRoot}build/native/arcscope`;
const work = `${repoRoot}build/test-models/js-kv`;
const config = { 'n-layer': 2, 'n-head': 4, 'n-embd': 64, 'n-ctx': 1024, vocab: 50257 };
const T = 150; // two chunks of the pass
const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % 50257);
let model;

before(() => {
  mkdirSync(work, { recursive: true });
  const args = ['--out', `${work}/ckpt`, '--seed', '8', ...Object.entries(config).flatMap(([k, v]) => [`--${k}`, String(v)])];
  execFileSync(python, [`${repoRoot}scripts/make_checkpoint.py`, ...args]);
  model = `${work}/model.q8.arcs`;
  execFileSync(cli, ['convert', '--in', `${work}/ckpt`, '--out', model, '--dtype', 'q8']);
});

function nativeLogits(kv) {
  const bin = `${work}/logits.${kv}.f32`;
  execFileSync(cli, ['run', '--model', model, '--ids', ids.join(','), '--kv-cache', kv, '--out', '/dev/null', '--logits-bin', bin]);
  const b = readFileSync(bin);
  return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
}

test('f16 KV cache: the native bits in wasm, decoding equals the full pass, patterns follow it', async () => {
  const e = await engine();
  const bytes = new Uint8Array(readFileSync(model));
  const half = e.loadModel(bytes, { kvCache: 'f16' }), full = e.loadModel(bytes);
  assert.equal(half.config.kvCache, 'f16');
  assert.equal(full.config.kvCache, 'f32');
  const h = half.forward(ids, { attention: true, allLogits: true });
  const f = full.forward(ids, { attention: true, allLogits: true });
  assert.equal(maxAbsDiff(h.logits, nativeLogits('f16')), 0);
  assert.equal(maxAbsDiff(f.logits, nativeLogits('f32')), 0);
  const moved = maxAbsDiff(h.attention, f.attention);
  console.log(`f16 against f32 KV cache: attention moves by up to ${moved.toExponential(2)}, ` +
    `logits by ${maxAbsDiff(h.logits, f.logits).toExponential(2)}`);
  assert.ok(moved > 0 && moved < 1e-2, `the f16 cache should round, a little: ${moved}`);

  half.forward(ids.slice(0, 100), { attention: false });
  let worst = 0;
  for (let t = 100; t < T; t++) {
    const step = half.append(ids[t], { attention: false });
    worst = Math.max(worst, maxAbsDiff(step.logits, h.logits.subarray(t * 50257, (t + 1) * 50257)));
  }
  assert.equal(worst, 0, 'decoding through the f16 cache is the full pass, bit for bit');

  const { cache } = half.runWithCache(ids, { names: ['blocks.1.attn.hook_q', 'blocks.1.attn.hook_k'], allLogits: false });
  const pattern = half.attentionPattern(cache['blocks.1.attn.hook_q'].data, cache['blocks.1.attn.hook_k'].data);
  assert.equal(maxAbsDiff(pattern, h.attention.subarray(4 * T * T)), 0);
  half.free();
  full.free();
});

test('a KV cache that is not f32 or f16 is an error', async () => {
  const e = await engine();
  const bytes = new Uint8Array(readFileSync(model));
  assert.throws(() => e.loadModel(bytes, { kvCache: 'f8' }), { message: "the KV cache is 'f32' or 'f16', not 'f8'" });
  assert.throws(() => e.loadModel(bytes, { kvCache: 16 }), { message: "kvCache must be 'f32' or 'f16', got the number 16" });
});
