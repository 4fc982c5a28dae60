// reference.mjs: the engine's own attention, computed in Node by build/lib/engine.js from the same model file a
// page loads, and the arcs a drawing of it must hold (what the element's and the explorer's filters keep).
import { readFileSync } from 'node:fs';
import { createEngine } from '../../build/lib/engine.js';

let engine = null;
const models = new Map(); // file -> Model

// -> {T, shape: [L, H, T, T], attention: Float32Array}
export async function engineAttention(file, text) {
  engine ??= await createEngine();
  if (!models.has(file)) models.set(file, engine.loadModel(new Uint8Array(readFileSync(file))));
  const model = models.get(file);
  const { ids } = model.tokenize(text);
  const out = model.forward(ids, { attention: true });
  return { T: ids.length, shape: out.attentionShape, attention: out.attention };
}

// The arcs of layer and heads (an index, or 'all') a view keeps: every weight above 0 and at or above threshold,
// at most topk per token and head (0: all), the strongest first. sink as the views take it (the embedding guide):
// 'auto', their default, leaves out the first token where the rows drawn (1 .. T - 1) give it more than half their
// weight on average, and rescales each row over the rest to sum to 1; 'shown' and 'hidden' as said.
// -> [{from, to, head, weight}]
export function expectedArcs({ shape: [, H, T], attention }, { layer, head, topk, threshold, sink = 'auto' }) {
  const heads = head === 'all' ? [...Array(H).keys()] : [head];
  const at = (h, i, j) => attention[((layer * H + h) * T + i) * T + j];
  let share = 0;
  for (const h of heads) for (let i = 1; i < T; i++) share += at(h, i, 0) / (T - 1) / heads.length;
  const hidden = sink === 'hidden' || (sink === 'auto' && share > 0.5);
  const arcs = [];
  for (const h of heads) {
    for (let i = 0; i < T; i++) {
      let rest = 0;
      for (let j = 1; j < T; j++) rest += at(h, i, j);
      const row = [];
      for (let j = 0; j < T; j++) {
        const weight = !hidden ? at(h, i, j) : j === 0 || rest === 0 ? 0 : at(h, i, j) / rest;
        if (weight > 0 && weight >= threshold) row.push({ from: i, to: j, head: h, weight });
      }
      row.sort((a, b) => b.weight - a.weight);
      arcs.push(...(topk > 0 ? row.slice(0, topk) : row));
    }
  }
  return arcs;
}

// How drawn arcs differ from the expected ones: -> {missing, extra (counts), largest (weight difference), ok}
export function compareArcs(drawn, expected, tolerance = 1e-5) {
  const key = (a) => `${a.head}/${a.from}/${a.to}`;
  const want = new Map(expected.map((a) => [key(a), a.weight]));
  let extra = 0, largest = 0;
  for (const a of drawn) {
    if (!want.has(key(a))) { extra++; continue; }
    largest = Math.max(largest, Math.abs(a.weight - want.get(key(a))));
  }
  const missing = expected.length - (drawn.length - extra);
  return { drawn: drawn.length, missing, extra, largest, ok: drawn.length > 0 && missing === 0 && extra === 0 && largest <= tolerance };
}
