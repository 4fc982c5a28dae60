// attention-math.js: pure functions from the engine's attention tensor to what the views draw.
// attention is a Float32Array of shape [L, H, T, T] (row = query token, column = key token; rows sum to 1).

// The (T, T) matrix of one layer and head, as a subarray (no copy).
export function headMatrix(attention, shape, layer, head) {
  const [, H, T] = shape;
  const start = ((layer * H) + head) * T * T;
  return attention.subarray(start, start + T * T);
}

// Mean or max over a list of (T, T) matrices.
export function aggregate(matrices, how) {
  const out = new Float32Array(matrices[0].length);
  if (how === 'max') {
    for (const m of matrices) for (let i = 0; i < out.length; i++) if (m[i] > out[i]) out[i] = m[i];
  } else {
    for (const m of matrices) for (let i = 0; i < out.length; i++) out[i] += m[i];
    for (let i = 0; i < out.length; i++) out[i] /= matrices.length;
  }
  return out;
}

// Drops attention to token 0 (the "sink") and rescales each row to sum to 1 again. Row 0 can only see token 0,
// so it becomes all zeros.
export function hideSink(matrix, T) {
  const out = new Float32Array(matrix);
  for (let i = 0; i < T; i++) {
    const row = out.subarray(i * T, i * T + T);
    row[0] = 0;
    let sum = 0;
    for (let j = 0; j < T; j++) sum += row[j];
    if (sum > 0) for (let j = 0; j < T; j++) row[j] /= sum;
  }
  return out;
}

// The view's layers: a number, or 'mean' / 'max' over all layers. Heads: a number, 'all' (one colour per head),
// or 'mean' / 'max' over heads. Returns [{head, matrix}] where head is the colour index (-1 for an aggregate).
export function selectMatrices(attention, shape, { layer, head, sink = true }) {
  const [L, H, T] = shape;
  const layers = typeof layer === 'number' ? [layer] : range(L);
  const perHead = (h) => {
    const ms = layers.map((l) => headMatrix(attention, shape, l, h));
    return ms.length === 1 ? ms[0] : aggregate(ms, layer);
  };
  let picked;
  if (typeof head === 'number') picked = [{ head, matrix: perHead(head) }];
  else if (head === 'all') picked = range(H).map((h) => ({ head: h, matrix: perHead(h) }));
  else picked = [{ head: -1, matrix: aggregate(range(H).map(perHead), head) }];
  if (!sink) for (const p of picked) p.matrix = hideSink(p.matrix, T);
  return picked;
}

// Arcs of one matrix that pass the filter: per query row, the topK largest weights (0 = all) at or above threshold.
// Returns parallel arrays {from, to, weight} holding n arcs.
export function filterArcs(matrix, T, { topK = 0, threshold = 0 }) {
  const k = topK > 0 ? Math.min(topK, T) : 0;
  const cap = (k || T) * T;
  const from = new Int32Array(cap), to = new Int32Array(cap), weight = new Float32Array(cap);
  const best = new Int32Array(k); // the row's k largest so far, largest first (insertion: O(T k), k is small)
  let n = 0;
  for (let i = 0; i < T; i++) {
    const row = matrix.subarray(i * T, i * T + T);
    if (!k) {
      for (let j = 0; j < T; j++) {
        if (row[j] > 0 && row[j] >= threshold) { from[n] = i; to[n] = j; weight[n] = row[j]; n++; }
      }
      continue;
    }
    let count = 0;
    for (let j = 0; j < T; j++) {
      const w = row[j];
      if (!(w > 0 && w >= threshold) || (count === k && w <= row[best[k - 1]])) continue;
      let p = count < k ? count++ : k - 1;
      while (p > 0 && row[best[p - 1]] < w) { best[p] = best[p - 1]; p--; }
      best[p] = j;
    }
    for (let c = 0; c < count; c++) { from[n] = i; to[n] = best[c]; weight[n] = row[best[c]]; n++; }
  }
  return { from, to, weight, n };
}

// The k keys a query token attends to most: [{index, weight}], largest first.
export function topAttended(matrix, T, query, k = 5) {
  const row = Array.from(matrix.subarray(query * T, query * T + T), (w, index) => ({ index, weight: w }));
  return row.sort((a, b) => b.weight - a.weight).slice(0, k);
}

// [L, H, T, T] plus one new row per layer/head ([L, H, T+1]) -> [L, H, T+1, T+1].
export function growAttention(attention, shape, row) {
  const [L, H, T] = shape, N = T + 1;
  const out = new Float32Array(L * H * N * N);
  for (let m = 0; m < L * H; m++) {
    for (let i = 0; i < T; i++) out.set(attention.subarray((m * T + i) * T, (m * T + i + 1) * T), (m * N + i) * N);
    out.set(row.subarray(m * N, (m + 1) * N), (m * N + T) * N);
  }
  return { attention: out, shape: [L, H, N, N] };
}

// topk 'auto' (the default) draws every arc of a short text and, past AUTO_ALL_TOKENS tokens, each query's
// AUTO_TOP_K strongest: a thousand tokens of every arc is a wall of ink no one can read. -> the arcs per query
// to draw (0: all).
export const AUTO_ALL_TOKENS = 64;
export const AUTO_TOP_K = 3;
export const topKFor = (topk, T) => (topk === 'auto' ? (T > AUTO_ALL_TOKENS ? AUTO_TOP_K : 0) : topk);

export function range(n) {
  return Array.from({ length: n }, (_, i) => i);
}
