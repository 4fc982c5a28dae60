// out-of-memory.test.mjs: wasm memory filled on purpose (models loaded until none fits), then every kind of call that
// converts a JavaScript value (a long string, ids, a model file, a config): each is a clear Error or a correct result,
// never a write through a failed allocation, and once models are freed the engine works as before, bit for bit.
// Its own file, so the 4 GB the engine grows to go when this process ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { engine, repoRoot } from './support.mjs';

const FULL = /^the engine's memory is full: free a model \(out of memory while /;

test("out of memory is a clear Error, and the engine stays usable once models are freed", async () => {
  const e = await engine();
  const bytes = new Uint8Array(readFileSync(`${repoRoot}/models/shakespeare-4l.q8.arcs`));
  const first = e.loadModel(bytes);
  const ids = [...e.encode('Where is the duke of York? Where is the duke of York?')];
  const before = first.forward(ids, { attention: true, allLogits: true });
  const keep = { logits: before.logits.slice(), attention: before.attention.slice() };

  const ballast = [];
  let refusal = null;
  for (let i = 0; i < 1000 && !refusal; i++) {
    try { ballast.push(e.loadModel(bytes)); } catch (err) { refusal = err; }
  }
  assert.ok(refusal, 'wasm memory never filled');
  assert.match(refusal.message, FULL);
  console.log(`filled: ${ballast.length + 1} models, wasm memory ${(e.core.HEAP8.buffer.byteLength / 2 ** 30).toFixed(2)} GB; ` +
    `"${refusal.message}"`);

  // A fill-up to the last megabytes, then each kind of conversion.
  const crumbs = [];
  try { for (;;) crumbs.push(e.loadModel(bytes.subarray(0, 0))); } catch { /* an empty file: refused, allocates nothing */ }
  const calls = [
    ['tokenizing a 64 MB string', () => e.encode('x'.repeat(64 << 20))],
    ['running 40,000 ids', () => first.forward(Array.from({ length: 40_000 }, () => 1))],
    ['converting a config', () => e.core.ModelConverter.create('{"n_layer": 1}'.padEnd(48 << 20), 'q8', 100)],
    ['decoding 10 million ids', () => e.decode(new Int32Array(10_000_000))],
  ];
  for (const [what, call] of calls) {
    let outcome;
    try { call(); outcome = 'done'; } catch (err) { outcome = err.message; }
    console.log(`${what}: ${outcome.slice(0, 160)}`);
    assert.ok(outcome === 'done' || FULL.test(outcome) || /longer than the model's context|must be|not/.test(outcome),
      `${what}: ${outcome}`);
    assert.doesNotMatch(outcome, /^\d+$|Cannot read properties|RuntimeError|unreachable/);
  }

  for (const m of ballast) m.free();
  const after = first.forward(ids, { attention: true, allLogits: true });
  assert.deepEqual(after.logits, keep.logits, 'the first model changed while memory was full');
  assert.deepEqual(after.attention, keep.attention);
  assert.deepEqual([...e.encode('Where is the duke of York? Where is the duke of York?')], ids);
  const again = e.loadModel(bytes);  // room again
  assert.deepEqual(again.forward(ids, { attention: false, allLogits: true }).logits, keep.logits);
  again.free();
  first.free();
});
