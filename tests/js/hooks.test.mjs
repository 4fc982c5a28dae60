// hooks.test.mjs: model.runWithCache in wasm against the native engine's cache (arcscope run --hooks all) on the same
// file and ids, across the 64-position chunks the pass runs in; the names, the shapes and the errors. The values
// themselves are checked against PyTorch in tests/reference/test_hooks.py.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { engine, maxAbsDiff, python, repoRoot } from './support.mjs';

const cli = `${repoRoot}build/native/arcscope`;
const work = `${repoRoot}build/test-models/js-hooks`;
const config = { 'n-layer': 2, 'n-head': 4, 'n-embd': 64, 'n-ctx': 192, vocab: 50257 };
const T = 160; // two chunks
const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % 50257);
const files = {};

function nativeCache(model) {
  const dir = `${model}.cache`;
  execFileSync(cli, ['run', '--model', model, '--ids', ids.join(','), '--hooks', 'all', '--cache-out', dir, '--out', '/dev/null']);
  const index = JSON.parse(readFileSync(`${dir}/cache.json`, 'utf8'));
  return Object.fromEntries(Object.entries(index.hooks).map(([name, shape]) => {
    const b = readFileSync(`${dir}/${name}.f32`);
    return [name, { shape, data: new Float32Array(b.buffer, b.byteOffset, b.length / 4) }];
  }));
}

before(() => {
  mkdirSync(work, { recursive: true });
  const args = ['--out', `${work}/ckpt`, '--seed', '4', ...Object.entries(config).flatMap(([k, v]) => [`--${k}`, String(v)])];
  execFileSync(python, [`${repoRoot}scripts/make_checkpoint.py`, ...args]);
  for (const dtype of ['f32', 'q8']) {
    files[dtype] = `${work}/model.${dtype}.arcs`;
    execFileSync(cli, ['convert', '--in', `${work}/ckpt`, '--out', files[dtype], '--dtype', dtype]);
  }
});

for (const dtype of ['f32', 'q8']) {
  test(`${dtype}: every hook in wasm equals the native engine's, bit for bit, across chunks`, async () => {
    const e = await engine();
    const model = e.loadModel(new Uint8Array(readFileSync(files[dtype])));
    const { cache, logitsShape } = model.runWithCache(ids);
    const native = nativeCache(files[dtype]);
    assert.deepEqual(Object.keys(cache), model.hookNames);
    assert.deepEqual(Object.keys(cache).sort(), Object.keys(native).sort());
    assert.deepEqual(logitsShape, [T, 50257]);
    let worst = 0;
    for (const [name, { shape, data }] of Object.entries(cache)) {
      assert.deepEqual(shape, native[name].shape, name);
      worst = Math.max(worst, maxAbsDiff(data, native[name].data));
    }
    console.log(`${dtype}: ${Object.keys(cache).length} hooks, T=${T}, largest wasm - native difference ${worst}`);
    assert.equal(worst, 0);
    model.free();
  });
}

test('the names asked for, and only those; the pattern is forward()\'s attention; shapes as TransformerLens\'s', async () => {
  const e = await engine();
  const model = e.loadModel(new Uint8Array(readFileSync(files.f32)));
  const few = ids.slice(0, 9);
  const { cache } = model.runWithCache(few, { names: (n) => n.startsWith('blocks.1.') });
  assert.deepEqual(Object.keys(cache), model.hookNames.filter((n) => n.startsWith('blocks.1.')));
  const shapes = Object.fromEntries(Object.entries(cache).map(([n, v]) => [n.slice('blocks.1.'.length), v.shape]));
  assert.deepEqual(shapes, {
    hook_resid_pre: [9, 64], 'attn.hook_q': [9, 4, 16], 'attn.hook_k': [9, 4, 16], 'attn.hook_v': [9, 4, 16],
    'attn.hook_pattern': [4, 9, 9], 'attn.hook_z': [9, 4, 16], hook_attn_out: [9, 64], hook_resid_mid: [9, 64],
    'mlp.hook_post': [9, 256], hook_mlp_out: [9, 64], hook_resid_post: [9, 64],
  });
  const { attention } = model.forward(few);
  assert.equal(maxAbsDiff(cache['blocks.1.attn.hook_pattern'].data, attention.subarray(4 * 81)), 0);
  // resid_post = resid_mid + mlp_out, as the names say
  const { data: mid } = cache['blocks.1.hook_resid_mid'], { data: out } = cache['blocks.1.hook_mlp_out'];
  assert.equal(maxAbsDiff(cache['blocks.1.hook_resid_post'].data, mid.map((v, i) => v + out[i])), 0);
  const last = model.runWithCache(few, { names: ['ln_final.hook_normalized'], allLogits: false });
  assert.deepEqual(last.logitsShape, [1, 50257]);
  assert.equal(maxAbsDiff(last.logits, model.forward(few, { attention: false }).logits), 0);
  model.free();
});

for (const dtype of ['f32', 'q8']) {
  test(`${dtype}: attentionPattern(hook_q, hook_k) is forward()'s attention, bit for bit, across chunks`, async () => {
    const e = await engine();
    const model = e.loadModel(new Uint8Array(readFileSync(files[dtype])));
    const { attention } = model.forward(ids);
    const { cache } = model.runWithCache(ids, { names: (n) => /attn\.hook_[qk]$/.test(n), allLogits: false });
    const TT = T * T;
    for (let l = 0; l < 2; l++) {
      const q = cache[`blocks.${l}.attn.hook_q`].data, k = cache[`blocks.${l}.attn.hook_k`].data;
      const layer = model.attentionPattern(q, k);
      assert.equal(layer.length, 4 * TT);
      assert.equal(maxAbsDiff(layer, attention.subarray(l * 4 * TT, (l + 1) * 4 * TT)), 0, `layer ${l}`);
      assert.equal(maxAbsDiff(model.attentionPattern(q, k, 3), attention.subarray((l * 4 + 3) * TT, (l * 4 + 4) * TT)), 0);
    }
    // A shorter prefix of q and k is that prefix's own pattern (causal: later tokens change nothing before them).
    const q0 = cache['blocks.0.attn.hook_q'].data, k0 = cache['blocks.0.attn.hook_k'].data;
    const short = model.attentionPattern(q0.subarray(0, 5 * 64), k0.subarray(0, 5 * 64), 1);
    assert.equal(short[0], 1);
    assert.equal(maxAbsDiff(short.subarray(4 * 5, 5 * 5), attention.subarray(TT + 4 * T, TT + 4 * T + 5)), 0);
    model.free();
  });
}

// A (T, T) pattern max-pooled to (size, size) as a thumbnail shows it, written plainly: attentionThumbnail's reference.
function pooled(matrix, T, size) {
  const out = new Float32Array(size * size);
  for (let i = 0; i < T; i++) {
    for (let j = 0; j <= i; j++) {
      const cell = Math.floor((i * size) / T) * size + Math.floor((j * size) / T);
      out[cell] = Math.max(out[cell], matrix[i * T + j]);
    }
  }
  return out;
}

test('attentionThumbnail is attentionPattern max-pooled, bit for bit, at any size; bad sizes are refused', async () => {
  const e = await engine();
  const model = e.loadModel(new Uint8Array(readFileSync(files.q8)));
  const { cache } = model.runWithCache(ids, { names: ['blocks.1.attn.hook_q', 'blocks.1.attn.hook_k'], allLogits: false });
  const q = cache['blocks.1.attn.hook_q'].data, k = cache['blocks.1.attn.hook_k'].data;
  for (const head of [0, 3]) {
    const pattern = model.attentionPattern(q, k, head);
    for (const size of [1, 7, 64, T]) {
      assert.deepEqual(model.attentionThumbnail(q, k, head, size), pooled(pattern, T, size), `head ${head}, size ${size}`);
    }
  }
  assert.throws(() => model.attentionThumbnail(q, k, 0, 0), /size must be .*1/);
  assert.throws(() => model.attentionThumbnail(q, k, 0, T + 1), /size must be/);
  assert.throws(() => model.attentionThumbnail(q, k, 4, 8), /head must be/);
  model.free();
});

test('attentionPattern refuses what is not one layer\'s q and k', async () => {
  const e = await engine();
  const model = e.loadModel(new Uint8Array(readFileSync(files.q8)));
  const q = new Float32Array(3 * 64);
  assert.throws(() => model.attentionPattern(q, new Int32Array(3)), { message: "k must be a Float32Array (a layer's queries or keys hook data), got a Int32Array of length 3" });
  assert.throws(() => model.attentionPattern([0, 1], q), { message: "q must be a Float32Array (a layer's queries or keys hook data), got an array of length 2" });
  assert.throws(() => model.attentionPattern(q, new Float32Array(2 * 64)), { message: 'q and k must hold T x 64 (n_head x d_head) and T x 64 (n_kv_head x d_head) numbers for T up to 192, got 192 and 128' });
  assert.throws(() => model.attentionPattern(new Float32Array(0), new Float32Array(0)), /got 0 and 0/);
  assert.throws(() => model.attentionPattern(q, q, 4), /head must be .*4/);
  assert.throws(() => model.attentionPattern(q, q, '1'), /head must be a number, got/);
  assert.deepEqual(Array.from(model.attentionPattern(q, q, 0).subarray(0, 3)), [1, 0, 0]);
  model.free();
});

test('toTokens and toStrToks as TransformerLens: <|endoftext|> first unless prependBos is false', async () => {
  const e = await engine();
  const model = e.loadModel(new Uint8Array(readFileSync(files.q8)));
  assert.deepEqual(model.toTokens('The trophy'), [50256, 464, 16383]);
  assert.deepEqual(model.toTokens('The trophy', { prependBos: false }), [464, 16383]);
  assert.deepEqual(model.toStrToks('The trophy'), ['<|endoftext|>', 'The', ' trophy']);
  assert.deepEqual(model.toStrToks([464, 16383]), ['The', ' trophy']);
  model.free();
});

test('bad hook names are errors that name what exists', async () => {
  const e = await engine();
  const model = e.loadModel(new Uint8Array(readFileSync(files.q8)));
  assert.throws(() => model.runWithCache([1, 2], { names: ['blocks.2.attn.hook_z'] }),
    { message: 'hook blocks.2.attn.hook_z: the model has layers 0 to 1' });
  assert.throws(() => model.runWithCache([1, 2], { names: ['blocks.0.attn.hook_result'] }), /unknown hook name 'blocks\.0\.attn\.hook_result': the names are blocks\.\{l\}\.hook_resid_pre, /);
  assert.throws(() => model.runWithCache([1, 2], { names: [3] }), { message: 'names[0] is the number 3, not a hook name' });
  assert.throws(() => model.runWithCache([1, 2], { names: 'blocks.0.attn.hook_z' }), /names must be an array of hook names/);
  assert.equal(model.forward([1, 2]).logits.length, 50257); // still fine
  model.free();
});

for (const dtype of ['f32', 'q8']) {
  test(`${dtype}: runWithCache with reuse keeps the shared prefix and gives a full pass's bits after it`, async () => {
    const e = await engine();
    const model = e.loadModel(new Uint8Array(readFileSync(files[dtype])));
    const names = ['blocks.1.attn.hook_q', 'blocks.1.attn.hook_k', 'blocks.0.attn.hook_pattern', 'blocks.1.hook_resid_post'];
    for (const edit of [1, 70, T - 1]) {
      const after = ids.map((id, i) => (i === edit ? (id + 1) % 50257 : id));
      const full = model.runWithCache(after, { names });
      assert.equal(full.first, 0);
      model.runWithCache(ids, { names });
      const part = model.runWithCache(after, { names, reuse: T });
      assert.equal(part.first, edit, `edit at ${edit}`);
      const n = T - edit;
      assert.deepEqual(part.logitsShape, [n, 50257]);
      assert.equal(maxAbsDiff(part.logits, full.logits.subarray(edit * 50257)), 0);
      for (const name of names) {
        const { data, shape } = part.cache[name];
        if (name.endsWith('hook_pattern')) {
          assert.deepEqual(shape, [4, n, T]);
          for (let h = 0; h < 4; h++) {
            assert.equal(maxAbsDiff(data.subarray(h * n * T, (h + 1) * n * T), full.cache[name].data.subarray((h * T + edit) * T, (h + 1) * T * T)), 0, `${name} head ${h}`);
          }
        } else {
          assert.equal(shape[0], n, name);
          const row = data.length / n;
          assert.equal(maxAbsDiff(data, full.cache[name].data.subarray(edit * row)), 0, `${name}, edit at ${edit}`);
        }
      }
    }
    // reuse never takes what the cache does not hold as these tokens: another text in between, or no reuse asked
    model.runWithCache(ids.slice(0, 10), { names });
    assert.equal(model.runWithCache(ids, { names, reuse: T }).first, 10);
    assert.equal(model.runWithCache(ids, { names, reuse: 5 }).first, 5);
    model.runWithHooks(ids, [{ hook: 'blocks.0.hook_resid_post', ablate: 'zero' }]);
    assert.equal(model.runWithCache(ids, { names, reuse: T }).first, 0);
    for (const bad of ['5', true, null, -1, 1.5]) {
      assert.throws(() => model.runWithCache(ids, { names, reuse: bad }), /reuse must be/, String(bad));
    }
    model.free();
  });
}
