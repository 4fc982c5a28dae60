// head-scores.js: the head-analysis grid. Each head gets three bars (previous token, first-token sink, induction)
// and a label for what it most clearly does. Clicking a head selects it in the explorer.
const KINDS = [
  { key: 'previousToken', cls: 'prev', name: 'previous token', tag: 'prev', min: 0.5 },
  { key: 'firstToken', cls: 'sink', name: 'first token (sink)', tag: 'sink', min: 0.5 },
  { key: 'induction', cls: 'ind', name: 'induction', tag: 'induction', min: 0.3 },
];

// The label a head earns: the kind whose score is highest relative to its threshold, if any passes.
export function headLabel(scores, index) {
  let best = null, bestRatio = 1;
  for (const k of KINDS) {
    const ratio = scores[k.key][index] / k.min;
    if (ratio >= bestRatio) { best = k; bestRatio = ratio; }
  }
  return best ? best.tag : '';
}

export function renderHeadScores(root, scores, onPick) {
  const [L, H] = scores.shape;
  root.style.setProperty('--heads', String(H));
  const legend = document.createElement('p');
  legend.className = 'legend';
  for (const k of KINDS) {
    const item = document.createElement('span');
    const key = document.createElement('span');
    key.className = `key ${k.cls}`;
    item.append(key, `${k.name} (label at ≥ ${k.min})`);
    legend.append(item);
  }
  const cells = [document.createElement('span')];
  for (let h = 0; h < H; h++) {
    const s = document.createElement('span');
    s.textContent = `h${h}`;
    cells.push(s);
  }
  for (let l = 0; l < L; l++) {
    const label = document.createElement('span');
    label.textContent = `L${l}`;
    cells.push(label);
    for (let h = 0; h < H; h++) {
      const i = l * H + h;
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'cell';
      b.dataset.layer = l; b.dataset.head = h;
      const tag = document.createElement('span');
      tag.className = 'tag';
      tag.textContent = headLabel(scores, i) || '\u00A0';
      b.append(tag);
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
      b.title = `layer ${l}, head ${h}: ${parts.join(', ')}`;
      b.setAttribute('aria-label', b.title);
      b.addEventListener('click', () => onPick(l, h));
      cells.push(b);
    }
  }
  root.replaceChildren(...cells);
  root.before(legend);
  return legend;
}
