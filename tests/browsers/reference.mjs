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
// at most topk per token and head (0: all), the strongest first. -> [{from, to, head, weight}]
export function expectedArcs({ shape: [, H, T], attention }, { layer, head, topk, threshold }) {
  const arcs = [];
  for (const h of head === 'all' ? [...Array(H).keys()] : [head]) {
    for (let i = 0; i < T; i++) {
      const row = [];
      for (let j = 0; j < T; j++) {
        const weight = attention[((layer * H + h) * T + i) * T + j];
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
