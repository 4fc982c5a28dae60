// demos.js: the article's experiments, run in the worker on the engine's attention blocks (sections 1-4 and 6).
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
