// heads-grid.js: the cells of a layer x head grid laid out by the page's CSS grid (--heads columns after the row
// labels): a blank corner, a "h0 h1 ..." header, then each layer's "L0" label and its heads' cells. Used by the
// thumbnails (thumbs.js) and the head scores (heads-scores.js); cell(l, h) makes each head's element.
export function headGridCells(root, L, H, cell) {
  root.style.setProperty('--heads', String(H));
  const label = (text) => {
    const s = document.createElement('span');
    s.textContent = text;
    return s;
  };
  const cells = [document.createElement('span')];
  for (let h = 0; h < H; h++) cells.push(label(`h${h}`));
  for (let l = 0; l < L; l++) {
    cells.push(label(`L${l}`));
    for (let h = 0; h < H; h++) cells.push(cell(l, h));
  }
  return cells;
}
