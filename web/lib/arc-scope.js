// arc-scope.js: the <arc-scope> custom element, for blog posts and docs.
//   <script type="module" src="/lib/arc-scope.js"></script>
//   <arc-scope text="The trophy didn't fit in the bag because it was too big" model="models/shakespeare-4l.q8.arcs"
//              layer="3" head="1" mode="arcs"></arc-scope>
// Attributes (changing one re-renders):
//   text       the text to run through the model (default: the element's text content)
//   model      URL of an .arcs file (default: the model shipped with arcscope)
//   layer      an integer from 0 to n_layer - 1, "mean" or "max" (default: the last layer)
//   head       an integer from 0 to n_head - 1, "all", "mean" or "max" (default: "all")
//   mode       "arcs" or "matrix" (default: "arcs")
//   topk       arcs per token, an integer >= 0; 0 draws them all (default: 0)
//   threshold  minimum weight drawn, a number from 0 to 1 (default: 0.02)
// An absent attribute means its default. Any other value that is not valid, an empty one included, is an error: the
// element shows it inside itself (role=alert) and fires arcscope-error; fixing the attribute renders again.
// Events: arcscope-ready (model loaded), arcscope-rendered (drawn; element.result = {tokens, attention, shape}),
// arcscope-error ({message}).
// Every element on a page shares one worker and one copy of each model. Styles live in a shadow root, so the host
// page's CSS and this element's cannot disturb each other.
import { assets } from './assets.js';
import { sharedEngine } from './worker-client.js';
import { ArcView } from './arcs.js';
import { Heatmap } from './heatmap.js';
import { selectMatrices, filterArcs, aggregate } from './attention-math.js';
import { plainLabel } from './token-text.js';
import { word, index, count, fraction, url, LAYER_WORDS, HEAD_WORDS, MODES } from './view-options.js';

const DEFAULT_MODEL = assets.model.href;
const STYLES = [new URL('./css/views.css', import.meta.url).href, new URL('./css/arc-scope.css', import.meta.url).href];

// The worker's analyses, shared by elements: `${model}\n${text}` -> {promise, bytes}, least recently used first.
// Bounded by the bytes of their attention arrays (a long text on a big model is hundreds of MB), counted on arrival,
// and by their number (thousands of short texts would cost little attention but more than their labels).
const CACHE_BYTES = 64 << 20;
const CACHE_ENTRIES = 256;
const analyses = new Map();
let cachedBytes = 0;

function analysis(engine, model, text) {
  const key = `${model}\n${text}`;
  let entry = analyses.get(key);
  if (entry) analyses.delete(key); // set again below: most recently used last
  else {
    entry = { promise: engine.call('analyze', { model, text, topk: 5 }), bytes: 0 };
    entry.promise.then((r) => {
      if (analyses.get(key) !== entry) return;
      entry.bytes = r.attention.byteLength;
      cachedBytes += entry.bytes;
      for (const [k, e] of analyses) {
        if (cachedBytes <= CACHE_BYTES && analyses.size <= CACHE_ENTRIES) break;
        if (e.bytes) forget(k, e); // pending ones cost nothing yet
      }
    }, () => forget(key, entry));
  }
  analyses.set(key, entry);
  return entry.promise;
}

function forget(key, entry) {
  if (analyses.get(key) !== entry) return;
  analyses.delete(key);
  cachedBytes -= entry.bytes;
}

// What the shared analysis cache holds (read-only; for tests and the curious).
export function analysisCache() {
  return { entries: analyses.size, bytes: cachedBytes, budget: CACHE_BYTES, maxEntries: CACHE_ENTRIES };
}

export class ArcScopeElement extends HTMLElement {
  static observedAttributes = ['text', 'model', 'layer', 'head', 'mode', 'topk', 'threshold'];

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    for (const href of STYLES) {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = href;
      root.append(link);
    }
    this.frame = document.createElement('figure');
    this.frame.className = 'frame';
    this.frame.setAttribute('part', 'frame');
    this.view = document.createElement('div');
    this.view.className = 'view';
    this.caption = document.createElement('figcaption');
    this.caption.className = 'caption';
    this.error = document.createElement('p');
    this.error.className = 'error';
    this.error.setAttribute('role', 'alert');
    this.error.hidden = true;
    this.frame.append(this.view, this.caption, this.error);
    root.append(this.frame);
    this.arcs = null;
    this.matrix = null;
    this.result = null;
    this.ready = false;
    this.pending = false;
    this.renders = 0;
  }

  connectedCallback() { this.schedule(); }
  attributeChangedCallback() { this.schedule(); }

  // Attribute changes arrive one by one; render once after the current task.
  schedule() {
    if (this.pending || !this.isConnected) return;
    this.pending = true;
    queueMicrotask(() => { this.pending = false; this.render(); });
  }

  // The attribute's value read by parse(name, value), or fallback when it is absent.
  read(name, parse, fallback, ...extra) {
    const value = this.getAttribute(name);
    return value === null ? fallback : parse(name, value, ...extra);
  }

  async render() {
    const ticket = ++this.renders;
    try {
      // Attributes that do not need the model are checked before it loads.
      const modelUrl = this.read('model', url, DEFAULT_MODEL, document.baseURI);
      const view = {
        mode: this.read('mode', word, 'arcs', MODES),
        topK: this.read('topk', count, 0),
        threshold: this.read('threshold', fraction, 0.02),
      };
      const text = this.getAttribute('text') ?? this.textContent.trim();
      const engine = sharedEngine();
      if (!this.result) this.caption.textContent = 'loading the model…';
      const info = await engine.loadModel(modelUrl);
      if (!this.ready) {
        this.ready = true;
        this.dispatchEvent(new CustomEvent('arcscope-ready', { detail: { model: info.name, config: info.config } }));
      }
      const { n_layer: L, n_head: H } = info.config;
      view.layer = this.read('layer', index, L - 1, L, LAYER_WORDS);
      view.head = this.read('head', index, 'all', H, HEAD_WORDS);
      const r = await analysis(engine, info.key, text);
      if (ticket !== this.renders) return; // a newer render superseded this one
      this.draw(info, r, view);
    } catch (e) {
      if (ticket !== this.renders) return;
      if (!this.result) this.caption.textContent = '';
      this.error.textContent = `arc-scope: ${e.message}`;
      this.error.hidden = false;
      this.dispatchEvent(new CustomEvent('arcscope-error', { detail: { message: e.message } }));
    }
  }

  draw(info, r, { layer, head, mode, topK, threshold }) {
    const T = r.labels.length;
    const picked = selectMatrices(r.attention, r.shape, { layer, head, sink: true });
    this.error.hidden = true;
    if (mode === 'arcs') {
      if (this.matrix) { this.matrix.root.remove(); this.matrix = null; }
      if (!this.arcs) this.arcs = new ArcView(this.view, { label: `Attention arcs, layer ${layer}, head ${head}` });
      if (this.arcs.labels !== r.labels) this.arcs.setTokens(r.labels);
      this.arcs.setArcs(picked.map((p) => ({ head: p.head, arcs: filterArcs(p.matrix, T, { topK, threshold }) })));
    } else {
      if (this.arcs) { this.arcs.el.remove(); this.arcs = null; }
      const m = picked.length === 1 ? picked[0].matrix : aggregate(picked.map((p) => p.matrix), 'mean');
      if (!this.matrix || this.matrix.labels !== r.labels) {
        const holder = document.createElement('div');
        this.view.replaceChildren(holder);
        const names = r.labels.map(plainLabel);
        this.matrix = new Heatmap(holder, { rows: T, cols: T, cell: 18, rowLabels: names, colLabels: names, cellData: true,
          label: 'attention matrix: rows attend to columns' });
        this.matrix.labels = r.labels;
      }
      this.matrix.update(m, 1);
    }
    const what = `${typeof layer === 'number' ? `layer ${layer}` : `${layer} over layers`} · ${
      typeof head === 'number' ? `head ${head}` : head === 'all' ? 'all heads' : `${head} over heads`}`;
    this.caption.textContent = `${what} · ${info.name}`;
    this.result = { tokens: r.labels.map(plainLabel), ids: r.ids, attention: r.attention, shape: r.shape, layer, head, mode };
    this.dispatchEvent(new CustomEvent('arcscope-rendered', { detail: { tokens: T, layer, head, mode } }));
  }
}

if (!customElements.get('arc-scope')) customElements.define('arc-scope', ArcScopeElement);
