// charts.js: small SVG line charts: the positional encoding waves and the cost experiment with its fitted quadratic
// (the engine's fit, engine.fitQuadratic).
import { el } from './svg.js';
import { niceCeil } from './chart-scale.js';

// series: [{values, label, xLabel, marker (index to mark), alt}], each over x = 0..len-1 with y in [min, max]. The
// series may run over different things (section 4: one over positions, one over dimensions), so each gets its own
// panel with its own x-axis and label, one above the other, under a key that names each line.
export function lineChart(root, series, { min, max, width = 420, panelHeight = 96 } = {}) {
  const pad = { l: 30, r: 8, t: 6, b: 34 }, keyHeight = 8 + 16 * series.length;
  const panel = panelHeight + pad.t + pad.b;
  const height = keyHeight + series.length * panel;
  const svg = el('svg', { class: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': series.map((s) => `${s.label} (x: ${s.xLabel})`).join('; ') });
  const W = width - pad.l - pad.r, H = panelHeight;
  const cls = (s) => (s.alt ? 'line alt' : 'line');
  const key = el('g', { class: 'key' }, svg);
  series.forEach((s, k) => {
    const entry = el('g', { class: 'key-entry', transform: `translate(${pad.l} ${12 + 16 * k})` }, key);
    el('line', { class: cls(s), x1: 0, x2: 18, y1: 0, y2: 0 }, entry);
    el('text', { x: 24, y: 4 }, entry, s.label);
  });
  series.forEach((s, k) => {
    const top = keyHeight + k * panel + pad.t, n = s.values.length;
    const x = (i) => pad.l + (i / Math.max(1, n - 1)) * W;
    const y = (v) => top + (1 - (v - min) / (max - min)) * H;
    const g = el('g', { class: 'panel' }, svg);
    for (const v of [min, 0, max]) {
      el('line', { class: 'grid', x1: pad.l, x2: pad.l + W, y1: y(v), y2: y(v) }, g);
      el('text', { x: pad.l - 4, y: y(v) + 4, 'text-anchor': 'end' }, g, String(v));
    }
    el('line', { class: 'axis x-axis', x1: pad.l, x2: pad.l + W, y1: top + H, y2: top + H }, g);
    const step = Math.max(1, Math.round((n - 1) / 32) * 8); // about 4 ticks on round numbers, and the last index
    const ticks = [];
    for (let i = 0; i < n - 1 - step / 2; i += step) ticks.push(i);
    for (const i of [...ticks, n - 1]) {
      el('text', { x: x(i), y: top + H + 13, 'text-anchor': 'middle' }, g, String(i));
    }
    el('text', { class: 'x-axis-label', x: pad.l + W / 2, y: top + H + 27, 'text-anchor': 'middle' }, g, s.xLabel);
    const d = s.values.map((v, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)} ${y(v).toFixed(1)}`).join('');
    el('path', { class: cls(s), d }, g);
    if (s.marker !== undefined) el('circle', { class: 'marker', cx: x(s.marker), cy: y(s.values[s.marker]), r: 3 }, g);
  });
  root.replaceChildren(svg);
  return svg;
}

// points: [{n, ms}]; fit: {a, b, c} with ms ≈ a n² + b n + c, or null. Draws the points and the fitted curve.
export function costChart(root, points, fit, { width = 560, height = 280 } = {}) {
  const svg = el('svg', { class: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': 'Time per forward pass against sequence length, with a fitted quadratic' });
  const pad = { l: 52, r: 12, t: 12, b: 40 };
  const W = width - pad.l - pad.r, H = height - pad.t - pad.b;
  const nMax = 1100;
  const f = (n) => (fit.a * n + fit.b) * n + fit.c;
  const tMax = niceCeil(Math.max(1, ...points.map((p) => p.ms), fit ? f(nMax) : 0));
  const x = (n) => pad.l + (n / nMax) * W, y = (t) => pad.t + (1 - t / tMax) * H;
  for (let k = 0; k <= 4; k++) {
    const t = (tMax * k) / 4;
    el('line', { class: 'grid', x1: pad.l, x2: pad.l + W, y1: y(t), y2: y(t) }, svg);
    el('text', { x: pad.l - 6, y: y(t) + 4, 'text-anchor': 'end' }, svg, t >= 10 ? t.toFixed(0) : t.toFixed(1));
  }
  for (const n of [0, 256, 512, 768, 1024]) el('text', { x: x(n), y: pad.t + H + 16, 'text-anchor': 'middle' }, svg, String(n));
  el('text', { x: pad.l + W / 2, y: height - 4, 'text-anchor': 'middle' }, svg, 'sequence length n (tokens)');
  el('text', { x: 12, y: pad.t + H / 2, transform: `rotate(-90 12 ${pad.t + H / 2})`, 'text-anchor': 'middle' }, svg, 'ms per forward');
  el('line', { class: 'axis', x1: pad.l, x2: pad.l + W, y1: y(0), y2: y(0) }, svg);
  if (fit) {
    let d = '';
    for (let n = 0; n <= nMax; n += 10) d += `${n ? 'L' : 'M'}${x(n).toFixed(1)} ${y(Math.max(0, f(n))).toFixed(1)}`;
    el('path', { class: 'fit', d }, svg);
  }
  if (points.length === 0) {
    el('text', { x: pad.l + W / 2, y: pad.t + H / 2, 'text-anchor': 'middle', class: 'hint' }, svg, 'press "Run the experiment" to time it here');
  }
  for (const p of points) {
    const c = el('circle', { class: 'point', cx: x(p.n), cy: y(p.ms), r: 4.5 }, svg);
    el('title', {}, c, `n = ${p.n}: ${p.ms.toFixed(1)} ms`);
  }
  root.replaceChildren(svg);
  return svg;
}
