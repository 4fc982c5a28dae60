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

// Exhausted to its last bytes: buffers of halving sizes, down to one byte, are held until not even a few bytes are
// left. Every binding then ends in an Error or a result, never a bare number: C++ exceptions allocate in wasm too
// (Emscripten 3.1.6 threw the number 16 when that failed, for `encode` of 3,000 characters among others).
test('exhausted to the last bytes, every binding throws an Error, never a number', async () => {
  const e = await engine();
  const core = e.core;
  const bytes = new Uint8Array(readFileSync(`${repoRoot}/models/shakespeare-4l.q8.arcs`));
  const tokenizerBytes = new Uint8Array(readFileSync(`${repoRoot}/build/lib/models/gpt2-tokenizer.bin`));
  const m = core.Model.fromBytes(bytes);
  const ids = [...e.encode('Where is the duke of York? Where is the duke of York?')];
  const before = m.forward(ids, true, true);
  const keep = { logits: before.logits.slice(), attention: before.attention.slice() };
  const tiny = JSON.stringify({ n_layer: 1, n_head: 1, n_embd: 8, n_positions: 1, vocab_size: 1 });
  // Buffers of halving sizes until even one byte is refused: a loader's buffer (64-byte aligned) down to 64 bytes,
  // then converters' staging buffers (a chunk of zeros is refused as a header; its buffer stays) down to one byte.
  const crumbs = Array.from({ length: 1024 }, () => core.ModelConverter.create(tiny, 'q8', 100));
  const held = [];
  let bytesHeld = 0, crumbsUsed = 0;
  for (let size = 2 ** 30; size >= 64; size /= 2) {
    for (;;) {
      try { held.push(core.ModelLoader.create(size)); bytesHeld += size; } catch (err) {
        assert.ok(err instanceof Error, `a buffer of ${size} bytes: threw ${typeof err} ${String(err)}, not an Error`);
        assert.match(err.message, FULL);
        break;
      }
    }
  }
  for (let size = 32; size >= 1; size /= 2) {
    for (; crumbsUsed < crumbs.length; crumbsUsed++, bytesHeld += size) {
      try { crumbs[crumbsUsed].feed(new Uint8Array(size)); } catch (err) { if (FULL.test(err.message)) break; }
    }
  }
  console.log(`exhausted: ${(bytesHeld / 2 ** 30).toFixed(3)} GB in ${held.length} buffers and ${crumbsUsed} crumbs down to ` +
    `1 byte; wasm memory ${(core.HEAP8.buffer.byteLength / 2 ** 30).toFixed(2)} GB`);
  assert.ok(crumbsUsed < crumbs.length, 'wasm memory never filled to its last bytes');

  const text = 'Where is the duke of York? '.repeat(111);  // 2,997 characters
  const calls = {
    'encode 3,000 characters': () => e.encode(text),
    'encode a word': () => e.encode('York'),
    'decode': () => e.decode(ids),
    'tokenSpans': () => e.tokenizer.tokenSpans(ids),
    'tokenText': () => e.tokenizer.tokenText(49999),
    'singleToken': () => e.tokenizer.singleToken(' York', 'the answer'),
    'Tokenizer.fromBytes': () => core.Tokenizer.fromBytes(tokenizerBytes).delete(),
    'Model.fromBytes': () => core.Model.fromBytes(bytes).delete(),
    'ModelLoader.create': () => core.ModelLoader.create(bytes.length).delete(),
    'ModelConverter.create': () => core.ModelConverter.create(tiny, 'q8', 100).delete(),
    'forward': () => m.forward(ids, true, true),
    'runWithCache': () => m.runWithCache(ids, ['blocks.0.attn.hook_pattern'], false, 0),
    'hookNames': () => m.hookNames(),
    'config': () => m.config(),
    'filePage': () => m.filePage(0),
    'append': () => m.append(5, true),
    'startGeneration': () => m.startGeneration(ids, 3, 1, 0, 1, 7, 50256),
    'generationStep': () => m.generationStep(true),
    'topK': () => core.topK(new Float32Array(50257), 5),
    'headScores': () => core.headScores(m, null, 8, 1),
    'perplexity': () => core.perplexity(m, ids, 0),
    'runWithHooks': () => core.runWithHooks(m, ids, [], false),
    'logitLens': () => core.logitLens(m, ids, 3, -1),
    'directLogitAttribution': () => core.directLogitAttribution(m, ids, 5, -1),
    'patchingSweep': () => core.patchingSweep(m, ids, ids, 5, 6),
    'ablationSweep': () => core.ablationSweep(m, ids, 5, 6, 'zero'),
    'MultiHeadAttention': () => new core.MultiHeadAttention(64, 4, 1).delete(),
    'causalMask': () => core.causalMask(300),
    'randomNormal': () => core.randomNormal([64, 64], 1),
  };
  const outcomes = [];
  for (const [what, call] of Object.entries(calls)) {
    let outcome = 'done';
    try { call(); } catch (err) {
      assert.ok(err instanceof Error, `${what} threw ${typeof err} ${String(err)}, not an Error`);
      outcome = err.message;
    }
    assert.doesNotMatch(outcome, /^\d+$|Cannot read properties|RuntimeError|unreachable|memory access out of bounds/,
      `${what}: ${outcome}`);
    outcomes.push(`${what}: ${outcome.slice(0, 90)}`);
  }
  console.log(outcomes.join('\n'));

  for (const x of [...held, ...crumbs]) x.delete();
  m.reset();
  const after = m.forward(ids, true, true);
  assert.deepEqual(after.logits, keep.logits, 'the model changed while memory was exhausted');
  assert.deepEqual(after.attention, keep.attention);
  assert.deepEqual([...e.encode('Where is the duke of York? Where is the duke of York?')], ids);
  m.delete();
});
