// arcs.js: the attention arcs view. Query tokens on the left, key tokens on the right, one curve per arc with
// thickness and opacity by weight. The DOM is built once per text (setTokens); setArcs records the arcs (the view's
// one list of what is drawn: drawnArcs(), shownArcs()) and draws them with one of two back ends: SVG paths from a
// pool, whose attributes are rewritten, for up to MAX_SVG_ARCS arcs; past that a canvas the height of the visible
// rows, repainted on scroll (tens of thousands of paths take a second to lay out, and a full-height canvas of 1,024
// rows would hold 25,000 pixel rows). Hover and focus toggle classes, and repaint the canvas.
//   <div class="arcview" data-backend="svg | canvas">
//     <ol class="tokens from"> <li><span class="token" data-token-index="i">...</span></li> ... </ol>
//     <svg class="arcs"> <path data-from data-to data-head data-weight> ... </svg>
//     <div class="arc-canvas"> <canvas> </div>      (one of the two is hidden)
//     <ol class="tokens to"> ... </ol>
import { headColor, THEME_COLORS } from './palette.js';
import { svgElement } from './svg-element.js';

export const ROW = 24;          // px per token row
export const MAX_SVG_ARCS = 2000;

// Geometry shared with the exporter: a curve from query row i (x = 0) to key row j (x = width).
export function arcPath(i, j, width) {
  const y1 = (i + 0.5) * ROW, y2 = (j + 0.5) * ROW, mid = width / 2;
  return `M0 ${y1}C${mid} ${y1} ${mid} ${y2} ${width} ${y2}`;
}

// The same curve traced on a canvas.
function traceArc(ctx, i, j, width) {
  const y1 = (i + 0.5) * ROW, y2 = (j + 0.5) * ROW, mid = width / 2;
  ctx.moveTo(0, y1);
  ctx.bezierCurveTo(mid, y1, mid, y2, width, y2);
}
export const arcWidth = (w) => 0.5 + 5 * w;
const sameLabel = (a, b) => a.lead === b.lead && a.text === b.text && !a.continuation === !b.continuation;
export const arcOpacity = (w) => Math.min(1, 0.08 + 1.1 * Math.sqrt(w) * w ** 0.25);

export class ArcView {
  // onFocus(side, index) is called when the user focuses or hovers a token (index -1: focus left the view).
  constructor(root, { onFocus = () => {}, label = 'Attention arcs' } = {}) {
    this.root = root;
    this.onFocus = onFocus;
    this.labels = [];
    this.pool = [];       // every path element ever made; the first `inPool` are in the DOM
    this.inPool = 0;
    this.count = 0;       // the arcs recorded: from, to, head, weight, and whether focus leaves them on
    this.arcFrom = new Int32Array(0);
    this.arcTo = new Int32Array(0);
    this.arcHead = new Int16Array(0);
    this.arcWeight = new Float32Array(0);
    this.arcOn = new Uint8Array(0);
    this.backend = 'svg';
    this.focused = null;  // {side, index} or null
    this.pinned = null;   // focus kept by click or keyboard

    const doc = root.ownerDocument;
    this.el = doc.createElement('div');
    this.el.className = 'arcview';
    this.el.setAttribute('role', 'group');
    this.el.setAttribute('aria-label', label);
    this.fromList = this.makeColumn(doc, 'from', 'Query tokens: each one attends to tokens on the right');
    this.toList = this.makeColumn(doc, 'to', 'Key tokens: attended to by tokens on the left');
    this.svg = svgElement('svg', { class: 'arcs', preserveAspectRatio: 'none', 'aria-hidden': 'true' }, null, undefined,
      doc);
    this.group = svgElement('g', {}, this.svg);
    this.track = doc.createElement('div');
    this.track.className = 'arc-canvas';
    this.track.hidden = true;
    this.canvas = doc.createElement('canvas');
    this.canvas.setAttribute('aria-hidden', 'true');
    this.track.append(this.canvas);
    this.el.dataset.backend = this.backend;
    this.el.append(this.fromList, this.svg, this.track, this.toList);
    root.append(this.el);
    // The canvas paints the rows in sight: again when they scroll or the view resizes. root is the scrolling box (the
    // page's view and the element's scroll past a max-height); a root that does not scroll shows every row.
    const repaint = () => {
      if (this.backend !== 'canvas' || this.painting) return;
      this.painting = requestAnimationFrame(() => { this.painting = 0; this.paint(); });
    };
    root.addEventListener('scroll', repaint, { passive: true });
    new ResizeObserver(repaint).observe(this.track);
  }

  makeColumn(doc, side, label) {
    const list = doc.createElement('ol');
    list.className = `tokens ${side}`;
    list.setAttribute('aria-label', label);
    list.dataset.side = side;
    const pick = (event) => event.target.closest('[data-token-index]');
    list.addEventListener('pointerover', (e) => {
      const t = pick(e);
      if (t && !this.pinned) this.focus(side, Number(t.dataset.tokenIndex));
    });
    list.addEventListener('pointerleave', () => { if (!this.pinned) this.focus(null); });
    // A click pins a token's arcs; a second click on the same token unpins. (Clicking also focuses the token,
    // which pins it through focusin, so whether it was pinned is read before that, at pointerdown.)
    let wasPinned = false;
    list.addEventListener('pointerdown', (e) => {
      const t = pick(e);
      wasPinned = !!t && !!this.pinned && this.pinned.side === side && this.pinned.index === Number(t.dataset.tokenIndex);
    });
    list.addEventListener('click', (e) => {
      const t = pick(e);
      if (!t) return;
      const index = Number(t.dataset.tokenIndex);
      this.pinned = wasPinned ? null : { side, index };
      this.focus(wasPinned ? null : side, index);
      wasPinned = false;
    });
    list.addEventListener('focusin', (e) => {
      const t = pick(e);
      if (!t) return;
      this.pinned = { side, index: Number(t.dataset.tokenIndex) };
      this.focus(side, this.pinned.index);
    });
    list.addEventListener('focusout', (e) => {
      if (!list.contains(e.relatedTarget)) { this.pinned = null; this.focus(null); }
    });
    list.addEventListener('keydown', (e) => this.onKey(side, e));
    return list;
  }

  onKey(side, e) {
    const t = e.target.closest('[data-token-index]');
    if (!t) return;
    const i = Number(t.dataset.tokenIndex), n = this.labels.length;
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1, PageDown: 10, PageUp: -10 }[e.key];
    let next = null;
    if (step !== undefined) next = Math.max(0, Math.min(n - 1, i + step));
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = n - 1;
    else if (e.key === 'Escape') { this.pinned = null; this.focus(null); return; }
    if (next === null) return;
    e.preventDefault();
    this.tokenElement(side, next).focus();
  }

  tokenElement(side, index) {
    return (side === 'from' ? this.fromList : this.toList).children[index].firstChild;
  }

  // labels: [{lead, text, continuation}] from token-text.js. Both columns keep the tokens an edit left as they were
  // (typing at the end of a long text adds a row or two, not a thousand) and rebuild from the first that changed.
  setTokens(labels) {
    const before = this.labels ?? [];
    let kept = 0;
    while (kept < labels.length && kept < before.length && sameLabel(labels[kept], before[kept])) kept++;
    this.labels = labels;
    this.pinned = null;
    this.focused = null;
    for (const [list, side] of [[this.fromList, 'from'], [this.toList, 'to']]) {
      const doc = list.ownerDocument;
      while (list.children.length > kept) list.lastChild.remove();
      for (let i = 0; i < kept; i++) { // as a new token would be: not lit, not current, first in the tab order only
        const t = list.children[i].firstChild;
        t.classList.remove('current');
        t.style.removeProperty('--w');
        t.tabIndex = i === 0 ? 0 : -1;
      }
      const items = labels.slice(kept).map((label, at) => {
        const i = kept + at;
        const li = doc.createElement('li');
        const token = doc.createElement('span');
        token.className = label.continuation ? 'token continuation' : 'token';
        token.dataset.tokenIndex = String(i);
        token.tabIndex = i === 0 ? 0 : -1;
        token.setAttribute('role', 'button');
        if (label.lead) {
          const lead = doc.createElement('span');
          lead.className = 'lead';
          lead.textContent = label.lead;
          token.append(lead);
        }
        token.append(doc.createTextNode(label.text));
        token.setAttribute('aria-label', `${side === 'from' ? 'query' : 'key'} token ${i}: ${label.lead ? ' ' : ''}${label.text}`);
        li.append(token);
        return li;
      });
      list.append(...items);
    }
    const height = Math.max(1, labels.length) * ROW;
    this.svg.setAttribute('viewBox', `0 0 100 ${height}`);
    this.svg.setAttribute('height', String(height));
    this.track.style.setProperty('height', `${height}px`);
    this.el.style.setProperty('--rows', String(labels.length));
  }

  // sets: [{head, arcs: {from, to, weight, n}}]; head -1 draws in the accent colour (aggregates).
  setArcs(sets) {
    let total = 0;
    for (const s of sets) total += s.arcs.n;
    if (this.arcFrom.length < total) {
      this.arcFrom = new Int32Array(total);
      this.arcTo = new Int32Array(total);
      this.arcHead = new Int16Array(total);
      this.arcWeight = new Float32Array(total);
      this.arcOn = new Uint8Array(total);
    }
    let k = 0;
    for (const { head, arcs } of sets) {
      this.arcFrom.set(arcs.from.subarray(0, arcs.n), k);
      this.arcTo.set(arcs.to.subarray(0, arcs.n), k);
      this.arcWeight.set(arcs.weight.subarray(0, arcs.n), k);
      this.arcHead.fill(head, k, k + arcs.n);
      k += arcs.n;
    }
    this.count = total;
    this.arcOn.fill(1, 0, total);
    const backend = total > MAX_SVG_ARCS ? 'canvas' : 'svg';
    if (backend !== this.backend) {
      this.backend = backend;
      this.el.dataset.backend = backend;
      if (backend === 'svg') this.svg.style.removeProperty('display'); else this.svg.style.setProperty('display', 'none');
      this.track.hidden = backend !== 'canvas';
    }
    this.setPaths(backend === 'svg' ? total : 0);
    this.applyFocus(true);
  }

  // The SVG back end: the first n recorded arcs as pooled paths (n 0 empties it).
  setPaths(n) {
    const doc = this.svg.ownerDocument;
    while (this.pool.length < n) {
      const p = svgElement('path', { 'vector-effect': 'non-scaling-stroke', fill: 'none' }, null, undefined, doc);
      this.pool.push(p);
    }
    for (let k = 0; k < n; k++) {
      const p = this.pool[k], w = this.arcWeight[k], head = this.arcHead[k];
      p.setAttribute('d', arcPath(this.arcFrom[k], this.arcTo[k], 100));
      p.setAttribute('stroke-width', arcWidth(w).toFixed(2));
      p.setAttribute('stroke-opacity', arcOpacity(w).toFixed(3));
      // Head-dependent attributes only change when this pooled path changes head.
      if (p.arcHead !== head) {
        const color = headColor(head);
        if (color) p.setAttribute('stroke', color); else p.removeAttribute('stroke');
        p.setAttribute('class', color ? 'arc' : 'arc accent');
        p.setAttribute('data-head', head);
        p.arcHead = head;
      }
      p.setAttribute('data-from', this.arcFrom[k]);
      p.setAttribute('data-to', this.arcTo[k]);
      p.setAttribute('data-weight', w.toPrecision(6));
    }
    if (n > this.inPool) {
      const frag = doc.createDocumentFragment();
      for (let i = this.inPool; i < n; i++) frag.append(this.pool[i]);
      this.group.append(frag);
    } else {
      for (let i = n; i < this.inPool; i++) { this.pool[i].remove(); this.pool[i].classList.remove('off'); }
    }
    this.inPool = n;
  }

  // The canvas back end: the arcs that cross the rows in sight, on a canvas as tall as the view shows (it sticks to
  // the top of the scrolling view), with the SVG back end's widths, opacities and colours.
  paint() {
    const canvas = this.canvas, width = this.track.clientWidth;
    const height = Math.min(this.labels.length * ROW, this.root.clientHeight);
    const dpr = this.el.ownerDocument.defaultView.devicePixelRatio || 1;
    canvas.style.setProperty('height', `${height}px`);
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
    }
    const top = canvas.getBoundingClientRect().top - this.track.getBoundingClientRect().top; // px of rows above it
    const ctx = canvas.getContext('2d');
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.setTransform(dpr, 0, 0, dpr, 0, -top * dpr);
    const accent = getComputedStyle(this.el).getPropertyValue('--accent').trim() || THEME_COLORS.light.accent;
    const focusing = !!this.focused, margin = 8;
    for (let k = 0; k < this.count; k++) {
      if (!this.arcOn[k]) continue;
      const a = this.arcFrom[k], b = this.arcTo[k];
      if ((Math.max(a, b) + 1) * ROW < top - margin || Math.min(a, b) * ROW > top + height + margin) continue;
      const w = this.arcWeight[k], head = this.arcHead[k];
      ctx.strokeStyle = headColor(head) ?? accent;
      ctx.lineCap = head >= 0 ? 'round' : 'butt';
      ctx.lineWidth = arcWidth(w);
      ctx.globalAlpha = focusing ? 0.9 : arcOpacity(w);
      ctx.beginPath();
      traceArc(ctx, a, b, width);
      ctx.stroke();
    }
  }

  // Pins a token's arcs as a click does, without moving keyboard focus (e.g. the token a shared link names).
  pin(side, index) {
    this.pinned = { side, index };
    this.focus(side, index);
  }

  // Shows only the arcs leaving (side 'from') or reaching (side 'to') one token; side null shows all.
  focus(side, index) {
    this.focused = side ? { side, index } : null;
    if (side) {
      const list = side === 'from' ? this.fromList : this.toList;
      for (const li of list.children) li.firstChild.tabIndex = -1;
      const t = this.tokenElement(side, index);
      if (t) t.tabIndex = 0;
    }
    this.applyFocus();
    this.onFocus(side, side ? index : -1);
  }

  // Marks the arcs the focus leaves on (all of them without focus) and lights the tokens they reach; the canvas
  // repaints when that changed or the arcs did (arcsChanged).
  applyFocus(arcsChanged = false) {
    const f = this.focused, wasShown = this.focusShown;
    if (f || wasShown) this.markFocus(f); // else every arc is already on and no token is lit
    if (this.backend === 'canvas' && (arcsChanged || f || wasShown)) this.paint();
  }

  markFocus(f) {
    this.focusShown = !!f;
    this.el.classList.toggle('focusing', !!f);
    const svg = this.backend === 'svg';
    const strength = new Float32Array(this.labels.length);
    for (let k = 0; k < this.count; k++) {
      const on = !f || (f.side === 'from' ? this.arcFrom[k] === f.index : this.arcTo[k] === f.index);
      this.arcOn[k] = on ? 1 : 0;
      if (svg) this.pool[k].classList.toggle('off', !on);
      if (f && on) {
        const other = f.side === 'from' ? this.arcTo[k] : this.arcFrom[k];
        strength[other] = Math.max(strength[other], this.arcWeight[k]);
      }
    }
    for (const [list, side] of [[this.fromList, 'from'], [this.toList, 'to']]) {
      const lit = f && f.side !== side;
      for (let i = 0; i < list.children.length; i++) {
        const t = list.children[i].firstChild;
        t.classList.toggle('current', !!f && f.side === side && f.index === i);
        if (lit) t.style.setProperty('--w', strength[i].toFixed(3));
        else t.style.removeProperty('--w');
      }
    }
  }

  // The arcs drawn, for tables, exports and tests, whichever back end draws them: [{from, to, head, weight}].
  drawnArcs() {
    return this.listArcs(() => true);
  }

  // The arcs in sight now: those of the focused token, or all of them.
  shownArcs() {
    return this.listArcs((k) => this.arcOn[k]);
  }

  listArcs(keep) {
    const out = [];
    for (let k = 0; k < this.count; k++) {
      if (keep(k)) out.push({ from: this.arcFrom[k], to: this.arcTo[k], head: this.arcHead[k], weight: this.arcWeight[k] });
    }
    return out;
  }
}
