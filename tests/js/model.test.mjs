// The wasm GPT-2 against the native build on the same model file and ids, the in-browser converter against the
// native one, KV-cache decoding, generation, and errors. Needs build/native/arcscope (built before this suite).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, createReadStream, statSync } from 'node:fs';
import { engine, gpt2Config, maxAbsDiff, python, repoRoot } from './support.mjs';

const cli = `${repoRoot}build/native/arcscope`;
const work = `${repoRoot}build/test-models/js`;
const ckpt = `${work}/ckpt`;
const config = { 'n-layer': 2, 'n-head': 4, 'n-embd': 128, 'n-ctx': 96, vocab: 50257 };
const T = 80;
const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % 50257);

function native(dtype) {
  const model = `${work}/model.${dtype}.arcs`;
  const bin = `${work}/logits.${dtype}.f32`, json = `${work}/run.${dtype}.json`;
  execFileSync(cli, ['convert', '--in', ckpt, '--out', model, '--dtype', dtype]);
  execFileSync(cli, ['run', '--model', model, '--ids', ids.join(','), '--out', json, '--logits-bin', bin,
    '--tokenizer', `${repoRoot}build/native/gpt2-tokenizer.bin`]);
  const b = readFileSync(bin);
  return {
    path: model,
    bytes: new Uint8Array(readFileSync(model)),
    logits: new Float32Array(b.buffer, b.byteOffset, b.length / 4),
    attention: Float32Array.from(JSON.parse(readFileSync(json, 'utf8')).attention.flat(3)),
  };
}

const nat = {};
before(() => {
  mkdirSync(work, { recursive: true });
  const args = ['--out', ckpt, '--seed', '21', ...Object.entries(config).flatMap(([k, v]) => [`--${k}`, String(v)])];
  execFileSync(python, [`${repoRoot}scripts/make_checkpoint.py`, ...args]);
  nat.f32 = native('f32');
  nat.q8 = native('q8');
  nat.q16 = native('q16');
});

// Every step of the forward pass sums in a fixed order in both builds (no FMA natively, the same kernels' order),
// so wasm and native give the same bits; the test allows them 1e-5 on every logit and attention weight.
for (const dtype of ['f32', 'q8', 'q16']) {
  test(`${dtype}: wasm and native agree on logits and attention within 1e-5 (same file, same ids)`, async () => {
    const e = await engine();
    const model = e.loadModel(nat[dtype].bytes);
    const { checksum, ...shape } = model.config;
    assert.deepEqual(shape, gpt2Config({ n_layer: 2, n_head: 4, n_embd: 128, n_ctx: 96, dtype }));
    assert.match(checksum, /^\d+$/);
    const r = model.forward(ids, { attention: true, allLogits: true });
    assert.deepEqual(r.logitsShape, [T, 50257]);
    assert.deepEqual(r.attentionShape, [2, 4, T, T]);
    const logitErr = maxAbsDiff(r.logits, nat[dtype].logits);
    const attErr = maxAbsDiff(r.attention, nat[dtype].attention);
    console.log(`${dtype}, T=${T}: wasm vs native logits max diff ${logitErr.toExponential(2)}, ` +
      `attention max diff ${attErr.toExponential(2)}`);
    assert.ok(logitErr <= 1e-5, `logits differ by ${logitErr}`);
    assert.ok(attErr <= 1e-5, `attention differs by ${attErr}`);

    const last = model.forward(ids, { attention: false });
    assert.equal(last.attention, null);
    assert.deepEqual(last.logitsShape, [1, 50257]);
    assert.equal(maxAbsDiff(last.logits, r.logits.subarray((T - 1) * 50257)), 0);
    model.free();
  });
}

test('KV cache in wasm: appending tokens gives the full forward pass\'s logits and attention rows', async () => {
  const e = await engine();
  const model = e.loadModel(nat.q8.bytes);
  const full = model.forward(ids, { attention: true, allLogits: true });
  const P = 60;
  model.forward(ids.slice(0, P), { attention: false });
  let logitErr = 0, attErr = 0;
  for (let pos = P; pos < T; pos++) {
    const step = model.append(ids[pos]);
    assert.deepEqual(step.attentionShape, [2, 4, pos + 1]);
    assert.equal(model.length, pos + 1);
    logitErr = Math.max(logitErr, maxAbsDiff(step.logits, full.logits.subarray(pos * 50257, (pos + 1) * 50257)));
    for (let lh = 0; lh < 8; lh++) {
      const row = full.attention.subarray((lh * T + pos) * T, (lh * T + pos) * T + pos + 1);
      attErr = Math.max(attErr, maxAbsDiff(step.attention.subarray(lh * (pos + 1), (lh + 1) * (pos + 1)), row));
    }
  }
  console.log(`KV-cache decode vs full forward (wasm, q8): logits ${logitErr.toExponential(2)}, attention ${attErr.toExponential(2)}`);
  assert.ok(logitErr < 1e-4 && attErr < 1e-5);
  model.free();
});

test('convertCheckpoint in wasm writes the same bytes as the native converter (q8, q16, f32); q16 is nearer f32 than q8', async () => {
  const e = await engine();
  const config = JSON.parse(readFileSync(`${ckpt}/config.json`, 'utf8'));
  const logits = {};
  for (const dtype of ['q8', 'q16', 'f32']) {
    const stages = new Set();
    let last = null;
    const out = await e.convertCheckpoint({
      config, dtype,
      chunks: createReadStream(`${ckpt}/model.safetensors`, { highWaterMark: 300_001 }),
      totalBytes: statSync(`${ckpt}/model.safetensors`).size,
      onProgress: (p) => { stages.add(p.stage); last = p; },
    });
    assert.ok(out instanceof Uint8Array);
    assert.equal(Buffer.compare(Buffer.from(out), Buffer.from(nat[dtype].bytes)), 0, `${dtype} bytes differ`);
    assert.deepEqual([...stages], ['tensors', 'checksum', 'done']);
    assert.equal(last.bytesDone, last.bytesTotal);
    const model = e.loadModel(out);
    assert.equal(model.config.dtype, dtype);
    logits[dtype] = model.forward(ids, { attention: false, allLogits: true }).logits;
    model.free();
  }
  // The converted models themselves: 14-bit weights (and activations) move the logits less than int8 weights do.
  const q8Err = maxAbsDiff(logits.q8, logits.f32), q16Err = maxAbsDiff(logits.q16, logits.f32);
  console.log(`converted in wasm, T=${T}: logits max diff from f32's, q8 ${q8Err.toExponential(2)}, q16 ${q16Err.toExponential(2)}`);
  assert.ok(q16Err > 0 && q16Err < q8Err, `q16 is ${q16Err} from f32, q8 ${q8Err}`);
  await assert.rejects(e.convertCheckpoint({ config, chunks: [new Uint8Array(100)] }), /safetensors/);
  await assert.rejects(e.convertCheckpoint({ config, dtype: 'q4', chunks: [] }), /dtype must be q8, q16 or f32, got 'q4'/);
  const truncated = readFileSync(`${ckpt}/model.safetensors`).subarray(0, 5000);
  await assert.rejects(e.convertCheckpoint({ config, chunks: [truncated] }), /truncated checkpoint/);
  await assert.rejects(e.convertCheckpoint({ config: { ...config, activation_function: 'relu' }, chunks: [] }),
    /activation_function 'relu' is not supported/);
});

test('without a dtype, the CLI and convertCheckpoint both write the default format (q16 at this size), byte for byte', async () => {
  const e = await engine();
  const out = `${work}/model.default.arcs`;
  const said = execFileSync(cli, ['convert', '--in', ckpt, '--out', out], { encoding: 'utf8' });
  assert.match(said, /, q16: the default for this shape\)$/m);
  assert.equal(Buffer.compare(readFileSync(out), Buffer.from(nat.q16.bytes)), 0, 'the CLI\'s default is not its q16');
  const bytes = await e.convertCheckpoint({ config: readFileSync(`${ckpt}/config.json`, 'utf8'),
    chunks: createReadStream(`${ckpt}/model.safetensors`), totalBytes: statSync(`${ckpt}/model.safetensors`).size });
  assert.equal(Buffer.compare(Buffer.from(bytes), Buffer.from(nat.q16.bytes)), 0, 'convertCheckpoint\'s default is not q16');
});

test('generation: seeded and reproducible, stops at the context, streams tokens with attention rows', async () => {
  const e = await engine();
  const model = e.loadModel(nat.q8.bytes);
  const prompt = model.tokenize('The trophy did not fit in the bag because').ids;
  // Random tied embeddings make the model repeat its last token with near certainty: sample hot to see choices.
  const opts = { ids: prompt, maxTokens: 12, temperature: 8, topK: 40, topP: 0.95, seed: 3 };
  const a = await model.generate(opts), b = await model.generate(opts);
  assert.deepEqual(a.ids, b.ids);
  assert.equal(a.ids.length, 12);
  assert.equal(a.stop, 'max_tokens');
  assert.equal(typeof a.text, 'string');
  const c = await model.generate({ ...opts, seed: 4 });
  assert.notDeepEqual(c.ids, a.ids);

  const seen = [];
  const streamed = await model.generate({ ...opts, attention: true, onToken: (t) => { seen.push(t); } });
  assert.deepEqual(seen.map((t) => t.id), a.ids);
  assert.deepEqual(seen[0].attentionShape, [2, 4, prompt.length + 1]);
  assert.equal(seen[0].token, e.tokenText(a.ids[0]));
  assert.equal(streamed.stop, 'max_tokens');

  const stopped = await model.generate({ ...opts, onToken: (t) => t.index < 2 });
  assert.equal(stopped.ids.length, 3);
  assert.equal(stopped.stop, 'callback');

  const long = await model.generate({ ...opts, maxTokens: 500 });
  assert.equal(long.stop, 'context_full');
  assert.equal(prompt.length + long.ids.length, 96);

  // One generation loop: the CLI (native) draws the same tokens from the same seed as JavaScript (wasm).
  const native = JSON.parse(execFileSync(cli, ['generate', '--model', nat.q8.path, '--ids', prompt.join(','),
    '--tokens', '12', '--temperature', '8', '--top-k', '40', '--top-p', '0.95', '--seed', '3', '--json',
    '--tokenizer', `${repoRoot}build/native/gpt2-tokenizer.bin`], { encoding: 'utf8' }));
  assert.deepEqual(native.ids, a.ids);
  assert.equal(native.stop, a.stop);

  const top = model.topk(model.forward(prompt, { attention: false }).logits, 5);
  assert.equal(top.length, 5);
  for (let i = 1; i < 5; i++) assert.ok(top[i - 1].prob >= top[i].prob);
  assert.equal(top[0].token, e.tokenText(top[0].id));
  model.free();
});

test('bad input: clear errors naming what is wrong, the model stays usable', async () => {
  const e = await engine();
  const model = e.loadModel(nat.q8.bytes);
  assert.throws(() => model.forward([]), /empty input/);
  assert.throws(() => model.forward([1, 2, 50257]), /token id 50257 at position 2 is outside the vocabulary/);
  assert.throws(() => model.forward(Array(97).fill(1)), /97 tokens is longer than the model's context \(n_ctx 96\)/);
  assert.throws(() => model.forward([1, 2.5]), /not an integer/);
  await assert.rejects(model.generate({ ids: [1], temperature: -1 }), /temperature/);
  await assert.rejects(model.generate({ ids: [1], topP: 0 }), /top_p/);
  assert.equal(model.forward([1, 2, 3]).logits.length, 50257);  // still fine
  model.free();
  assert.throws(() => model.forward([1]), /freed/);

  const bytes = nat.q8.bytes;
  assert.throws(() => e.loadModel(new Uint8Array(16)), /wrong magic/);
  assert.throws(() => e.loadModel(bytes.subarray(0, bytes.length >> 1)), /truncated: header says/);
  const corrupt = bytes.slice();
  corrupt[corrupt.length - 100] ^= 1;
  assert.throws(() => e.loadModel(corrupt), /checksum mismatch/);
  assert.throws(() => e.loadModel('not bytes'), /Uint8Array/);
});
