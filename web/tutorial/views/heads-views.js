// heads-views.js: section 7's drawings other than the heatmaps: the logit-lens grid (an HTML table), the direct
// logit attribution bar chart (SVG, in the style of charts.js) and the "without this head" table. Token text is
// always set with textContent.
import { plainLabel, displayPiece } from '../../lib/shared/token-text.js';

import { el } from './svg.js';
import { niceCeil } from './chart-scale.js';

function html(tag, { className, text, title, scope } = {}, parent) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  if (title) e.title = title;
  if (scope) e.scope = scope;
  parent?.append(e);
  return e;
}

// A token's text as the drawings show it: ' dog' as '·dog', a newline as '↵'.
export function shown(text) {
  const p = displayPiece(text);
  return p.lead + p.text;
}

export function percent(p) {
  const v = 100 * p;
  return v >= 10 ? `${v.toFixed(0)}%` : v >= 0.1 ? `${v.toFixed(1)}%` : v > 0 ? '<0.1%' : '0%';
}

// The logit lens, layer (rows) by position (columns): each cell the top token after that layer and its
// probability, shaded by the target's probability there; a cell whose top token is the target is marked.
// lens: {shape [L, T, k], top [l][t] = [{id, token, prob}], target (L * T)}; labels: the prompt's token labels.
export function lensTable(root, lens, labels, target) {
  const [L, T] = lens.shape;
  const table = html('table', { className: 'hm-lens' });
  html('caption', { text: `The likeliest next token after each layer, at each position; shading: the probability of ${shown(target.text)}` }, table);
  const head = table.createTHead().insertRow();
  html('th', { text: '', scope: 'col' }, head);
  labels.forEach((label, t) => html('th', { text: plainLabel(label), scope: 'col', title: `position ${t}` }, head));
  const body = table.createTBody();
  for (let l = 0; l < L; l++) {
    const tr = body.insertRow();
    html('th', { text: `layer ${l}`, scope: 'row' }, tr);
    for (let t = 0; t < T; t++) {
      const top = lens.top[l][t], p = lens.target ? lens.target[l * T + t] : 0;
      const td = tr.insertCell();
      td.className = top[0].id === target.id ? 'hit' : '';
      td.style.setProperty('--p', Math.min(1, Math.sqrt(p)).toFixed(3));
      Object.assign(td.dataset, { layer: l, position: t, top: top[0].token, topProb: top[0].prob, targetProb: p });
      html('span', { className: 'tok', text: shown(top[0].token) }, td);
      html('span', { className: 'p', text: percent(top[0].prob) }, td);
      if (t === T - 1) html('span', { className: 'target', text: `${shown(target.text)} ${percent(p)}` }, td);
      td.title = `after layer ${l}, at ${plainLabel(labels[t])} (position ${t}): ` +
        `${top.map((x) => `${shown(x.token)} ${percent(x.prob)}`).join(', ')}; ${shown(target.text)} ${percent(p)}`;
    }
  }
  root.replaceChildren(table);
  root.scrollLeft = root.scrollWidth; // a long prompt scrolls: the last position, where the answer is, shows first
  return table;
}

// The bars of an attribution: the embedding, then per layer each head and the MLP, then every bias together.
// -> [{part, label, value, layer, kind: 'embed' | 'head' | 'mlp' | 'bias', names}]
export function attributionBars(parts) {
  const bars = [], bias = { part: 'biases', label: 'biases', value: 0, layer: null, kind: 'bias', names: [] };
  for (const { name, value } of parts) {
    let m;
    if (name === 'embed') bars.push({ part: name, label: 'embed', value, layer: null, kind: 'embed', names: [name] });
    else if ((m = /^blocks\.(\d+)\.attn\.head\.(\d+)$/.exec(name))) {
      bars.push({ part: name, label: `L${m[1]}H${m[2]}`, value, layer: Number(m[1]), kind: 'head', names: [name] });
    } else if ((m = /^blocks\.(\d+)\.mlp$/.exec(name))) {
      bars.push({ part: name, label: `L${m[1]} MLP`, value, layer: Number(m[1]), kind: 'mlp', names: [name] });
    } else {
      bias.value += value;
      bias.names.push(name);
    }
  }
  bars.push(bias);
  return bars;
}

// Direct logit attribution as vertical bars, grouped by layer: positive up (--heat), negative down (--heat-neg),
// MLPs outlined. Each bar is a rect with data-part and data-value; its title names it.
export function dlaChart(root, attribution, { maxWidth = 760, height = 240, tokenText = '' } = {}) {
  const bars = attributionBars(attribution.parts);
  const pad = { l: 44, r: 8, t: 10, b: 34 };
  const layers = Math.max(0, ...bars.map((b) => (b.layer ?? -1) + 1));
  const gap = 6, n = bars.length, groups = layers + 2;
  // Bars from 3 to 28 px wide; a small model's chart is narrower than the column rather than all gaps.
  const bw = Math.max(3, Math.min(28, (maxWidth - pad.l - pad.r - gap * groups) / n));
  const width = Math.max(320, Math.ceil(pad.l + pad.r + gap * groups + n * bw));
  const W = width - pad.l - pad.r, H = height - pad.t - pad.b;
  const max = niceCeil(Math.max(1e-6, ...bars.map((b) => Math.abs(b.value))));
  const y = (v) => pad.t + (1 - (v + max) / (2 * max)) * H;
  // Wider than the column (GPT-2 XL's 1,250 parts at 3 px): drawn at its own size and scrolled, not shrunk until its
  // bars and labels cannot be told apart.
  const wide = width > maxWidth;
  const svg = el('svg', { class: `chart hm-dla-chart${wide ? ' wide' : ''}`, viewBox: `0 0 ${width} ${height}`, width, role: 'img',
    'aria-label': `Direct logit attribution of ${tokenText}: each head's, each MLP's, the embedding's and the biases' share of the logit` });
  for (const v of [-max, -max / 2, 0, max / 2, max]) {
    el('line', { class: v === 0 ? 'axis' : 'grid', x1: pad.l, x2: pad.l + W, y1: y(v), y2: y(v) }, svg);
    el('text', { x: pad.l - 4, y: y(v) + 4, 'text-anchor': 'end' }, svg, formatTick(v));
  }
  el('text', { x: 10, y: pad.t + H / 2, transform: `rotate(-90 10 ${pad.t + H / 2})`, 'text-anchor': 'middle' }, svg, 'logit');
  let x = pad.l + gap / 2, group = null, groupStart = x;
  const label = (from, to, text) => el('text', { class: 'group-label', x: (from + to) / 2, y: pad.t + H + 14, 'text-anchor': 'middle' }, svg, text);
  const closeGroup = () => { if (group !== null) label(groupStart, x, group); };
  for (const b of bars) {
    const key = b.kind === 'embed' ? 'embed' : b.kind === 'bias' ? 'bias' : `L${b.layer}`;
    if (key !== group) { closeGroup(); x += group === null ? 0 : gap; group = key; groupStart = x; }
    const top = y(Math.max(0, b.value)), bottom = y(Math.min(0, b.value));
    const r = el('rect', { class: `bar ${b.value < 0 ? 'neg' : 'pos'} ${b.kind}`, x: x.toFixed(2), y: top.toFixed(2),
      width: Math.max(1, bw - 1).toFixed(2), height: Math.max(0.5, bottom - top).toFixed(2),
      'data-part': b.part, 'data-value': b.value, 'data-kind': b.kind }, svg);
    el('title', {}, r, `${describePart(b)}: ${b.value >= 0 ? '+' : '\u2212'}${Math.abs(b.value).toFixed(3)}`);
    x += bw;
  }
  closeGroup();
  el('text', { class: 'x-axis-label', x: pad.l + W / 2, y: height - 4, 'text-anchor': 'middle' }, svg,
    `each layer: its heads in order, then its MLP (outlined)${wide ? `; ${n} parts: scroll sideways` : ''}`);
  root.replaceChildren(svg);
  return { svg, bars };
}

export function describePart(b) {
  if (b.kind === 'head') { const [, l, h] = /^L(\d+)H(\d+)$/.exec(b.label); return `layer ${l} head ${h}`; }
  if (b.kind === 'mlp') return `layer ${b.layer} MLP`;
  if (b.kind === 'embed') return 'embedding (token + position)';
  return `biases (${b.names.join(', ')})`;
}

// "Without this head": at each position the probability of the token that comes next (after the last, the answer),
// with every head and with the head ablated; and the top 5 after the last position both ways.
export function knockoutView(root, k, labels, { what, answer }) {
  const T = labels.length;
  const table = html('table', { className: 'hm-knockout' });
  html('caption', { text: `The probability of each next token, with every head and ${what}` }, table);
  const rows = Array.from({ length: 4 }, () => table.insertRow());
  html('th', { text: 'at', scope: 'row' }, rows[0]);
  html('th', { text: 'next', scope: 'row' }, rows[1]);
  html('th', { text: 'every head', scope: 'row' }, rows[2]);
  html('th', { text: 'without it', scope: 'row' }, rows[3]);
  for (let t = 0; t < T; t++) {
    html('td', { text: plainLabel(labels[t]), className: 'tok' }, rows[0]);
    html('td', { text: t === T - 1 ? shown(answer) : plainLabel(labels[t + 1]), className: 'tok' }, rows[1]);
    const a = k.intact[t], b = k.ablated[t];
    const with_ = html('td', { text: percent(a), className: 'num-cell' }, rows[2]);
    const without = html('td', { text: percent(b), className: `num-cell${b < a / 2 && a > 0.02 ? ' broke' : ''}` }, rows[3]);
    with_.dataset.prob = a; without.dataset.prob = b;
  }
  const lists = html('div', { className: 'hm-knockout-top' });
  for (const [title, top] of [[`After ${plainLabel(labels[T - 1])}, every head`, k.topIntact], [`${what}`, k.topAblated]]) {
    const box = html('div', {}, lists);
    html('p', { className: 'small muted', text: title }, box);
    const ol = html('ol', { className: 'bars' }, box);
    for (const { token, prob } of top) {
      const li = html('li', {}, ol);
      const t = html('span', { className: 't', text: shown(token) }, li);
      t.style.setProperty('--p', prob.toFixed(3));
      html('span', { className: 'p', text: percent(prob) }, li);
    }
  }
  const scroll = html('div', { className: 'grid-scroll' });
  scroll.append(table);
  root.replaceChildren(scroll, lists);
  scroll.scrollLeft = scroll.scrollWidth;
}

function formatTick(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  return `${v < 0 ? '\u2212' : ''}${a >= 10 ? a.toFixed(0) : a >= 1 ? a.toFixed(1) : a.toFixed(2)}`;
}
