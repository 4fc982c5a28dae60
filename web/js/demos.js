// demos.js: the article's experiments, run in the worker on the engine's attention blocks (sections 1-4 and 6).
// Each returns plain typed arrays with their shapes; the page only draws them.

// Section 1 and 2: SingleHeadAttention on 8 tokens x d_model 64 -> d_head 16, with or without the causal mask.
// Every step (Q, K, V, the scaled scores, the weights, the output) is the engine's own.
export function singleHead(engine, { seed = 42, mask = false, seqLen = 8, dModel = 64, dHead = 16 }) {
  const x = engine.randomNormal([1, seqLen, dModel], { seed });
  const layer = engine.singleHeadAttention(dModel, dHead, { seed: seed + 1 });
  try {
    const causal = mask ? engine.causalMask(seqLen) : null;
    const { out, weights, q, k, v, scores } = layer.forward(x.data, x.shape, { mask: causal });
    let upper = 0;
    for (let i = 0; i < seqLen; i++) for (let j = i + 1; j < seqLen; j++) upper += weights.data[i * seqLen + j];
    const rowSums = Array.from({ length: seqLen }, (_, i) =>
      weights.data.subarray(i * seqLen, (i + 1) * seqLen).reduce((a, b) => a + b, 0));
    return { x: x.data, q: q.data, k: k.data, v: v.data, scores: scores.data, weights: weights.data, out: out.data,
      rowSums, upper, seqLen, dModel, dHead };
  } finally {
    layer.free();
  }
}

// Section 3: MultiHeadAttention, 4 heads over d_model 64, causal. Heads split and merged, as the engine returns them.
export function multiHead(engine, { seed = 42, seqLen = 8, dModel = 64, nHeads = 4, mask = true }) {
  const x = engine.randomNormal([1, seqLen, dModel], { seed });
  const layer = engine.multiHeadAttention(dModel, nHeads, { seed: seed + 1 });
  try {
    const r = layer.forward(x.data, x.shape, { mask: mask ? engine.causalMask(seqLen) : null });
    return {
      weights: r.weights.data, q: r.q.data, merged: r.merged.data, out: r.out.data,
      seqLen, dModel, nHeads, dHead: dModel / nHeads,
    };
  } finally {
    layer.free();
  }
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
