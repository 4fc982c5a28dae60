// asChunks, the one reader of a file's bytes for the engine's loaders and the worker's turns: every form of source
// reads as the same chunks, each wait for a chunk goes through `awaited` (the worker gives its turn away there), a
// stream left early is cancelled (its download stops), and what is not bytes is refused in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asChunks } from '../../web/lib/engine/chunks.js';

const bytes = [new Uint8Array([1, 2]), new Uint8Array([3])];
const read = async (source, ...rest) => {
  const out = [];
  for await (const chunk of asChunks(source, ...rest)) out.push([...chunk]);
  return out;
};
const streamOf = (chunks, onCancel = () => {}) => new ReadableStream({
  start(c) { for (const chunk of chunks) c.enqueue(chunk); c.close(); },
  cancel: onCancel,
});

test('every form of source reads as the same chunks', async () => {
  async function* generated() { yield* bytes; }
  const reader = streamOf(bytes);
  const withoutIterator = { getReader: () => reader.getReader() };  // a ReadableStream of a browser without for-await
  for (const source of [bytes, generated(), streamOf(bytes), withoutIterator, new Set(bytes)]) {
    assert.deepEqual(await read(source), [[1, 2], [3]]);
  }
  assert.deepEqual(await read(new Uint8Array([7]).buffer), [[7]]);
  assert.deepEqual(await read(new DataView(new Uint8Array([4, 5, 6]).buffer, 1)), [[5, 6]]);
});

test('each wait for a chunk goes through awaited', async () => {
  let waits = 0;
  const awaited = (next) => { waits += 1; return next; };
  assert.deepEqual(await read(streamOf(bytes), 'x', awaited), [[1, 2], [3]]);
  assert.equal(waits, 3);  // two chunks and the end
});

test('a stream left early is cancelled', async () => {
  let cancelled = 0;
  const pending = new ReadableStream({ pull(c) { c.enqueue(new Uint8Array(4)); }, cancel() { cancelled += 1; } });
  for await (const chunk of asChunks({ getReader: () => pending.getReader() })) {
    assert.equal(chunk.length, 4);
    break;
  }
  assert.equal(cancelled, 1);
  let bad = 0;  // a chunk that is not bytes, from a stream with more to come
  const chunks = [new Uint8Array(1), 'text'];
  const endless = new ReadableStream({
    pull(c) { c.enqueue(chunks.shift() ?? new Uint8Array(1)); },
    cancel() { bad += 1; },
  });
  await assert.rejects(read(endless, 'the .arcs file'),
    /chunk 1 of the \.arcs file is .*: chunks must be Uint8Array or ArrayBuffer/);
  assert.equal(bad, 1);
});

test('what is not bytes is refused in words', async () => {
  await assert.rejects(read('bytes'), /chunks is .*: give model\.safetensors as a Uint8Array/);
  await assert.rejects(read(42), /chunks is .*: give model\.safetensors/);
  await assert.rejects(read([new Uint8Array(1), 3]), /chunk 1 of model\.safetensors is/);
});
