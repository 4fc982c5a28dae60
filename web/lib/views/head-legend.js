// head-legend.js: the key from colour to head when every head is drawn in its own colour (arcs, head "all"), for
// the page's explorer and <arc-scope>: a chip per head, and a note when heads share a colour (past
// HEAD_COLORS.length, the palette comes round again). In a grouped-query model the chips of the query heads that
// share a key/value head sit together under that group's name ("KV 0: heads 0-2", head-groups.js). Its .legend, .key
// and .kv-group styles are views.css's.
import { headColor, HEAD_COLORS } from './palette.js';
import { kvGroups, groupLabel } from '../shared/head-groups.js';

// Fills legend (a <p class="legend">) with the key to H heads (KV: the model's key/value heads, when it has fewer),
// unless it holds it already. onPick(head): each chip is a button that calls it; without it the chips are plain text.
export function renderHeadLegend(legend, H, onPick = null, KV = H) {
  const shape = `${H}/${KV}`;
  if (legend.dataset.heads === shape && legend.querySelectorAll('.chip').length === H) return;
  legend.dataset.heads = shape;
  const doc = legend.ownerDocument;
  const chips = Array.from({ length: H }, (_, h) => {
    const chip = doc.createElement(onPick ? 'button' : 'span');
    chip.className = 'chip';
    chip.dataset.head = String(h);
    if (onPick) {
      chip.type = 'button';
      chip.addEventListener('click', () => onPick(h));
    }
    const key = doc.createElement('span');
    key.className = 'key';
    key.style.setProperty('background', headColor(h));
    chip.append(key, `head ${h}`);
    return chip;
  });
  // Past a dozen heads the colours come round again (GPT-2 XL's 25 heads in 12 colours): say so, not leave a reader
  // to take head 12's arcs for head 0's.
  const n = HEAD_COLORS.length;
  const notes = [];
  if (H > n) {
    const note = doc.createElement('span');
    note.className = 'legend-note';
    note.textContent = `${H} heads in ${n} colours: heads ${n} apart share one (0, ${n}, ${2 * n}…)` +
      (onPick ? '; click a head to see it alone.' : '.');
    notes.push(note);
  }
  const groups = kvGroups(H, KV);
  if (!groups) { legend.replaceChildren(...chips, ...notes); return; }
  legend.replaceChildren(...groups.map((g) => {
    const group = doc.createElement('span');
    group.className = 'kv-group';
    group.dataset.kv = String(g.kv);
    const name = doc.createElement('span');
    name.className = 'kv-label';
    name.textContent = groupLabel(g);
    group.append(name, ...chips.slice(g.first, g.last + 1));
    return group;
  }), ...notes);
}
