// heatmap.js: a matrix drawn as coloured cells. Small matrices are SVG (one <rect> per cell, with data attributes
// and a <title> so the values are inspectable); large ones are a canvas. Built once per shape; update() recolours;
// grid() makes the cells a grid to move through with the keyboard and to read with a screen reader.
// Colours come from CSS (--heat, --heat-neg) so dark mode works without code; a cell's strength is its fill-opacity.
// Masked cells (-inf, as a causal mask leaves the scores, or NaN) are hatched and left out of the colour scale.
import { svgElement } from './svg-element.js';

const MAX_SVG_CELLS = 96 * 96;
let hatchCount = 0; // each drawing's pattern gets its own id, unique in the document and in any shadow root

const isMasked = (v) => v === -Infinity || Number.isNaN(v);

export class Heatmap {
  // options: {rows, cols, cell (px, default 18), signed (a diverging scale: negative values in --heat-neg),
  // rowLabels, colLabels (one string per row / column, or null), label (the drawing's accessible name), cellData
  // (each cell's data-from / data-to), bands (a labelled divider every `bands` columns, e.g. one band per head),
  // notes (a text right of each row, set with setNotes())}
  constructor(root, options) {
    this.root = root;
    this.opt = { cell: 18, signed: false, rowLabels: null, colLabels: null, label: 'heatmap', cellData: false, ...options };
    this.build();
  }

  build() {
    const { rows, cols, cell, rowLabels, colLabels, label } = this.opt;
    const doc = this.root.ownerDocument;
    const { bands, notes } = this.opt;
    // Label bands sized to the longest label (about 6.5 px a character at 10 px monospace).
    const longest = (labels) => Math.max(2, ...labels.map((s) => clip(s).length));
    const left = rowLabels ? Math.ceil(8 + 6.5 * longest(rowLabels)) : 0;
    const top = colLabels ? Math.ceil(10 + 5.7 * longest(colLabels)) : bands ? 16 : 0;
    const right = (notes ? 66 : 0) + (colLabels ? 30 : 0);
    this.left = left; this.top = top;
    const width = left + cols * cell + right, height = top + rows * cell;
    this.useCanvas = rows * cols > MAX_SVG_CELLS;
    if (this.useCanvas) {
      this.el = doc.createElement('canvas');
      this.el.width = cols; this.el.height = rows;
      this.el.className = 'heatmap canvas';
      this.el.setAttribute('role', 'img');
      this.el.setAttribute('aria-label', label);
      this.root.replaceChildren(this.el);
      return;
    }
    const svg = svgElement('svg', { class: 'heatmap', viewBox: `0 0 ${width} ${height}`, width, role: 'img',
      'aria-label': label }, null, undefined, doc);
    // Its width over its height, for a stylesheet that scales it to fit a height (<arc-scope>'s view).
    svg.style.setProperty('--heatmap-aspect', (width / height).toFixed(4));
    const text = (x, y, s, cls, rotate) => svgElement('text',
      { x, y, class: cls, ...(rotate ? { transform: `rotate(-60 ${x} ${y})` } : {}) }, svg, s);
    if (rowLabels) rowLabels.forEach((s, i) => text(left - 4, top + (i + 0.5) * cell, clip(s), 'row-label'));
    if (colLabels) colLabels.forEach((s, j) => text(left + (j + 0.5) * cell, top - 4, clip(s), 'col-label', true));
    // bands: a label and a divider every `bands` columns (e.g. one band per head).
    if (bands) {
      for (let b = 0; b * bands < cols; b++) {
        text(left + (b + 0.5) * bands * cell, top - 5, `head ${b}`, 'band-label');
        if (b > 0) {
          const x = left + b * bands * cell - 0.5;
          svgElement('line', { x1: x, x2: x, y1: top - 12, y2: top + rows * cell, class: 'band' }, svg);
        }
      }
    }
    // notes: one text per row on the right (e.g. row sums), set with setNotes().
    this.noteEls = notes ? Array.from({ length: rows }, (_, i) =>
      text(left + cols * cell + 6, top + (i + 0.5) * cell, '', 'note')) : [];
    // The hatch for masked cells: one pattern per drawing, which every masked cell fills with (url() in an attribute,
    // no inline style, so it passes a strict Content-Security-Policy).
    this.hatchId = `arcscope-hatch-${++hatchCount}`;
    const pattern = svgElement('pattern', { id: this.hatchId, class: 'hatch', width: 4, height: 4,
      patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, svgElement('defs', {}, svg));
    svgElement('rect', { class: 'hatch-bg', width: 4, height: 4 }, pattern);
    svgElement('line', { class: 'hatch-line', x1: 1, y1: 0, x2: 1, y2: 4 }, pattern);
    this.cells = [];
    const gap = cell >= 10 ? 1 : 0; // small cells touch, so fine patterns don't turn into stripes
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const r = svgElement('rect', { x: left + j * cell, y: top + i * cell, width: cell - gap, height: cell - gap },
          svg);
        if (this.opt.cellData) { r.dataset.from = i; r.dataset.to = j; }
        svgElement('title', {}, r);
        this.cells.push(r);
      }
    }
    this.el = svg;
    this.root.replaceChildren(svg);
  }

  // values: rows*cols numbers, row-major. scale: the value shown at full colour (default: the largest finite |v|;
  // a masked -inf must not make every other cell look empty).
  update(values, scale) {
    const n = this.opt.rows * this.opt.cols;
    let max = scale || 0;
    if (!scale) for (let i = 0; i < n; i++) if (Number.isFinite(values[i])) max = Math.max(max, Math.abs(values[i]));
    max = max || 1;
    if (this.useCanvas) return this.paint(values, max);
    for (let i = 0; i < n; i++) {
      const v = values[i], r = this.cells[i];
      const masked = isMasked(v);
      r.setAttribute('class', masked ? 'cell masked' : v < 0 && this.opt.signed ? 'cell neg' : 'cell');
      if (masked) r.setAttribute('fill', `url(#${this.hatchId})`); else r.removeAttribute('fill');
      r.setAttribute('fill-opacity', masked ? '1' : (0.04 + 0.96 * Math.min(1, Math.abs(v) / max)).toFixed(3));
      if (this.opt.cellData) r.dataset.weight = masked ? '0' : v.toPrecision(6);
      r.firstChild.textContent = masked ? 'masked' : formatValue(v);
    }
  }

  // A small heatmap as a keyboard and screen-reader grid, the one pattern of the page's "which heads matter" grids
  // and of <arc-scope mode="ablation">: the svg is a role=grid (named by the label), each row a role=row and each
  // cell a gridcell named name(row, col, i), the same text as its <title> (for the mouse). One cell is in the Tab
  // order at a time; the arrow keys move between cells, Home and End to the ends of the row (with Ctrl, of the grid).
  // onPick(row, col), when given, is what a click on a cell does, and Enter or Space on the focused cell does the
  // same. Call it after update(), since the names describe the values; again to rename the cells. Past 96 x 96
  // cells the heatmap is a canvas, with no cells: nothing happens.
  grid({ name, onPick = null }) {
    if (this.useCanvas) return;
    const { rows, cols } = this.opt;
    this.onPick = onPick;
    if (!this.rowEls) {
      this.el.setAttribute('role', 'grid');
      // The row and column labels are in every cell's name; read as loose text in the grid they would be noise.
      for (const t of this.el.querySelectorAll('text')) t.setAttribute('aria-hidden', 'true');
      this.rowEls = Array.from({ length: rows }, (_, i) => {
        const row = svgElement('g', { role: 'row' }, this.el);
        row.append(...this.cells.slice(i * cols, (i + 1) * cols));
        return row;
      });
      this.el.addEventListener('keydown', (e) => this.keydown(e));
      this.el.addEventListener('click', (e) => {
        const i = this.cells.indexOf(e.target.closest?.('rect.cell'));
        if (i >= 0 && this.onPick) this.onPick(Math.floor(i / cols), i % cols);
      });
      this.focusCell(0, { move: false });
    }
    this.el.classList.toggle('pickable', !!onPick);
    this.cells.forEach((cell, i) => {
      const text = name(Math.floor(i / cols), i % cols, i);
      cell.setAttribute('role', 'gridcell');
      cell.setAttribute('aria-label', text);
      cell.firstChild.textContent = text;
    });
  }

  keydown(e) {
    const i = this.cells.indexOf(e.target);
    if (i < 0) return;
    const { rows, cols } = this.opt, r = Math.floor(i / cols), c = i % cols;
    if ((e.key === 'Enter' || e.key === ' ') && this.onPick) {
      e.preventDefault();
      this.onPick(r, c);
      return;
    }
    const to = { ArrowUp: [r - 1, c], ArrowDown: [r + 1, c], ArrowLeft: [r, c - 1], ArrowRight: [r, c + 1],
      Home: e.ctrlKey ? [0, 0] : [r, 0], End: e.ctrlKey ? [rows - 1, cols - 1] : [r, cols - 1] }[e.key];
    if (!to) return;
    e.preventDefault();
    const clamp = (v, n) => Math.max(0, Math.min(n - 1, v));
    this.focusCell(clamp(to[0], rows) * cols + clamp(to[1], cols));
  }

  // Cell i becomes the grid's one stop in the Tab order, and takes the focus unless move is false.
  focusCell(i, { move = true } = {}) {
    this.cells.forEach((c, k) => c.setAttribute('tabindex', k === i ? '0' : '-1'));
    if (move) this.cells[i].focus();
  }

  // Outlines cell i (class marked) and no other, or none for null; in a grid() it is also the selected cell and the
  // grid's stop in the Tab order.
  mark(i) {
    this.cells.forEach((c, k) => {
      c.classList.toggle('marked', k === i);
      if (k === i && this.rowEls) c.setAttribute('aria-selected', 'true'); else c.removeAttribute('aria-selected');
    });
    if (i != null && this.rowEls) this.focusCell(i, { move: false });
  }

  setNotes(strings) {
    strings.forEach((s, i) => { if (this.noteEls[i]) this.noteEls[i].textContent = s; });
  }

  paint(values, max) {
    const { rows, cols } = this.opt;
    const ctx = this.el.getContext('2d');
    const style = getComputedStyle(this.el);
    const pos = rgb(style.getPropertyValue('--heat')), neg = rgb(style.getPropertyValue('--heat-neg'));
    const bg = rgb(style.getPropertyValue('--heat-bg')), line = rgb(style.getPropertyValue('--line'));
    const img = ctx.createImageData(cols, rows);
    for (let i = 0; i < rows * cols; i++) {
      const v = values[i], masked = isMasked(v);
      // A pixel is too small to hatch: masked cells get the line colour, at full strength.
      const a = masked ? 1 : Math.min(1, Math.abs(v) / max) || 0;
      const c = masked ? line : v < 0 && this.opt.signed ? neg : pos;
      for (let ch = 0; ch < 3; ch++) img.data[4 * i + ch] = bg[ch] + (c[ch] - bg[ch]) * a;
      img.data[4 * i + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
  }
}

export function formatValue(v) {
  if (!Number.isFinite(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3);
}

function clip(s) {
  return s.length > 12 ? `${s.slice(0, 11)}\u2026` : s;
}

// '#rrggbb' or 'rgb(r, g, b)' -> [r, g, b]
export function rgb(css) {
  const s = css.trim();
  if (s.startsWith('#')) {
    const h = s.length === 4 ? [...s.slice(1)].map((c) => c + c).join('') : s.slice(1);
    return [0, 2, 4].map((k) => parseInt(h.slice(k, k + 2), 16));
  }
  const m = s.match(/\d+(\.\d+)?/g);
  return m ? m.slice(0, 3).map(Number) : [0, 0, 0];
}
