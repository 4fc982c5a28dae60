// attention-source.js: where the views get their attention. A source has `shape` [L, H, T, T] and answers
// matrix(layer, head) with a Promise of one (T, T) Float32Array, layer an index or 'mean' / 'max' over layers and head
// an index or 'mean' / 'max' over heads (attention-math.js's viewMatrix); selectView turns a view's choice, 'all'
// heads and the sink toggle included, into the matrices to draw. The arrays are shared: read them, never write.
//   EngineAttention   a text the worker analysed: each matrix computed there, exactly, when a view first needs it
//   TensorAttention   a full [L, H, T, T] tensor held in the page (src=, data, a short text's element.result)
//   GrowingAttention  another source plus the query rows a generation appends, one token at a time
import { viewMatrix, viewHeads, headMatrix, hideSink, growMatrix, range } from '../shared/attention-math.js';
import { PromiseCache } from '../shared/promise-cache.js';

// The worker's matrices, shared by every EngineAttention on the page, least recently used first, bounded by their
// bytes: every head of a layer of GPT-2 small at 512 tokens (12 MB), so that their mean or max needs no round trip;
// at 1,024 tokens a head is 4 MB, and the worker computes one in 15 ms.
const BUDGET = 16 << 20;
const matrices = new PromiseCache({ budget: BUDGET, sizeOf: (m) => m.byteLength, keepNewest: true });
let sources = 0;

export class EngineAttention {
  // worker: the worker client (worker-client.js); model: its key; ids and shape: the analyze op's.
  constructor(worker, model, ids, shape) {
    Object.assign(this, { worker, model, ids, shape, id: ++sources });
  }

  matrix(layer, head) {
    return matrices.get(`${this.id}/${layer}/${head}`, () => {
      const held = this.fromHeld(layer, head);
      if (held) return Promise.resolve(held);
      return this.worker.call('attention', { model: this.model, ids: this.ids, layer, head }).then((r) => r.data);
    });
  }

  // Asks for every head of a layer ahead of a switch to them or to their mean or max, when the layer fits in the
  // page's share (GPT-2 small up to about 580 tokens); those already here cost nothing.
  prefetchLayer(layer) {
    const [, H, T] = this.shape;
    if (H * T * T * 4 > BUDGET) return;
    for (let h = 0; h < H; h++) this.matrix(layer, h).catch(() => {}); // a failure shows when a view asks for it
  }

  // A mean or max whose heads the page holds already, computed here exactly as the worker would (the same
  // viewMatrix over the same arrays), or null.
  fromHeld(layer, head) {
    if (typeof layer === 'number' && typeof head === 'number') return null;
    const held = new Map();
    for (const [l, h] of viewHeads(this.shape, layer, head)) {
      const m = matrices.value(`${this.id}/${l}/${h}`);
      if (!m) return null;
      held.set(`${l}/${h}`, m);
    }
    return viewMatrix((l, h) => held.get(`${l}/${h}`), this.shape, layer, head);
  }

  // Every head max-pooled to at most size x size, computed in the worker behind any view it is asked for:
  // onLayer(layer, data (H * size * size), size) as each layer arrives. -> the call (worker.cancel stops it)
  thumbnails(size, onLayer) {
    return this.worker.call('attentionThumbnails', { model: this.model, ids: this.ids, size },
      { onProgress: (p) => onLayer(p.layer, p.data, p.size) });
  }
}

export class TensorAttention {
  constructor(attention, shape) {
    Object.assign(this, { attention, shape });
  }

  matrix(layer, head) {
    return Promise.resolve(viewMatrix((l, h) => headMatrix(this.attention, this.shape, l, h), this.shape, layer, head));
  }
}

export class GrowingAttention {
  constructor(base) {
    this.base = base;
    this.shape = base.shape;
    this.rows = [];         // each generated token's rows, [L, H, T + 1] flat
    this.grown = new Map(); // 'l/h' -> {T, matrix: Promise}: that head grown to T rows so far
  }

  // One generated token: its attention row in every layer and head (the generate op's progress row).
  append(row) {
    const [L, H, T] = this.shape;
    this.rows.push(row);
    this.shape = [L, H, T + 1, T + 1];
  }

  matrix(layer, head) {
    const parts = viewHeads(this.shape, layer, head);
    return Promise.all(parts.map(([l, h]) => this.head(l, h))).then((ms) => {
      const byHead = new Map(parts.map(([l, h], i) => [`${l}/${h}`, ms[i]]));
      return viewMatrix((l, h) => byHead.get(`${l}/${h}`), this.shape, layer, head);
    });
  }

  // One head grown from the base source's matrix by the rows appended since.
  head(l, h) {
    const key = `${l}/${h}`, [, H, target] = this.shape, start = this.base.shape[2];
    let g = this.grown.get(key);
    if (!g) this.grown.set(key, g = { T: start, matrix: this.base.matrix(l, h) });
    g.matrix = g.matrix.then((m) => {
      for (; g.T < target; g.T++) {
        const N = g.T + 1, row = this.rows[g.T - start];
        m = growMatrix(m, g.T, row.subarray((l * H + h) * N, (l * H + h + 1) * N));
      }
      return m;
    });
    return g.matrix;
  }
}

// The matrices a view draws: [{head, matrix}], head being the colour index (-1 for an aggregate over heads): one
// head, every head of the layer ('all', one colour each) or one aggregate.
export function selectView(source, { layer, head }) {
  const heads = head === 'all' ? range(source.shape[1]) : [head];
  return Promise.all(heads.map(async (h) => ({ head: typeof h === 'number' ? h : -1, matrix: await source.matrix(layer, h) })));
}

// The same with attention to the first token (the "sink") hidden and each row rescaled (attention-math.js).
export const withoutSink = (picked, T) => picked.map(({ head, matrix }) => ({ head, matrix: hideSink(matrix, T) }));
