// head-legend.js: the key from colour to head when every head is drawn in its own colour (arcs, head "all"), for
// the page's explorer and <arc-scope>: a chip per head, and a note when heads share a colour (past
// HEAD_COLORS.length, the palette comes round again). Its .legend and .key styles are views.css's.
import { headColor, HEAD_COLORS } from './palette.js';

// Fills legend (a <p class="legend">) with the key to H heads, unless it holds it already. onPick(head): each chip
// is a button that calls it; without it the chips are plain text.
export function renderHeadLegend(legend, H, onPick = null) {
  if (legend.querySelectorAll('.chip').length === H) return;
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
  legend.replaceChildren(...chips, ...notes);
}
