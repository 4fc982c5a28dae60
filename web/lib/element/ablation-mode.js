// ablation-mode.js: <arc-scope mode="ablation">, a feature of the element in a module of its own: the attributes it
// needs, the sweep it asks the worker for, and the layer x head heatmap it draws. element.js calls these and keeps
// what every mode shares (the text's analysis, the caption, element.result and the events).
import { Heatmap } from '../views/heatmap.js';
import { range } from '../shared/attention-math.js';
import { displayPiece } from '../shared/token-text.js';
import { headColumnLabel } from '../shared/head-groups.js';

// mode="ablation": {answer, wrong, kind}, checked before anything loads; null in the other modes (which leave
// answer and wrong unused, as matrix leaves topk). kind: the ablate attribute's value; attribute(name): the element's
// attribute, or null when absent.
export function ablationOptions(mode, kind, attribute) {
  if (mode !== 'ablation') return null;
  const answer = attribute('answer'), wrong = attribute('wrong');
  const missing = [answer === null && 'answer', wrong === null && 'wrong'].filter(Boolean);
  if (missing.length) {
    throw new Error(`mode "ablation" needs ${missing.join(' and ')}: one token each (answer=" dog" wrong=" cat"), ` +
      'the metric being logit(answer) - logit(wrong) after the text');
  }
  return { answer, wrong, kind };
}

// The ablation sweep on the ids of r, the model's analysis of text, through the element's shared cache
// (cached(key, start)). The engine checks answer and wrong (one token each) and says what is wrong.
// -> r with sweep: {baseline, metric (L * H), shape: [L, H], answer, wrong, kind}
export async function withAblationSweep(worker, modelKey, text, r, { answer, wrong, kind }, cached) {
  const sweep = await cached(['ablation', kind, answer, wrong, modelKey, text].join('\n'),
    () => worker.call('ablationSweep', { model: modelKey, ids: r.ids, answer, wrong, kind }));
  return { ...r, sweep: { baseline: sweep.baseline, metric: sweep.heads.data, shape: sweep.heads.shape, answer, wrong,
    kind } };
}

// One cell per layer and head in view, coloured by the change in the metric when that head is ablated (diverging: 0
// is blank, a drop in --heat-neg, a rise in --heat). marked: the index of a cell to outline (layer and head given
// together as integers), or -1; focused: the cell to give the focus back to (a redrawing keeps it), or -1. The cells
// are a grid for the keyboard and screen readers (heatmap.js's grid(), as in the page's "which heads matter"): Tab
// reaches it, the arrows move, each cell's name says its layer, head and value. kvHeads: the model's n_kv_head, so a
// grouped-query model's columns say which key/value head each query head reads ("head 4·KV 1").
// -> {effects (the Heatmap), caption, ablation: element.result's {baseline, metric, effect, shape, answer, wrong, kind}}
export function drawAblation(view, sweep, { marked, focused, kvHeads }) {
  const { baseline, metric, shape: [L, H], answer, wrong, kind } = sweep;
  const effect = metric.map((m) => m - baseline);
  const holder = document.createElement('div');
  holder.className = 'effects';
  view.replaceChildren(holder);
  const metricName = `logit(${displayName(answer)}) - logit(${displayName(wrong)})`;
  // A model larger than GPT-2 small (12 x 12) gets small cells and short labels: GPT-2 XL's 48 x 25 grid is
  // 400 px wide, not 800; each cell's name still says its layer and head.
  const large = L * H > 144;
  const effects = new Heatmap(holder, { rows: L, cols: H, cell: large ? 16 : H > 6 ? 28 : 40, signed: true,
    rowLabels: range(L).map((l) => (large ? `L${l}` : `layer ${l}`)),
    colLabels: range(H).map((h) => headColumnLabel(h, H, kvHeads, large)),
    label: `change in ${metricName} with each head ablated (${kind}): rows are layers, columns heads` });
  effects.update(effect);
  effects.cells.forEach((cell, i) => {
    Object.assign(cell.dataset, { layer: Math.floor(i / H), head: i % H, metric: metric[i], effect: effect[i] });
  });
  effects.grid({ name: (l, h, i) => `layer ${l}, head ${h}: ${metricName} ${metric[i].toFixed(2)} without it ` +
    `(${signed(effect[i])} from ${baseline.toFixed(2)})` });
  if (marked >= 0) effects.mark(marked);
  if (focused >= 0 && focused < L * H) effects.focusCell(focused);
  const caption = `ablation (${kind}): each cell, the change in ${metricName} (${baseline.toFixed(2)} with every ` +
    'head) without that head; orange: lower';
  return { effects, caption, ablation: { baseline, metric, effect, shape: [L, H], answer, wrong, kind } };
}

// A token's text as the drawings show it (' dog' as '·dog').
const displayName = (text) => { const p = displayPiece(text); return p.lead + p.text; };
const signed = (v) => (v >= 0 ? `+${v.toFixed(2)}` : `\u2212${(-v).toFixed(2)}`);
