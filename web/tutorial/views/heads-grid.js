// heads-grid.js: the cells of a layer x head grid laid out by the page's CSS grid (--heads columns after the row
// labels): a blank corner, a "h0 h1 ..." header, then each layer's "L0" label and its heads' cells. Used by the
// thumbnails (thumbs.js) and the head scores (heads-scores.js); cell(l, h) makes each head's element, and
// under(l), when given, an element that lies under a layer's cells (the thumbnails' one canvas a layer). Every cell
// is placed explicitly, so that element can share their row; the header and the labels stay in sight while a tall
// grid scrolls in its box (views.css). groups ([{kv, first, last}], head-groups.js), for a grouped-query model: a
// band above the header spans the query heads that share each key/value head ("KV 0: heads 0-2").
import { groupLabel } from '../../lib/shared/head-groups.js';

export function headGridCells(root, L, H, cell, { under = null, groups = null } = {}) {
  root.style.setProperty('--heads', String(H));
  root.classList.toggle('grouped', !!groups);
  const place = (el, row, column) => {
    el.style.setProperty('grid-row', String(row));
    el.style.setProperty('grid-column', String(column));
    return el;
  };
  const label = (text, cls, row, column) => {
    const s = document.createElement('span');
    s.className = cls;
    s.textContent = text;
    return place(s, row, column);
  };
  const top = groups ? 2 : 1; // the header's row, under the bands
  const cells = [label('', 'grid-corner', 1, 1)];
  if (groups) {
    cells.push(label('', 'grid-corner', 2, 1));
    for (const g of groups) {
      const band = label(groupLabel(g), 'grid-kv', 1, `${g.first + 2} / span ${g.last - g.first + 1}`);
      band.dataset.kv = String(g.kv);
      cells.push(band);
    }
  }
  for (let h = 0; h < H; h++) cells.push(label(`h${h}`, 'grid-col', top, h + 2));
  for (let l = 0; l < L; l++) {
    cells.push(label(`L${l}`, 'grid-row', l + top + 1, 1));
    if (under) cells.push(place(under(l), l + top + 1, `2 / span ${H}`));
    for (let h = 0; h < H; h++) cells.push(place(cell(l, h), l + top + 1, h + 2));
  }
  return cells;
}
