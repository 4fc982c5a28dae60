// What a model costs the engine's memory as it arrives: a conversion that runs where the converter wrote it
// (convertToModel) and a file written in as it streams (loadModelStream) each hold the model once, where converting
// to bytes and loading those held it twice; the file read back out (fileStream) is the converter's file, bit for bit;
// the KV cache goes to f16 only where f32 would not fit; the worker's models make room before a new one arrives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createEngine } from '../../build/lib/engine.js';
import { checkpoint } from './crafted-files.mjs';
import { engine, maxAbsDiff } from './support.mjs';
import { PLANNED_TOKENS, kvCacheFor, kvBytes, workingBytes } from '../../web/lib/shared/model-memory.js';
import { GPT2_FAMILY, shapeOf } from '../../web/tutorial/page/gpt2-family.js';
import { DECODER_MODELS } from '../../web/tutorial/page/decoder-models.js';
import { LruMap } from '../../web/lib/shared/lru-map.js';

// A model whose q8 file is some 80 MB (GPT-2's vocabulary at width 1024), well past the engine's first 32 MB, so the
// two paths' memory tells apart.
const config = { n_layer: 2, n_head: 16, n_embd: 1024, n_positions: 256, vocab_size: 50257 };
const st = checkpoint(config, { seed: 3 });
const mb = (n) => `${(n / 2 ** 20).toFixed(1)} MB`;
const streamBytes = async (stream) => new Uint8Array(await new Response(stream).arrayBuffer());

// What a path holds at its peak: the engine's memory (which grows and never shrinks: each path gets an engine of its
// own) and JavaScript's ArrayBuffers beside it, sampled at each progress report and at the end, collected first.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
async function peak(run) {
  const e = await createEngine();
  gc();
  const wasm0 = e.core.HEAP8.buffer.byteLength, js0 = process.memoryUsage().arrayBuffers;
  let js = 0;
  const sample = () => { gc(); js = Math.max(js, process.memoryUsage().arrayBuffers - js0); };
  const model = await run(e, sample);
  sample();
  return { model, wasm: e.core.HEAP8.buffer.byteLength - wasm0, js };
}

test('a conversion run in place and a streamed load hold the model once; bytes then loadModel held it twice', async () => {
  const inPlace = await peak((e, onProgress) => e.convertToModel({ config, chunks: st, dtype: 'q8', onProgress }));
  const file = inPlace.model.fileBytes;
  const viaBytes = await peak(async (e, sample) => {
    const bytes = await e.convertCheckpoint({ config, chunks: st, dtype: 'q8', onProgress: sample });
    sample();
    return e.loadModel(bytes);
  });
  const streamed = await peak((e, onProgress) => e.loadModelStream({ totalBytes: file, onProgress,
    chunks: inPlace.model.fileStream({ chunkBytes: 1 << 20 }) }));
  for (const [what, p] of [['converting in place', inPlace], ['loading it as a stream', streamed],
    ['converting to bytes and loading those', viaBytes]]) {
    console.log(`a ${mb(file)} q8 file, ${what}: wasm memory grew ${mb(p.wasm)}, JavaScript held ${mb(p.js)}`);
  }
  const slack = 8 << 20;  // the converter's 1 MB staging, a block column of a Conv1D, a stream's chunk
  assert.ok(inPlace.wasm + inPlace.js <= file + slack, mb(inPlace.wasm + inPlace.js));
  assert.ok(streamed.wasm + streamed.js <= file + slack, mb(streamed.wasm + streamed.js));
  assert.ok(viaBytes.wasm + viaBytes.js > 1.5 * file, `the path this replaces: ${mb(viaBytes.wasm + viaBytes.js)}`);
  for (const { model } of [inPlace, viaBytes, streamed]) model.free();
});

test('fileStream gives the converter\'s file bit for bit, and a model loaded from it runs the same', async () => {
  const e = await engine();
  const bytes = await e.convertCheckpoint({ config, chunks: st, dtype: 'q16' });
  const converted = await e.convertToModel({ config, chunks: st, dtype: 'q16' });
  assert.deepEqual(await streamBytes(converted.fileStream({ chunkBytes: 3 << 19 })), bytes);
  const streamed = await e.loadModelStream({ chunks: new Response(bytes).body, totalBytes: bytes.length });
  const whole = e.loadModel(bytes);
  const ids = [464, 16383, 1422, 470, 4197, 287, 262];
  const [a, b, c] = [converted, streamed, whole].map((m) => m.forward(ids, { attention: true }));
  assert.equal(maxAbsDiff(a.logits, c.logits), 0);
  assert.equal(maxAbsDiff(b.logits, c.logits), 0);
  assert.equal(maxAbsDiff(a.attention, c.attention), 0);
  assert.equal(converted.config.checksum, whole.config.checksum);
  // A stream that ends early, or runs past its length, is refused in words; a freed model's stream errors.
  await assert.rejects(e.loadModelStream({ chunks: [bytes.subarray(0, 1000)], totalBytes: bytes.length }),
    /truncated: the model file ended after 1000 of its \d+ bytes/);
  await assert.rejects(e.loadModelStream({ chunks: [bytes, new Uint8Array(8)], totalBytes: bytes.length }),
    /the model file is longer than its announced \d+ bytes/);
  // The checksum is summed as the chunks arrive: a byte changed in any of them is caught, the first or the last.
  for (const at of [100, bytes.length >> 1, bytes.length - 1]) {
    const bad = bytes.slice();
    bad[at] ^= 1;
    await assert.rejects(e.loadModelStream({ chunks: new Response(bad).body, totalBytes: bad.length }),
      /checksum mismatch: header says [0-9a-f]{16}, data gives [0-9a-f]{16} \(the file is corrupt\)/, `byte ${at}`);
  }
  const stream = converted.fileStream();
  converted.free();
  await assert.rejects(streamBytes(stream), /this model has been freed|freed while its file was being read/);
  for (const m of [streamed, whole]) m.free();
});

test('the KV cache is f16 only where model, f32 cache and working memory would not fit', () => {
  const family = Object.fromEntries(GPT2_FAMILY.map((m) => [m.id, m]));
  const kv = (id, dtype, memoryGB) => kvCacheFor(shapeOf(family[id]), family[id].arcs[dtype], memoryGB);
  assert.equal(kvBytes(shapeOf(family['gpt2-xl'])), 629_145_600);
  assert.equal(kv('gpt2', 'q8').format, 'f32');
  assert.equal(kv('gpt2-xl', 'q8').format, 'f32');      // 1.76 GB + 0.63 GB + 1.14 GB of working memory fits in 4 GB
  assert.equal(kv('gpt2-xl', 'q8', 8).format, 'f32');
  assert.equal(kv('gpt2-xl', 'q16').format, 'f16');     // 3.31 GB + 0.63 GB does not
  assert.equal(kv('gpt2-large', 'f32').format, 'f16');
  assert.equal(kv('gpt2-xl', 'q8', 4).format, 'f16');   // half of a 4 GB device
  assert.equal(kv('gpt2-medium', 'q8', 4).format, 'f32');
  assert.equal(kv('gpt2-xl', 'q16').why, 'its KV cache is kept in f16 (314.6 MB): in f32 (629.1 MB) it would not fit ' +
    'beside the 3.31 GB model and the 1.14 GB its passes work in, in the engine\'s 4 GB');
  assert.match(kv('gpt2-xl', 'q8', 4).why, /in half of the 4 GB this device reports$/);
  assert.equal(kv('gpt2-medium', 'q8').why, null);
});

// The working memory is the model's own (its context's logits, queries and keys, one layer's heads), not a flat
// gigabyte: the 8 MB default model keeps its f32 KV cache (and so its results) on any device Chrome describes, and
// each GPT-2 goes to f16 only where its own figures do not fit, which the note states in units that show them.
test('the KV cache\'s format at each device memory, for the default model and each GPT-2', () => {
  const defaultModel = { config: { n_layer: 4, n_head: 4, n_embd: 128, n_ctx: 256, n_vocab: 50257 }, bytes: 8_192_384 };
  const devices = [0.25, 0.5, 1, 2, 4, 8];
  const formats = (config, bytes) => devices.map((gb) => kvCacheFor(config, bytes, gb).format).join(' ');
  assert.equal(formats(defaultModel.config, defaultModel.bytes), 'f32 f32 f32 f32 f32 f32');
  const expected = {  // q8 files at 0.25, 0.5, 1, 2, 4 and 8 GB
    distilgpt2: 'f16 f16 f16 f32 f32 f32',
    gpt2: 'f16 f16 f16 f32 f32 f32',
    'gpt2-medium': 'f16 f16 f16 f16 f32 f32',
    'gpt2-large': 'f16 f16 f16 f16 f16 f32',
    'gpt2-xl': 'f16 f16 f16 f16 f16 f32',
  };
  for (const m of GPT2_FAMILY) assert.equal(formats(shapeOf(m), m.arcs.q8), expected[m.id], m.id);
  // Each figure of a note is one a reader can check: never "0.00 GB" for a model of megabytes.
  const notes = [defaultModel, ...GPT2_FAMILY.map((m) => ({ config: shapeOf(m), bytes: m.arcs.q8 }))]
    .flatMap(({ config, bytes }) => [0.0625, ...devices].map((gb) => kvCacheFor(config, bytes, gb).why)).filter(Boolean);
  assert.ok(notes.length > 10);
  for (const why of notes) assert.doesNotMatch(why, /(?<![\d.])0(\.0+)? [kMG]?B/, why);
  assert.match(kvCacheFor(defaultModel.config, defaultModel.bytes, 0.0625).why,
    /^its KV cache is kept in f16 \(524 kB\): in f32 \(1\.0 MB\) it would not fit beside the 8\.2 MB model and the 101\.8 MB/);
  // The allowance grows with the model: the default's is a tenth of GPT-2 XL's, and under a quarter of a gigabyte.
  assert.ok(workingBytes(defaultModel.config) < 0.25e9);
  assert.ok(workingBytes(shapeOf(GPT2_FAMILY.at(-1))) > 10 * workingBytes(defaultModel.config));
});

// Today's decoders read contexts of 2,048 to 131,072 tokens; the engine's memory is planned for the page's texts, up
// to 4,096 of them: the KV cache of that many positions, not of the whole context, and working memory of gigabytes,
// not the 98 GB (Qwen2.5) or 2.6 TB (Llama 3.2) a whole context's T x T attention would be. The small ones keep an
// f32 KV cache; those with a vocabulary of 128-152 thousand tokens plan 2.1-2.5 GB for a pass's logits of every
// position, and keep theirs in f16.
test("a decoder's memory is planned for 4,096 tokens of its context, not all of it", () => {
  const formats = {};
  for (const m of DECODER_MODELS) {
    const T = Math.min(m.shape.n_ctx, PLANNED_TOKENS);
    assert.equal(kvBytes(m.shape), 2 * m.shape.n_layer * T * m.shape.n_kv_head * m.shape.d_head * 4, m.id);
    assert.ok(workingBytes(m.shape) < 8e9, `${m.id}: ${workingBytes(m.shape)} bytes of working memory`);
    formats[m.id] = kvCacheFor(m.shape, m.arcs.q8).format;
  }
  assert.deepEqual(formats, { 'SmolLM2-135M': 'f32', 'SmolLM2-360M': 'f32', 'pythia-70m': 'f32', 'pythia-160m': 'f32',
    'pythia-410m': 'f32', 'Qwen2.5-0.5B': 'f16', 'Qwen3-0.6B': 'f16', 'TinyLlama-1.1B': 'f32', 'Llama-3.2-1B': 'f16' });
  // SmolLM2-135M: 30 layers, 3 key/value heads of 64, 4,096 of its 8,192 positions: 189 MB in f32.
  assert.equal(kvBytes(DECODER_MODELS[0].shape), 2 * 30 * 4096 * 3 * 64 * 4);
});

test('the worker\'s models make room before a model arrives: two at most, and one of over a gigabyte alone', () => {
  const freed = [];
  const models = new LruMap({ maxEntries: 2, budget: 1.25e9, onEvict: (v, key) => freed.push(key) });
  const bring = (key, bytes) => { models.makeRoom(bytes); models.set(key, key, bytes); };
  bring('small', 140e6);
  bring('medium', 400e6);
  assert.deepEqual(freed, []);                 // both fit: switching back is instant
  bring('large', 873e6);
  assert.deepEqual(freed, ['small', 'medium']);  // two at most, and 400 MB + 873 MB is over the budget
  bring('small', 140e6);
  assert.deepEqual(freed, ['small', 'medium']);
  bring('xl', 1.76e9);
  assert.deepEqual(freed, ['small', 'medium', 'large', 'small']);  // freed before XL arrives, not after
  assert.deepEqual([...models.keys()], ['xl']);
});

test('a model held for a use outside the engine\'s turns is passed over by eviction, and trimmed once let go', () => {
  const freed = [];
  const models = new LruMap({ maxEntries: 2, budget: 1.25e9, removable: (v) => v.users === 0,
    onEvict: (v, key) => freed.push(key) });
  const held = { users: 1 };
  models.set('picked', held, 140e6);
  models.set('medium', { users: 0 }, 400e6);
  models.makeRoom(140e6);
  models.set('small', { users: 0 }, 140e6);
  assert.deepEqual(freed, ['medium']);              // the held one stays while its file is copied
  assert.deepEqual([...models.keys()], ['picked', 'small']);
  models.makeRoom(1.76e9);
  models.set('xl', { users: 0 }, 1.76e9);
  assert.deepEqual(freed, ['medium', 'small']);
  assert.deepEqual([...models.keys()], ['picked', 'xl']);  // over the budget only while the held one is in use
  held.users = 0;
  models.trim();                                   // let go: over the budget, so it goes now
  assert.deepEqual(freed, ['medium', 'small', 'picked']);
  assert.deepEqual([...models.keys()], ['xl']);
  models.trim();
  assert.deepEqual([...models.keys()], ['xl']);    // the newest stays, whatever its size
});
