// charts.js: small SVG line charts: the positional encoding waves and the cost experiment with its fitted quadratic
// (the engine's fit, engine.fitQuadratic).
const SVG_NS = 'http://www.w3.org/2000/svg';

function el(name, attrs, parent, text) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  parent?.append(e);
  return e;
}

// series: [{values, label, marker (index to mark), alt}] over x = 0..len-1, y in [min, max].
export function lineChart(root, series, { min, max, width = 420, height = 200 } = {}) {
  const svg = el('svg', { class: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': series.map((s) => s.label).join('; ') });
  const pad = { l: 30, r: 8, t: 8, b: 34 };
  const W = width - pad.l - pad.r, H = height - pad.t - pad.b;
  const n = Math.max(...series.map((s) => s.values.length));
  const x = (i) => pad.l + (i / Math.max(1, n - 1)) * W;
  const y = (v) => pad.t + (1 - (v - min) / (max - min)) * H;
  for (const v of [min, 0, max]) {
    el('line', { class: 'grid', x1: pad.l, x2: pad.l + W, y1: y(v), y2: y(v) }, svg);
    el('text', { x: pad.l - 4, y: y(v) + 4, 'text-anchor': 'end' }, svg, String(v));
  }
  series.forEach((s, k) => {
    const d = s.values.map((v, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)} ${y(v).toFixed(1)}`).join('');
    el('path', { class: s.alt ? 'line alt' : 'line', d }, svg);
    if (s.marker !== undefined) el('circle', { class: 'marker', cx: x(s.marker), cy: y(s.values[s.marker]), r: 3 }, svg);
    el('text', { x: pad.l + k * (W / 2), y: height - 8 }, svg, s.label).classList.add(s.alt ? 'alt' : 'main');
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

function niceCeil(v) {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}
