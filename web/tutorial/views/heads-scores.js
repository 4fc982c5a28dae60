// heads-scores.js: the head-analysis grid. Each head gets three bars (previous token, first-token sink, induction)
// and a label for what it most clearly does. Clicking a head selects it in the explorer. Heads that were taught their
// pattern directly, not by training on text, are marked "taught" in the grid and explained beside it.
import { headGridCells } from './heads-grid.js';
import { loadGpt2Button } from './load-gpt2-button.js';

const KINDS = [
  { key: 'previousToken', cls: 'prev', name: 'previous token', tag: 'prev', min: 0.5 },
  { key: 'firstToken', cls: 'sink', name: 'first token (sink)', tag: 'sink', min: 0.5 },
  { key: 'induction', cls: 'ind', name: 'induction', tag: 'induction', short: 'ind', min: 0.3 },
];
// Past this many heads the cells are narrow (GPT-2 XL's 25 fit the page's width) and a tag is its short form.
const NARROW = 16;

// The label a head earns: the kind whose score is highest relative to its threshold, if any passes.
export function headLabel(scores, index) {
  let best = null, bestRatio = 1;
  for (const k of KINDS) {
    const ratio = scores[k.key][index] / k.min;
    if (ratio >= bestRatio) { best = k; bestRatio = ratio; }
  }
  return best ? best.tag : '';
}

// taught: [{layer, head, pattern}] heads marked "taught" (default-model.js's taughtHeads).
export function renderHeadScores(root, scores, onPick, { taught = [], groups = null } = {}) {
  const [L, H] = scores.shape;
  const legend = document.createElement('p');
  legend.className = 'legend';
  for (const k of KINDS) {
    const item = document.createElement('span');
    const key = document.createElement('span');
    key.className = `key ${k.cls}`;
    item.append(key, `${k.name} (label${H > NARROW && k.short ? ` "${k.short}"` : ''} at ≥ ${k.min})`);
    legend.append(item);
  }
  const cells = headGridCells(root, L, H, (l, h) => {
    const i = l * H + h;
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'cell';
    b.dataset.layer = l; b.dataset.head = h;
    const tag = document.createElement('span');
    tag.className = 'tag';
    const kind = KINDS.find((k) => k.tag === headLabel(scores, i));
    tag.textContent = (H > NARROW && kind?.short) || kind?.tag || '\u00A0';
    b.append(tag);
    const lesson = taught.find((t) => t.layer === l && t.head === h);
    if (lesson) {
      b.classList.add('taught');
      const mark = document.createElement('span');
      mark.className = 'taught-mark';
      mark.textContent = 'taught';
      b.append(mark);
    }
    const parts = [];
    for (const k of KINDS) {
      const v = scores[k.key][i];
      const bar = document.createElement('span');
      bar.className = `bar ${k.cls}`;
      const fill = document.createElement('i');
      fill.style.setProperty('--v', Math.max(0, Math.min(1, v)).toFixed(3));
      bar.append(fill);
      b.append(bar);
      parts.push(`${k.name} ${v.toFixed(2)}`);
    }
    b.title = `layer ${l}, head ${h}: ${parts.join(', ')}${lesson
      ? `; taught the ${lesson.pattern} pattern directly in training, not learned from text` : ''}`;
    b.setAttribute('aria-label', b.title);
    b.addEventListener('click', () => onPick(l, h));
    return b;
  }, { groups });
  root.replaceChildren(...cells);
  root.before(legend);
  return legend;
}

// The words beside the grid for taught heads (hidden when there are none): which heads, why, that the others learned
// from text alone, and how to see heads that did. onCompare opens the loader for GPT-2 small.
export function renderTaughtNote(note, taught, totalHeads, onCompare) {
  note.hidden = taught.length === 0;
  if (note.hidden) { note.replaceChildren(); return; }
  const heads = taught.map((t) => `layer ${t.layer} head ${t.head} (${t.pattern})`).join(' and ');
  const title = document.createElement('strong');
  title.textContent = 'Taught, not learned. ';
  const why = document.createElement('p');
  why.append(title, `In this small model, ${heads} did not find their patterns by training on text: a second loss `,
    'on their attention showed them where to look, because a CPU hour of training on text alone grew neither ',
    `pattern. The model's other ${totalHeads - taught.length} heads learned what they do from text alone, as every `,
    'head of GPT-2 does: the article\'s "emerges from training, not from any explicit design" is true of them, not ',
    'of these two.');
  const compare = document.createElement('p');
  compare.append('To see heads that specialized on their own, load GPT-2 small and compare its grid. ',
    loadGpt2Button(onCompare));
  note.replaceChildren(why, compare);
}
