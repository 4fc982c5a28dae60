// attention-math.js: pure functions from attention matrices to what the views draw. A head's matrix is a
// Float32Array (T, T), row = query token, column = key token, rows summing to 1; a full tensor is [L, H, T, T].

// The (T, T) matrix of one layer and head of a full [L, H, T, T] tensor, as a subarray (no copy).
export function headMatrix(attention, shape, layer, head) {
  const [, H, T] = shape;
  const start = ((layer * H) + head) * T * T;
  return attention.subarray(start, start + T * T);
}

// Mean or max over (T, T) matrices, in the order given. Any iterable: a generator lets a caller compute the matrices
// one at a time rather than hold them all.
export function aggregate(matrices, how) {
  let out = null, n = 0;
  for (const m of matrices) {
    out ??= new Float32Array(m.length);
    n++;
    if (how === 'max') { for (let i = 0; i < out.length; i++) if (m[i] > out[i]) out[i] = m[i]; }
    else for (let i = 0; i < out.length; i++) out[i] += m[i];
  }
  if (how !== 'max') for (let i = 0; i < out.length; i++) out[i] /= n;
  return out;
}

// The heads a view's matrix is made of: [[layer, head], ...] for viewMatrix's layer and head.
export function viewHeads([L, H], layer, which) {
  const layers = typeof layer === 'number' ? [layer] : range(L), heads = typeof which === 'number' ? [which] : range(H);
  return heads.flatMap((h) => layers.map((l) => [l, h]));
}

// One (T, T) matrix of a view, from head(l, h) -> that head's (T, T): layer a number or 'mean' / 'max' over layers,
// head a number or 'mean' / 'max' over heads. Layers are aggregated first, then heads; the same aggregate over both
// takes every head of every layer at once, layer by layer, as the engine's pass keeps it (kept_queries.h): the
// engine's views (model.keptAttention) are this function's bits, which the page computes from a full tensor.
export function viewMatrix(head, [L, H], layer, which) {
  if (typeof layer !== 'number' && layer === which) {
    return aggregate((function* () { for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) yield head(l, h); })(), layer);
  }
  const perHead = (h) => {
    if (typeof layer === 'number') return head(layer, h);
    return aggregate((function* () { for (let l = 0; l < L; l++) yield head(l, h); })(), layer);
  };
  if (typeof which === 'number') return perHead(which);
  return aggregate((function* () { for (let h = 0; h < H; h++) yield perHead(h); })(), which);
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

// The share of each row that goes to token 0, averaged over the rows that could look elsewhere (1 .. T - 1; row 0
// sees only token 0): 0 for T < 2. Many decoders (Llama's, Qwen's, SmolLM2's) park most of most rows there.
export function sinkShare(matrix, T) {
  let sum = 0;
  for (let i = 1; i < T; i++) sum += matrix[i * T];
  return T > 1 ? sum / (T - 1) : 0;
}

// sink 'auto' (the explorer's default) hides the first token where it takes more than this share of the rows drawn:
// past half, the arcs to it outweigh all others together and the top few of each row are mostly arcs to it.
export const SINK_DOMINANT = 0.5;

// Whether a view shows attention to the first token: sink true or false as asked, 'auto' by the rows' mass (the
// mean of sinkShare over the matrices drawn). -> {show, share}
export function sinkChoice(sink, matrices, T) {
  const share = matrices.length ? matrices.reduce((s, m) => s + sinkShare(m, T), 0) / matrices.length : 0;
  return { show: sink === 'auto' ? !(share > SINK_DOMINANT) : sink, share };
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

// A (T, T) matrix plus its next query row (T + 1 weights, as a generation step gives it) -> (T + 1, T + 1).
export function growMatrix(matrix, T, row) {
  const N = T + 1, out = new Float32Array(N * N);
  for (let i = 0; i < T; i++) out.set(matrix.subarray(i * T, i * T + T), i * N);
  out.set(row.subarray(0, N), T * N);
  return out;
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
