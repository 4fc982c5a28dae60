// arcs.js: the attention arcs view. Query tokens on the left, key tokens on the right, one curve per arc with
// thickness and opacity by weight. The DOM is built once per text (setTokens); switching layer, head or filter only
// rewrites path attributes from a pool (setArcs), and hover/focus only toggles classes.
//   <div class="arcview">
//     <ol class="tokens from"> <li><span class="token" data-token-index="i">...</span></li> ... </ol>
//     <svg class="arcs"> <path data-from data-to data-head data-weight> ... </svg>
//     <ol class="tokens to"> ... </ol>
import { headColor } from './palette.js';

export const ROW = 24;          // px per token row
const SVG_NS = 'http://www.w3.org/2000/svg';

// Geometry shared with the exporter: a curve from query row i (x = 0) to key row j (x = width).
export function arcPath(i, j, width) {
  const y1 = (i + 0.5) * ROW, y2 = (j + 0.5) * ROW, mid = width / 2;
  return `M0 ${y1}C${mid} ${y1} ${mid} ${y2} ${width} ${y2}`;
}
export const arcWidth = (w) => 0.5 + 5 * w;
export const arcOpacity = (w) => Math.min(1, 0.08 + 1.1 * Math.sqrt(w) * w ** 0.25);

export class ArcView {
  // onFocus(side, index) is called when the user focuses or hovers a token (index -1: focus left the view).
  constructor(root, { onFocus = () => {}, label = 'Attention arcs' } = {}) {
    this.root = root;
    this.onFocus = onFocus;
    this.labels = [];
    this.pool = [];       // every path element ever made; the first `count` are in the DOM
    this.count = 0;
    this.arcFrom = new Int32Array(0);
    this.arcTo = new Int32Array(0);
    this.arcWeight = new Float32Array(0);
    this.focused = null;  // {side, index} or null
    this.pinned = null;   // focus kept by click or keyboard

    const doc = root.ownerDocument;
    this.el = doc.createElement('div');
    this.el.className = 'arcview';
    this.el.setAttribute('role', 'group');
    this.el.setAttribute('aria-label', label);
    this.fromList = this.makeColumn(doc, 'from', 'Query tokens: each one attends to tokens on the right');
    this.toList = this.makeColumn(doc, 'to', 'Key tokens: attended to by tokens on the left');
    this.svg = doc.createElementNS(SVG_NS, 'svg');
    this.svg.setAttribute('class', 'arcs');
    this.svg.setAttribute('preserveAspectRatio', 'none');
    this.svg.setAttribute('aria-hidden', 'true');
    this.group = doc.createElementNS(SVG_NS, 'g');
    this.svg.append(this.group);
    this.el.append(this.fromList, this.svg, this.toList);
    root.append(this.el);
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

  // labels: [{lead, text, continuation}] from token-text.js. Rebuilds both columns.
  setTokens(labels) {
    this.labels = labels;
    this.pinned = null;
    this.focused = null;
    for (const [list, side] of [[this.fromList, 'from'], [this.toList, 'to']]) {
      const doc = list.ownerDocument;
      const items = labels.map((label, i) => {
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
      list.replaceChildren(...items);
    }
    const height = Math.max(1, labels.length) * ROW;
    this.svg.setAttribute('viewBox', `0 0 100 ${height}`);
    this.svg.setAttribute('height', String(height));
    this.el.style.setProperty('--rows', String(labels.length));
  }

  // sets: [{head, arcs: {from, to, weight, n}}]; head -1 draws in the accent colour (aggregates).
  setArcs(sets) {
    let total = 0;
    for (const s of sets) total += s.arcs.n;
    if (this.arcFrom.length < total) {
      this.arcFrom = new Int32Array(total);
      this.arcTo = new Int32Array(total);
      this.arcWeight = new Float32Array(total);
    }
    const doc = this.svg.ownerDocument;
    while (this.pool.length < total) {
      const p = doc.createElementNS(SVG_NS, 'path');
      p.setAttribute('vector-effect', 'non-scaling-stroke');
      p.setAttribute('fill', 'none');
      this.pool.push(p);
    }
    let k = 0;
    for (const { head, arcs } of sets) {
      const color = headColor(head);
      for (let a = 0; a < arcs.n; a++, k++) {
        const p = this.pool[k], w = arcs.weight[a], from = arcs.from[a], to = arcs.to[a];
        p.setAttribute('d', arcPath(from, to, 100));
        p.setAttribute('stroke-width', arcWidth(w).toFixed(2));
        p.setAttribute('stroke-opacity', arcOpacity(w).toFixed(3));
        // Head-dependent attributes only change when this pooled path changes head.
        if (p.arcHead !== head) {
          if (color) p.setAttribute('stroke', color); else p.removeAttribute('stroke');
          p.setAttribute('class', color ? 'arc' : 'arc accent');
          p.setAttribute('data-head', head);
          p.arcHead = head;
        }
        p.setAttribute('data-from', from);
        p.setAttribute('data-to', to);
        p.setAttribute('data-weight', w.toPrecision(6));
        this.arcFrom[k] = from;
        this.arcTo[k] = to;
        this.arcWeight[k] = w;
      }
    }
    if (total > this.count) {
      const frag = doc.createDocumentFragment();
      for (let i = this.count; i < total; i++) frag.append(this.pool[i]);
      this.group.append(frag);
    } else {
      for (let i = total; i < this.count; i++) { this.pool[i].remove(); this.pool[i].classList.remove('off'); }
    }
    this.count = total;
    this.applyFocus();
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

  applyFocus() {
    const f = this.focused;
    // Nothing focused now or before: every path is already visible and no token is lit.
    if (!f && !this.focusShown) return;
    this.focusShown = !!f;
    this.el.classList.toggle('focusing', !!f);
    const strength = new Float32Array(this.labels.length);
    for (let k = 0; k < this.count; k++) {
      const on = !f || (f.side === 'from' ? this.arcFrom[k] === f.index : this.arcTo[k] === f.index);
      this.pool[k].classList.toggle('off', !on);
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

  // The arcs currently drawn, for tables and exports: [{from, to, head, weight}].
  drawnArcs() {
    const out = [];
    for (let k = 0; k < this.count; k++) {
      out.push({ from: this.arcFrom[k], to: this.arcTo[k], head: Number(this.pool[k].dataset.head), weight: this.arcWeight[k] });
    }
    return out;
  }
}
