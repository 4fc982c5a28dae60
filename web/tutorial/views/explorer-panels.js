// explorer-panels.js: what section 5 shows beside the arcs, built from plain values: the layer and head selects, the
// token counter, the attention matrix, the next-token bars and the arcs as a table for screen readers (its top-5
// table: top-attended.js). Token text is always set with textContent.
import { Heatmap } from '../../lib/views/heatmap.js';
import { plainLabel } from '../../lib/shared/token-text.js';
import { groupLabel } from '../../lib/shared/head-groups.js';

// n numbered options ('layer 0' …) followed by extra: [[value, label]]. groups ([{kv, first, last}], head-groups.js):
// the numbered options in an <optgroup> a group, labelled with the key/value head they share.
export function fillSelect(select, n, extra, name, groups = null) {
  const numbered = Array.from({ length: n }, (_, i) => new Option(`${name} ${i}`, String(i)));
  const options = groups ? groups.map((g) => {
    const group = document.createElement('optgroup');
    group.label = groupLabel(g);
    group.append(...numbered.slice(g.first, g.last + 1));
    return group;
  }) : numbered;
  for (const [value, label] of extra) options.push(new Option(label, value));
  select.replaceChildren(...options);
}

// "37 / 256 tokens", marked as the text nears the model's context and when it is past it.
export function showTokenCount(el, n, max) {
  el.textContent = `${n} / ${max} tokens`;
  el.classList.toggle('near', n > 0.9 * max && n <= max);
  el.classList.toggle('over', n > max);
}

// A paragraph saying why something is not shown.
export function messageParagraph(text) {
  const p = document.createElement('p');
  p.className = 'message';
  p.textContent = text;
  return p;
}

// A (T, T) attention matrix with the tokens along both sides, in a holder of its own (heatmap.root).
export function attentionMatrix(labels) {
  const holder = document.createElement('div');
  holder.className = 'matrix';
  const names = labels.map(plainLabel);
  return new Heatmap(holder, { rows: labels.length, cols: labels.length, cell: 18, rowLabels: names, colLabels: names,
    cellData: true, label: 'attention matrix: rows attend to columns' });
}

// The most likely next tokens as bars (next: [{token, prob}]), a space shown as '·' and a newline as '↵'.
export function renderNextTokens(list, next) {
  list.replaceChildren(...(next || []).map(({ token, prob }) => {
    const li = document.createElement('li');
    const t = document.createElement('span');
    t.className = 't';
    t.textContent = token.replace(/ /g, '\u00B7').replace(/\n/g, '\u21B5');
    t.style.setProperty('--p', prob.toFixed(3));
    const p = document.createElement('span');
    p.className = 'p';
    p.textContent = `${(prob * 100).toFixed(1)}%`;
    li.append(t, p);
    return li;
  }));
}

// The arcs drawn (arcs: [{from, to, weight, head}]) as a table: each query token with the 8 keys it draws from most.
// withHeads names each arc's head (all heads drawn at once).
export function arcTable(labels, arcs, { caption, withHeads }) {
  const byQuery = new Map();
  for (const a of arcs) {
    if (!byQuery.has(a.from)) byQuery.set(a.from, []);
    byQuery.get(a.from).push(a);
  }
  const table = document.createElement('table');
  const cap = document.createElement('caption');
  cap.textContent = caption;
  const head = table.createTHead().insertRow();
  for (const h of ['query token', 'attends to (weight)']) {
    const th = document.createElement('th');
    th.scope = 'col'; th.textContent = h;
    head.append(th);
  }
  table.append(cap);
  const body = table.createTBody();
  const arcText = (a) => `${plainLabel(labels[a.to])} (${a.weight.toFixed(3)}${a.head >= 0 && withHeads ? `, head ${a.head}` : ''})`;
  labels.forEach((label, i) => {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = `${i}: ${plainLabel(label)}`;
    const td = tr.insertCell();
    const strongest = (byQuery.get(i) || []).sort((a, b) => b.weight - a.weight).slice(0, 8);
    td.textContent = strongest.map(arcText).join(', ') || 'none above the filter';
    tr.prepend(th);
  });
  return table;
}
