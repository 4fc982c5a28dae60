// thumbs.js: the layer × head grid of small attention matrices (like BertViz's model view). Each layer's heads are
// drawn side by side on one canvas, under a row of buttons, one a head: GPT-XL's 1,200 heads are 48 canvases, not
// 1,200, which a browser without a GPU would repaint for seconds whenever anything above them moved. Clicking a
// thumbnail selects that layer and head; arrow keys move between thumbnails. The pictures arrive a layer at a time
// from the worker, computed after the view's own arcs.
import { rgb } from '../../lib/views/heatmap.js';
import { headGridCells } from './heads-grid.js';

// Canvas pixels around each thumbnail (4 at 64 x 64): the gap between two heads, since the grid's columns touch.
const marginOf = (size) => Math.max(1, Math.round(size / 16));

export class ThumbGrid {
  constructor(root, onPick) {
    this.root = root;
    this.onPick = onPick;
    this.buttons = [];
    this.canvases = [];
    this.pressed = null;
    root.addEventListener('keydown', (e) => this.onKey(e));
  }

  // Builds the grid for a model shape (once per model); groups: its query heads sharing key/value heads
  // (head-groups.js), or null.
  build(L, H, groups = null) {
    this.L = L; this.H = H;
    this.buttons = [];
    this.canvases = [];
    this.pressed = null;
    const cells = headGridCells(this.root, L, H, (l, h) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.tabIndex = l === 0 && h === 0 ? 0 : -1;
      b.dataset.layer = l; b.dataset.head = h;
      const g = groups?.find((x) => h <= x.last);
      b.setAttribute('aria-label', `layer ${l}, head ${h}${g ? `, KV ${g.kv}` : ''}`);
      b.setAttribute('aria-pressed', 'false');
      b.addEventListener('click', () => this.onPick(l, h));
      this.buttons.push(b);
      return b;
    }, { groups, under: () => {
      const c = document.createElement('canvas');
      c.className = 'thumb-row';
      c.setAttribute('aria-hidden', 'true');
      this.canvases.push(c);
      return c;
    } });
    this.root.replaceChildren(...cells);
    this.clear();
  }

  // Blank thumbnails, until a text's arrive.
  clear(size = 64) {
    const bg = this.colors().bg;
    for (const canvas of this.canvases) {
      const ctx = this.sized(canvas, size), m = marginOf(size);
      ctx.fillStyle = `rgb(${bg.join(',')})`;
      for (let h = 0; h < this.H; h++) ctx.fillRect(h * (size + 2 * m) + m, m, size, size);
    }
  }

  colors() {
    const style = getComputedStyle(this.root);
    return { fg: rgb(style.getPropertyValue('--heat')), bg: rgb(style.getPropertyValue('--heat-bg')) };
  }

  // The layer's canvas, cleared and sized for H thumbnails of size x size with their margins.
  sized(canvas, size) {
    const m = marginOf(size), w = this.H * (size + 2 * m), h = size + 2 * m;
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    const ctx = canvas.getContext('2d');
    ctx.clearRect(0, 0, w, h);
    return ctx;
  }

  // Draws one layer's heads: data holds each head's matrix max-pooled to size x size (the worker's
  // attentionThumbnails op), in head order. Layers arrive one by one, after the arcs are drawn.
  drawLayer(layer, data, size) {
    const { fg, bg } = this.colors();
    const ctx = this.sized(this.canvases[layer], size), m = marginOf(size);
    const img = ctx.createImageData(size, size);
    for (let h = 0; h < this.H; h++) {
      const pooled = data.subarray(h * size * size, (h + 1) * size * size);
      for (let p = 0; p < size * size; p++) {
        const a = Math.sqrt(pooled[p]);
        for (let c = 0; c < 3; c++) img.data[4 * p + c] = bg[c] + (fg[c] - bg[c]) * a;
        img.data[4 * p + 3] = 255;
      }
      ctx.putImageData(img, h * (size + 2 * m) + m, m);
    }
  }

  // Marks the head shown (or none, for a mean or max); only the buttons that change are touched.
  select(layer, head) {
    const next = typeof layer === 'number' && typeof head === 'number' ? this.buttons[layer * this.H + head] ?? null : null;
    if (next === this.pressed) return;
    this.pressed?.setAttribute('aria-pressed', 'false');
    next?.setAttribute('aria-pressed', 'true');
    this.pressed = next;
  }

  onKey(e) {
    const b = e.target.closest('button');
    if (!b) return;
    const l = Number(b.dataset.layer), h = Number(b.dataset.head);
    const move = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0] }[e.key];
    if (!move) return;
    e.preventDefault();
    const nl = Math.max(0, Math.min(this.L - 1, l + move[0])), nh = Math.max(0, Math.min(this.H - 1, h + move[1]));
    b.tabIndex = -1;
    const next = this.buttons[nl * this.H + nh];
    next.tabIndex = 0;
    next.focus();
  }
}
