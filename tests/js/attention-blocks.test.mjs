// The wasm attention blocks against the article's checks and against PyTorch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { engine, maxAbsDiff, python, repoRoot } from './support.mjs';

function torchReference(job) {
  const run = spawnSync(python, [`${repoRoot}python/arcscope_reference/attention_reference.py`], {
    input: JSON.stringify(job), encoding: 'utf8', maxBuffer: 1 << 26,
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

function weightsOf(layer, names) {
  return Object.fromEntries(names.map((n) => {
    const w = layer.weight(n);
    return [n, { data: Array.from(w.data), shape: w.shape }];
  }));
}

test('single-head attention: shapes, row sums, causal upper triangle (the article\'s printout)', async () => {
  const e = await engine();
  const attn = e.singleHeadAttention(64, 16, { seed: 42 });
  const x = e.randomNormal([2, 8, 64], { seed: 42 });
  const { out, weights } = attn.forward(x.data, x.shape);
  assert.deepEqual(out.shape, [2, 8, 16]);
  assert.deepEqual(weights.shape, [2, 8, 8]);
  let worstRow = 0;
  for (let r = 0; r < 16; r++) {
    const sum = weights.data.slice(r * 8, r * 8 + 8).reduce((a, b) => a + b, 0);
    worstRow = Math.max(worstRow, Math.abs(sum - 1));
  }
  console.log(`largest |row sum - 1|: ${worstRow.toExponential(2)}`);
  assert.ok(worstRow < 1e-6);

  const masked = attn.forward(x.data, x.shape, { mask: e.causalMask(8) }).weights;
  let upper = 0;
  for (let b = 0; b < 2; b++)
    for (let i = 0; i < 8; i++)
      for (let j = i + 1; j < 8; j++) upper += masked.data[b * 64 + i * 8 + j];
  console.log(`upper-triangle weight sum: ${upper}`);
  assert.equal(upper, 0);
  attn.free();
});

test('single-head attention matches PyTorch, with and without the causal mask', async () => {
  const e = await engine();
  const attn = e.singleHeadAttention(64, 16, { seed: 3 });
  const x = e.randomNormal([2, 8, 64], { seed: 4 });
  for (const mask of [null, e.causalMask(8)]) {
    const ours = attn.forward(x.data, x.shape, { mask });
    const ref = torchReference({
      kind: 'single', x: Array.from(x.data), shape: x.shape,
      weights: weightsOf(attn, ['W_q', 'W_k', 'W_v']), mask: mask && Array.from(mask.data),
    });
    const dOut = maxAbsDiff(ours.out.data, ref.out), dW = maxAbsDiff(ours.weights.data, ref.weights);
    console.log(`single-head vs PyTorch (mask ${mask ? 'on' : 'off'}): max |Δout| ${dOut.toExponential(2)}, max |Δweights| ${dW.toExponential(2)}`);
    assert.ok(dOut < 1e-5 && dW < 1e-5);
  }
  attn.free();
});

test('multi-head attention keeps the input shape and matches PyTorch', async () => {
  const e = await engine();
  const mha = e.multiHeadAttention(64, 4, { seed: 5 });
  const x = e.randomNormal([2, 8, 64], { seed: 6 });
  const mask = e.causalMask(8);
  const ours = mha.forward(x.data, x.shape, { mask });
  assert.deepEqual(ours.out.shape, [2, 8, 64]);
  assert.deepEqual(ours.weights.shape, [2, 4, 8, 8]);
  const ref = torchReference({
    kind: 'multi', n_heads: 4, x: Array.from(x.data), shape: x.shape,
    weights: weightsOf(mha, ['W_q', 'W_k', 'W_v', 'W_o']), mask: Array.from(mask.data),
  });
  const dOut = maxAbsDiff(ours.out.data, ref.out), dW = maxAbsDiff(ours.weights.data, ref.weights);
  console.log(`multi-head vs PyTorch: max |Δout| ${dOut.toExponential(2)}, max |Δweights| ${dW.toExponential(2)}`);
  assert.ok(dOut < 1e-5 && dW < 1e-5);
  mha.free();
});

test('positional encoding: known values and addition', async () => {
  const e = await engine();
  const pe = e.positionalEncoding(64, 100);
  const table = pe.table();
  assert.deepEqual(table.shape, [100, 64]);
  const at = (pos, dim) => table.data[pos * 64 + dim];
  assert.equal(at(0, 0), 0);
  assert.equal(at(0, 1), 1);
  assert.ok(Math.abs(at(1, 0) - Math.sin(1)) < 1e-6);
  assert.ok(Math.abs(at(7, 10) - Math.sin(7 / 10000 ** (10 / 64))) < 1e-6);
  assert.ok(Math.abs(at(7, 11) - Math.cos(7 / 10000 ** (10 / 64))) < 1e-6);
  const sum = pe.forward(new Float32Array(3 * 64).fill(1), [1, 3, 64]);
  assert.ok(Math.abs(sum.data[64 + 0] - (1 + Math.sin(1))) < 1e-6);
  pe.free();
});

test('bad input becomes an Error with the C++ message', async () => {
  const e = await engine();
  assert.throws(() => e.multiHeadAttention(64, 5), /d_model \(64\) is not divisible by n_heads \(5\)/);
  const attn = e.singleHeadAttention(8, 4);
  assert.throws(() => attn.forward(new Float32Array(6), [1, 2, 3]), /the layer expects 8/);
  assert.throws(() => attn.forward(new Float32Array(16), [1, 2, 8], { mask: e.causalMask(3) }), /mask must be/);
  assert.throws(() => attn.setWeight('W_q', new Float32Array(3)), /expected 8 x 4 values/);
  assert.throws(() => e.causalMask(0), /n > 0/);
  attn.free();
});

test("the engine's quadratic fit (the one the cost chart draws) recovers known coefficients", async () => {
  const e = await engine();
  const [a, b, c] = [0.0007, 0.02, 3];  // ms = a n² + b n + c
  const points = [128, 256, 512, 1024].map((n) => ({ seqLen: n, ms: (a * n + b) * n + c }));
  const fit = e.fitQuadratic(points);
  const worst = Math.max(...points.map(({ seqLen: n, ms }) => Math.abs((fit.a * n + fit.b) * n + fit.c - ms)));
  console.log(`largest residual of the fit: ${worst.toExponential(2)} ms; a ${fit.a}, b ${fit.b}, c ${fit.c}`);
  assert.ok(worst < 1e-6);
  assert.ok(Math.abs(fit.a - a) < 1e-9 && Math.abs(fit.c - c) < 1e-4);
  assert.throws(() => e.fitQuadratic(points.slice(0, 2)), /at least 3 points, got 2/);
});

test('SingleHeadAttention returns the Q, K, V and masked scores it used (recomputed here from its weights)', async () => {
  const e = await engine();
  const [T, D, d] = [6, 16, 4];
  const x = e.randomNormal([1, T, D], { seed: 5 });
  const layer = e.singleHeadAttention(D, d, { seed: 6 });
  const r = layer.forward(x.data, x.shape, { mask: e.causalMask(T) });
  const project = (name) => {
    const w = layer.weight(name).data, out = new Float64Array(T * d);
    for (let i = 0; i < T; i++) for (let p = 0; p < D; p++) for (let j = 0; j < d; j++) out[i * d + j] += x.data[i * D + p] * w[p * d + j];
    return out;
  };
  const [q, k, v] = ['W_q', 'W_k', 'W_v'].map(project);
  let worst = Math.max(maxAbsDiff(r.q.data, q), maxAbsDiff(r.k.data, k), maxAbsDiff(r.v.data, v));
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      const got = r.scores.data[i * T + j];
      if (j > i) { assert.equal(got, -Infinity, `score (${i}, ${j}) is masked`); continue; }
      let s = 0;
      for (let c = 0; c < d; c++) s += q[i * d + c] * k[j * d + c];
      worst = Math.max(worst, Math.abs(got - s / Math.sqrt(d)));
    }
  }
  console.log(`largest difference of q, k, v and the scores from a float64 recomputation: ${worst.toExponential(2)}`);
  assert.ok(worst < 1e-5);
  assert.deepEqual(r.scores.shape, [1, T, T]);
  layer.free();
});
