// demos.js: the article's experiments, run in the worker on the engine's attention blocks (sections 1-4 and 6) and
// its rotary positions (section 4).
// Each returns plain typed arrays with their shapes; the page only draws them.

// Section 1 and 2: SingleHeadAttention on the article's batch: 2 sequences of 8 tokens x d_model 64 -> d_head 16,
// with or without the causal mask. Every step (Q, K, V, the scaled scores, the weights, the output) is the engine's
// own; the page draws the first sequence and prints the shapes, as the article's test does. withWeights also returns
// the layer's matrices (tests/reference/page_blocks.mjs hands them to the article's PyTorch classes).
export function singleHead(engine, { seed = 42, mask = false, batch = 2, seqLen = 8, dModel = 64, dHead = 16, withWeights = false }) {
  const x = engine.randomNormal([batch, seqLen, dModel], { seed });
  const layer = engine.singleHeadAttention(dModel, dHead, { seed: seed + 1 });
  try {
    const causal = mask ? engine.causalMask(seqLen) : null;
    const { out, weights, q, k, v, scores } = layer.forward(x.data, x.shape, { mask: causal });
    // The article's checks, on the first sequence: weights[0].triu(diagonal=1).sum() and each row's sum.
    let upper = 0;
    for (let i = 0; i < seqLen; i++) for (let j = i + 1; j < seqLen; j++) upper += weights.data[i * seqLen + j];
    const rowSums = Array.from({ length: seqLen }, (_, i) =>
      weights.data.subarray(i * seqLen, (i + 1) * seqLen).reduce((a, b) => a + b, 0));
    return { x: x.data, q: q.data, k: k.data, v: v.data, scores: scores.data, weights: weights.data, out: out.data,
      shapes: { x: x.shape, out: out.shape, weights: weights.shape }, rowSums, upper, seqLen, dModel, dHead,
      ...(withWeights ? { layerWeights: matrices(layer, ['W_q', 'W_k', 'W_v']) } : {}) };
  } finally {
    layer.free();
  }
}

// Section 3: MultiHeadAttention, 4 heads over d_model 64, causal, on the same batch. Heads split and merged, and the
// output after W_o, as the engine returns them.
export function multiHead(engine, { seed = 42, batch = 2, seqLen = 8, dModel = 64, nHeads = 4, mask = true, withWeights = false }) {
  const x = engine.randomNormal([batch, seqLen, dModel], { seed });
  const layer = engine.multiHeadAttention(dModel, nHeads, { seed: seed + 1 });
  try {
    const r = layer.forward(x.data, x.shape, { mask: mask ? engine.causalMask(seqLen) : null });
    return {
      x: x.data, weights: r.weights.data, q: r.q.data, merged: r.merged.data, out: r.out.data,
      shapes: { x: x.shape, out: r.out.shape, weights: r.weights.shape, q: r.q.shape, merged: r.merged.shape },
      seqLen, dModel, nHeads, dHead: dModel / nHeads,
      ...(withWeights ? { layerWeights: matrices(layer, ['W_q', 'W_k', 'W_v', 'W_o']) } : {}),
    };
  } finally {
    layer.free();
  }
}

// Section 2's printout: causal_mask(n), the engine's (n, n) matrix of ones and zeros.
export function causalMask(engine, { n = 5 }) {
  return engine.causalMask(n);
}

// {name: {data, shape}} of a layer's weight matrices, stored (in, out) and applied as x @ W.
function matrices(layer, names) {
  return Object.fromEntries(names.map((name) => [name, layer.weight(name)]));
}

// Section 4: the sinusoidal table (maxLen, dModel).
export function positional(engine, { dModel = 64, maxLen = 64 }) {
  const pe = engine.positionalEncoding(dModel, maxLen);
  try {
    return { table: pe.table().data, dModel, maxLen };
  } finally {
    pe.free();
  }
}

// Section 4, rotary positions: one query q and one key k (dHead values each, from the seed), each turned to every
// position 0 .. n-1 by the engine's RotaryEmbedding (the rotation the decoders run), and scores[m, j] = q at m · k at
// j / sqrt(dHead). Turning makes a score depend on m - j alone, so each diagonal of the matrix holds one value:
// diagonalSpread is the largest difference seen along any diagonal (float32 rounding), unturned the score of q and k
// wherever they stand.
export function rotary(engine, { dHead = 64, n = 64, seed = 11 }) {
  const q = engine.randomNormal([1, dHead], { seed }).data, k = engine.randomNormal([1, dHead], { seed: seed + 1 }).data;
  const rope = engine.rotaryEmbedding(dHead, { maxSeqLen: n });
  try {
    const everywhere = (v) => {  // (n, dHead): v in every row, so that row t turns by position t
      const rows = new Float32Array(n * dHead);
      for (let t = 0; t < n; t++) rows.set(v, t * dHead);
      return rope.forward(rows, [n, dHead]).data;
    };
    const qs = everywhere(q), ks = everywhere(k);
    const dot = (a, i, b, j) => {
      let sum = 0;
      for (let c = 0; c < dHead; c++) sum += a[i * dHead + c] * b[j * dHead + c];
      return sum / Math.sqrt(dHead);
    };
    const scores = new Float32Array(n * n);
    for (let m = 0; m < n; m++) for (let j = 0; j < n; j++) scores[m * n + j] = dot(qs, m, ks, j);
    let diagonalSpread = 0;  // each score against its diagonal's first, where the query or the key is at 0
    for (let m = 0; m < n; m++) {
      for (let j = 0; j < n; j++) {
        const back = Math.min(m, j);
        diagonalSpread = Math.max(diagonalSpread, Math.abs(scores[m * n + j] - scores[(m - back) * n + j - back]));
      }
    }
    return { q, k, qs, ks, scores, n, dHead, unturned: dot(q, 0, k, 0), diagonalSpread };
  } finally {
    rope.free();
  }
}

// Section 4, the same rotation inside a model: its first block's queries and keys before and after it turns them
// (hook_q, hook_rot_q; hook_k, hook_rot_k) on a text, and this block's RotaryEmbedding (the model's head size,
// rotary dimensions and theta) turning hook_q's and hook_k's first head. differing: how many of the turned values
// differ from the model's own in any bit. Two models are shown and not compared (notCompared says why): llama3 rope
// scaling stretches the slow wavelengths, which the block leaves out, and Qwen3 normalizes each head's q and k
// between hook_q and the turn.
export function rotaryInModel(engine, model, { text }) {
  const c = model.config;
  if (c.positions !== 'rotary') return { rotary: false };
  // The model's own tokens of text, or (a model that carries no tokenizer) the ids 1 to 16.
  const ids = model.tokenizer ? model.toTokens(text, { prependBos: false }).slice(0, 32)
    : Array.from({ length: 16 }, (_, i) => i + 1);
  const names = ['hook_q', 'hook_rot_q', 'hook_k', 'hook_rot_k'].map((n) => `blocks.0.attn.${n}`);
  const { cache } = model.runWithCache(ids, { names, allLogits: false });
  const T = ids.length, d = c.d_head;
  const firstHead = (name) => {  // [T, heads, d] -> head 0's (T, d)
    const { data, shape } = cache[`blocks.0.attn.${name}`], out = new Float32Array(T * d);
    for (let t = 0; t < T; t++) out.set(data.subarray(t * shape[1] * d, t * shape[1] * d + d), t * d);
    return out;
  };
  const q = firstHead('hook_q'), rotQ = firstHead('hook_rot_q'), k = firstHead('hook_k'), rotK = firstHead('hook_rot_k');
  const notCompared = c.rope_scaling !== 'none' ? `its ${c.rope_scaling} rope scaling stretches the slow ` +
      "wavelengths, which this section's block leaves out"
    : c.qk_norm ? 'it normalizes each head\'s q and k (q_norm, k_norm) between hook_q and the turn' : null;
  let differing = null;
  if (!notCompared) {
    const rope = engine.rotaryEmbedding(d, { maxSeqLen: T, theta: c.rope_theta, rotaryDim: c.rotary_dim });
    try {
      const turnedQ = rope.forward(q, [T, d]).data, turnedK = rope.forward(k, [T, d]).data;
      differing = 0;
      for (let i = 0; i < T * d; i++) differing += !Object.is(turnedQ[i], rotQ[i]) + !Object.is(turnedK[i], rotK[i]);
    } finally {
      rope.free();
    }
  }
  return { rotary: true, tokens: model.toStrToks(ids), T, d, q, rotQ, theta: c.rope_theta, rotaryDim: c.rotary_dim,
    notCompared, differing, values: 2 * T * d };
}

// Section 6: the engine's cost experiment (MultiHeadAttention, d_model 768, 12 heads), one length at a time so the
// page can plot each point as it arrives; the page fits the quadratic over all of them.
export async function costExperiment(engine, { lengths = [128, 256, 512, 1024], repeats = 3, dModel = 768, nHeads = 12 }, progress) {
  const points = [];
  for (const n of lengths) {
    if (progress.cancelled?.()) break;
    const { points: [p] } = engine.attentionCost({ lengths: [n], dModel, nHeads, repeats });
    points.push(p);
    // The engine's fit, ms ≈ a n² + b n + c, once there are three points.
    const fit = points.length >= 3 ? engine.fitQuadratic(points) : null;
    progress({ n: p.seqLen, ms: p.ms, fit });
    await new Promise((ok) => setTimeout(ok, 0)); // lets a 'cancel' message in
  }
  return { points: points.map((p) => ({ n: p.seqLen, ms: p.ms })) };
}
