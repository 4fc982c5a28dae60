// thumbs.js: the layer × head grid of small attention matrices (like BertViz's model view). One canvas per head;
// clicking a thumbnail selects that layer and head. Arrow keys move between thumbnails. The pictures arrive a layer
// at a time from the worker, computed after the view's own arcs.
import { rgb } from '../../lib/views/heatmap.js';
import { headGridCells } from './heads-grid.js';

export class ThumbGrid {
  constructor(root, onPick) {
    this.root = root;
    this.onPick = onPick;
    this.buttons = [];
    root.addEventListener('keydown', (e) => this.onKey(e));
  }

  // Builds the grid for a model shape (once per model).
  build(L, H) {
    this.L = L; this.H = H;
    this.buttons = [];
    const cells = headGridCells(this.root, L, H, (l, h) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.tabIndex = l === 0 && h === 0 ? 0 : -1;
      b.dataset.layer = l; b.dataset.head = h;
      b.setAttribute('aria-label', `layer ${l}, head ${h}`);
      b.setAttribute('aria-pressed', 'false');
      b.append(document.createElement('canvas'));
      b.addEventListener('click', () => this.onPick(l, h));
      this.buttons.push(b);
      return b;
    });
    this.root.replaceChildren(...cells);
  }

  // Blank thumbnails, until a text's arrive.
  clear() {
    for (const b of this.buttons) b.firstChild.getContext('2d').clearRect(0, 0, b.firstChild.width, b.firstChild.height);
  }

  // Draws one layer's heads: data holds each head's matrix max-pooled to size x size (the worker's
  // attentionThumbnails op), in head order. Layers arrive one by one, after the arcs are drawn.
  drawLayer(layer, data, size) {
    const style = getComputedStyle(this.root);
    const fg = rgb(style.getPropertyValue('--heat')), bg = rgb(style.getPropertyValue('--heat-bg'));
    for (let h = 0; h < this.H; h++) {
      const canvas = this.buttons[layer * this.H + h].firstChild;
      canvas.width = size; canvas.height = size;
      const ctx = canvas.getContext('2d');
      const img = ctx.createImageData(size, size);
      const pooled = data.subarray(h * size * size, (h + 1) * size * size);
      for (let p = 0; p < size * size; p++) {
        const a = Math.sqrt(pooled[p]);
        for (let c = 0; c < 3; c++) img.data[4 * p + c] = bg[c] + (fg[c] - bg[c]) * a;
        img.data[4 * p + 3] = 255;
      }
      ctx.putImageData(img, 0, 0);
    }
  }

  select(layer, head) {
    for (const b of this.buttons) {
      const on = Number(b.dataset.layer) === layer && Number(b.dataset.head) === head;
      b.setAttribute('aria-pressed', String(on));
    }
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
