// tutorial.js: sections 1-4, the article's building blocks run live in the worker, and rotary positions.
import { Heatmap, formatValue } from '../../lib/views/heatmap.js';
import { lineChart } from '../views/charts.js';
import { shapeText, tensorText } from './printout.js';

const $ = (id) => document.getElementById(id);
// The seeds each section opens with (re-seeding moves on from them). tests/reference/page_blocks.mjs runs the same
// demos with these seeds, for the article's PyTorch classes to check.
export const PAGE_SEEDS = { qkv: 42, masking: 7, heads: 42, rotary: 11 };
const labels = (n, prefix = '') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

// Controls are wired at once; the first runs wait for `start` (the explorer goes first in the worker's queue).
// -> {setModel(info)}: the rotary section shows the loaded model's own turned queries.
export function setupTutorial(worker, start = Promise.resolve()) {
  const later = (f) => start.then(f, f);
  setupQkv(worker, later);
  setupMasking(worker, later);
  setupHeads(worker, later);
  setupPositions(worker, later);
  setupRotary(worker, later);
  return { setModel: (info) => later(() => showRotaryInModel(worker, info)) };
}

function heat(id, rows, cols, extra = {}) {
  return new Heatmap($(id), { rows, cols, cell: 16, rowLabels: labels(rows, 't'), label: id, ...extra });
}

function fail(section, error) {
  const p = document.createElement('p');
  p.className = 'error';
  p.setAttribute('role', 'alert');
  p.textContent = `This demo could not run: ${error.message}`;
  const root = $(section);  // a section, or a demo of its own
  (root.classList.contains('demo') ? root : root.querySelector('.demo')).prepend(p);
}

function setupQkv(worker, later) {
  const q = heat('qkv-q', 8, 16, { signed: true }), k = heat('qkv-k', 8, 16, { signed: true });
  const v = heat('qkv-v', 8, 16, { signed: true });
  const scores = heat('qkv-scores', 8, 8, { signed: true, colLabels: labels(8, 't') });
  const weights = heat('qkv-weights', 8, 8, { colLabels: labels(8, 't'), cellData: true, notes: true });
  let seed = PAGE_SEEDS.qkv;
  const run = async () => {
    const r = await worker.call('singleHead', { seed, mask: false });
    q.update(r.q); k.update(r.k); v.update(r.v);
    scores.update(r.scores);
    weights.update(r.weights);
    $('qkv-seed').textContent = String(seed);
    weights.setNotes(r.rowSums.map((x) => `Σ ${x.toFixed(4)}`));
    // The article's printout: the engine's shapes for the whole batch, and weights[0, 0].sum().
    $('print-x-shape').textContent = shapeText(r.shapes.x);
    $('print-out-shape').textContent = shapeText(r.shapes.out);
    $('print-weights-shape').textContent = shapeText(r.shapes.weights);
    $('print-weights-sum').textContent = r.rowSums[0].toFixed(4);
  };
  $('qkv-reseed').addEventListener('click', () => { seed = (seed * 7 + 13) % 10007; run().catch((e) => fail('qkv', e)); });
  later(() => run().catch((e) => fail('qkv', e)));
}

function setupMasking(worker, later) {
  const scores = heat('mask-scores', 8, 8, { signed: true, colLabels: labels(8, 't') });
  const weights = heat('mask-weights', 8, 8, { colLabels: labels(8, 't'), cellData: true });
  const run = async () => {
    const mask = $('mask-toggle').checked;
    const r = await worker.call('singleHead', { seed: PAGE_SEEDS.masking, mask });
    scores.update(r.scores);
    weights.update(r.weights, 1);
    $('mask-upper').textContent = r.upper.toFixed(6);
  };
  $('mask-toggle').addEventListener('change', () => run().catch((e) => fail('masking', e)));
  later(() => run().catch((e) => fail('masking', e)));
  later(() => worker.call('causalMask', { n: 5 })).then((m) => { $('print-mask').textContent = tensorText(m.data, m.shape); })
    .catch((e) => fail('masking', e));
}

function setupHeads(worker, later) {
  const root = $('heads-weights');
  const maps = [0, 1, 2, 3].map((h) => {
    const fig = document.createElement('figure');
    const cap = document.createElement('figcaption');
    cap.textContent = `head ${h}`;
    const box = document.createElement('div');
    box.className = 'heat';
    fig.append(cap, box);
    root.append(fig);
    return new Heatmap(box, { rows: 8, cols: 8, cell: 16, label: `head ${h} weights`, cellData: true });
  });
  const merged = new Heatmap($('heads-merged'), { rows: 8, cols: 64, cell: 10, signed: true, rowLabels: labels(8, 't'), bands: 16, label: 'merged heads' });
  const split = new Heatmap($('heads-split'), { rows: 8, cols: 64, cell: 10, signed: true, rowLabels: labels(8, 't'), bands: 16, label: 'Q split into heads' });
  const out = new Heatmap($('heads-out'), { rows: 8, cols: 64, cell: 10, signed: true, rowLabels: labels(8, 't'), label: 'output after W_o' });
  let seed = PAGE_SEEDS.heads;
  const run = async () => {
    const r = await worker.call('multiHead', { seed });
    // q is (batch, heads, tokens, d_head) after the split; lay the first sequence back out as (tokens, heads * d_head)
    // to show the cut.
    const q = new Float32Array(8 * 64);
    for (let h = 0; h < 4; h++) for (let t = 0; t < 8; t++) for (let d = 0; d < 16; d++) q[t * 64 + h * 16 + d] = r.q[(h * 8 + t) * 16 + d];
    split.update(q);
    maps.forEach((m, h) => m.update(r.weights.subarray(h * 64, (h + 1) * 64), 1));
    merged.update(r.merged);
    out.update(r.out);
    $('print-mha-shape').textContent = shapeText(r.shapes.out);
  };
  $('heads-reseed').addEventListener('click', () => { seed = (seed * 7 + 13) % 10007; run().catch((e) => fail('heads', e)); });
  later(() => run().catch((e) => fail('heads', e)));
}

function setupPositions(worker, later) {
  const table = new Heatmap($('pe-table'), { rows: 64, cols: 64, cell: 6, signed: true, label: 'positional encoding' });
  let pe = null;
  const draw = () => {
    if (!pe) return;
    const pos = Number($('pe-pos').value), dim = Number($('pe-dim').value);
    $('pe-pos-out').textContent = String(pos);
    $('pe-dim-out').textContent = String(dim);
    $('pe-value').textContent = formatValue(pe.table[pos * 64 + dim]);
    const column = Array.from({ length: 64 }, (_, p) => pe.table[p * 64 + dim]);
    const row = Array.from(pe.table.subarray(pos * 64, pos * 64 + 64));
    lineChart($('pe-lines'), [
      { values: column, label: `dimension ${dim}, at each position`, xLabel: 'position', marker: pos },
      { values: row, label: `position ${pos}, in each dimension`, xLabel: 'dimension', marker: dim, alt: true },
    ], { min: -1, max: 1 });
  };
  later(() => worker.call('positional', { dModel: 64, maxLen: 64 })).then((r) => {
    pe = r;
    table.update(r.table, 1);
    // pe.pe[0, :4, :4]: the first 4 positions' first 4 dimensions.
    const corner = [0, 1, 2, 3].flatMap((p) => Array.from(r.table.subarray(p * 64, p * 64 + 4)));
    $('print-pe').textContent = tensorText(corner, [4, 4]);
    draw();
  }).catch((e) => fail('positions', e));
  $('pe-pos').addEventListener('input', draw);
  $('pe-dim').addEventListener('input', draw);
}

// Rotary positions: the score of one query and one key turned to every pair of positions (demos.rotary).
function setupRotary(worker, later) {
  const map = new Heatmap($('rope-scores'), { rows: 64, cols: 64, cell: 6, signed: true, label: 'rotary scores', cellData: true });
  let r = null;
  const draw = () => {
    if (!r) return;
    const m = Number($('rope-m').value), n = Number($('rope-n').value), N = r.n;
    $('rope-m-out').textContent = String(m);
    $('rope-n-out').textContent = String(n);
    $('rope-score').textContent = formatValue(r.scores[m * N + n]);
    $('rope-offset').textContent = `m − n = ${m - n}`;
    const back = Math.min(m, n), steps = N - Math.max(m, n) + back;  // the diagonal through (m, n), from its start
    const diagonal = Array.from({ length: steps }, (_, i) => r.scores[(m - back + i) * N + n - back + i]);
    const row = Array.from(r.scores.subarray(m * N, (m + 1) * N));
    const limit = Math.ceil(Math.max(...r.scores.map(Math.abs)));
    lineChart($('rope-lines'), [
      { values: diagonal, label: `offset ${m - n}, wherever the pair stands`, xLabel: 'step along the diagonal', marker: back },
      { values: row, label: `query at ${m}, key at each position`, xLabel: 'key position', marker: n, alt: true },
    ], { min: -limit, max: limit });
  };
  later(() => worker.call('rotary', { dHead: 64, n: 64, seed: PAGE_SEEDS.rotary })).then((result) => {
    r = result;
    map.update(r.scores, Math.max(...r.scores.map(Math.abs)));
    $('print-rope').textContent = rotaryText(r);
    draw();
  }).catch((e) => fail('rotary', e));
  $('rope-m').addEventListener('input', draw);
  $('rope-n').addEventListener('input', draw);
}

// The printout: the unturned score, four pairs 3 apart, and the largest difference along any diagonal.
function rotaryText(r) {
  const at = (m, n) => `(${m}, ${n}) ${r.scores[m * r.n + n].toFixed(4)}`;
  return [
    `q · k / √${r.dHead}, unturned:   ${r.unturned.toFixed(4)} wherever q and k stand`,
    `turned, offset 3:     ${[[3, 0], [10, 7], [40, 37], [63, 60]].map(([m, n]) => at(m, n)).join('   ')}`,
    `turned, offset 20:    ${[[20, 0], [33, 13], [50, 30], [63, 43]].map(([m, n]) => at(m, n)).join('   ')}`,
    `largest difference along any diagonal: ${r.diagonalSpread.toExponential(1)}`,
  ].join('\n');
}

// The loaded model's first block, its queries before and after it turns them (demos.rotaryInModel), and whether this
// section's block turns them to the same bits (or why it is not compared). A model with learned positions (GPT-2) has
// no hook_rot_q: it says so.
let shownModel = null;
async function showRotaryInModel(worker, info) {
  if (shownModel === info.key) return;
  shownModel = info.key;
  const line = $('rotary-model-text'), panels = $('rotary-model-panels');
  try {
    const r = await worker.call('rotaryInModel', { model: info.key, text: 'Where rotary positions turn each query' });
    if (shownModel !== info.key) return;
    panels.hidden = !r.rotary;
    if (!r.rotary) {
      line.textContent = `${info.name} learns its position vectors and adds them to the tokens, as GPT-2 does: it ` +
        'has no hook_rot_q. Load a rotary model (Pythia, SmolLM2, Qwen, Llama) to see its queries turned here.';
      return;
    }
    const rows = Math.min(r.T, 32), cols = Math.min(r.d, 64);
    for (const [id, values] of [['rope-q', r.q], ['rope-rot-q', r.rotQ]]) {
      const shown = new Float32Array(rows * cols);
      for (let t = 0; t < rows; t++) shown.set(values.subarray(t * r.d, t * r.d + cols), t * cols);
      const map = new Heatmap($(id), { rows, cols, cell: 6, signed: true, label: id, rowLabels: r.tokens.slice(0, rows) });
      map.update(shown, Math.max(...shown.map(Math.abs)) || 1);
    }
    const turned = `${r.rotaryDim} of its ${r.d} dimensions a head turn, theta ${r.theta}`;
    line.textContent = r.notCompared
      ? `${info.name}: ${turned}. It is drawn, not compared with this section's block: ${r.notCompared}.`
      : `${info.name}: ${turned}. This section's RotaryEmbedding turns its hook_q and hook_k (block 0, head 0, ` +
        `${r.T} tokens) into its hook_rot_q and hook_rot_k with ${r.differing === 0 ? 'every one' : `${r.values - r.differing}`}` +
        ` of the ${r.values} values the same bits${r.differing === 0 ? '' : ` (${r.differing} differ)`}.`;
  } catch (e) {
    line.textContent = `The model's rotated queries could not be read: ${e.message}`;
  }
}
