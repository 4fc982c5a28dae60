// demos.js: the article's experiments, run in the worker on the engine's attention blocks (sections 1-4 and 6).
// Each returns plain typed arrays with their shapes; the page only draws them.

// Section 1 and 2: SingleHeadAttention on 8 tokens x d_model 64 -> d_head 16, with or without the causal mask.
// Q, K, V and the scaled scores are recomputed here from the layer's own weights, only to show the steps;
// the weights and the output come from the engine.
export function singleHead(engine, { seed = 42, mask = false, seqLen = 8, dModel = 64, dHead = 16 }) {
  const x = engine.randomNormal([1, seqLen, dModel], { seed });
  const layer = engine.singleHeadAttention(dModel, dHead, { seed: seed + 1 });
  try {
    const causal = mask ? engine.causalMask(seqLen) : null;
    const { out, weights } = layer.forward(x.data, x.shape, { mask: causal });
    const [q, k, v] = ['W_q', 'W_k', 'W_v'].map((name) => matmul(x.data, layer.weight(name).data, seqLen, dModel, dHead));
    const scores = new Float32Array(seqLen * seqLen);
    const scale = 1 / Math.sqrt(dHead);
    for (let i = 0; i < seqLen; i++) {
      for (let j = 0; j < seqLen; j++) {
        let s = 0;
        for (let d = 0; d < dHead; d++) s += q[i * dHead + d] * k[j * dHead + d];
        scores[i * seqLen + j] = mask && j > i ? -Infinity : s * scale;
      }
    }
    let upper = 0;
    for (let i = 0; i < seqLen; i++) for (let j = i + 1; j < seqLen; j++) upper += weights.data[i * seqLen + j];
    const rowSums = Array.from({ length: seqLen }, (_, i) =>
      weights.data.subarray(i * seqLen, (i + 1) * seqLen).reduce((a, b) => a + b, 0));
    return { x: x.data, q, k, v, scores, weights: weights.data, out: out.data, rowSums, upper, seqLen, dModel, dHead };
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

// a (n, k) · b (k, m) -> (n, m), row-major.
function matmul(a, b, n, k, m) {
  const out = new Float32Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let p = 0; p < k; p++) {
      const av = a[i * k + p];
      for (let j = 0; j < m; j++) out[i * m + j] += av * b[p * m + j];
    }
  }
  return out;
}
