// arc-scope.js: the <arc-scope> custom element, for blog posts and docs.
//   <script type="module" src="/lib/arc-scope.js"></script>
//   <arc-scope text="The trophy didn't fit in the bag because it was too big" model="models/shakespeare-4l.q8.arcs"
//              layer="3" head="1" mode="arcs"></arc-scope>
// Attributes: text, model (URL of an .arcs file), layer (number | mean | max), head (number | all | mean | max),
// mode (arcs | matrix), topk (arcs per token, 0 = all), threshold (minimum weight). Changing one re-renders.
// Events: arcscope-ready (model loaded), arcscope-rendered (drawn; element.result = {tokens, attention, shape}).
// Every element on a page shares one worker and one copy of each model. Styles live in a shadow root, so the host
// page's CSS and this element's cannot disturb each other; errors are shown inside the element.
import { sharedEngine } from './worker-client.js';
import { ArcView } from '../js/arcs.js';
import { Heatmap } from '../js/heatmap.js';
import { selectMatrices, filterArcs, aggregate } from '../js/attention-math.js';
import { plainLabel } from '../js/token-text.js';

const DEFAULT_MODEL = new URL('../models/shakespeare-4l.q8.arcs', import.meta.url).href;
const STYLES = [new URL('../css/views.css', import.meta.url).href, new URL('../css/arc-scope.css', import.meta.url).href];
const analyses = new Map(); // `${model}\n${text}` -> Promise of the worker's analysis, shared by elements

function analysis(engine, model, text) {
  const key = `${model}\n${text}`;
  if (!analyses.has(key)) {
    const p = engine.call('analyze', { model, text, topk: 5 });
    p.catch(() => analyses.delete(key));
    analyses.set(key, p);
  }
  return analyses.get(key);
}

const choice = (value, words, fallback) => {
  if (words.includes(value)) return value;
  const n = Number(value);
  return value !== null && value !== '' && Number.isInteger(n) && n >= 0 ? n : fallback;
};

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

  async render() {
    const ticket = ++this.renders;
    const engine = sharedEngine();
    const text = this.getAttribute('text') ?? this.textContent.trim();
    const modelUrl = new URL(this.getAttribute('model') || DEFAULT_MODEL, document.baseURI).href;
    try {
      const info = await engine.loadModel(modelUrl);
      if (!this.ready) {
        this.ready = true;
        this.dispatchEvent(new CustomEvent('arcscope-ready', { detail: { model: info.name, config: info.config } }));
      }
      const r = await analysis(engine, info.key, text);
      if (ticket !== this.renders) return; // a newer render superseded this one
      this.draw(info, r);
    } catch (e) {
      if (ticket !== this.renders) return;
      this.error.textContent = `arc-scope: ${e.message}`;
      this.error.hidden = false;
      this.dispatchEvent(new CustomEvent('arcscope-error', { detail: { message: e.message } }));
    }
  }

  draw(info, r) {
    const { n_layer: L, n_head: H } = info.config;
    const layer = choice(this.getAttribute('layer'), ['mean', 'max'], L - 1);
    const head = choice(this.getAttribute('head'), ['all', 'mean', 'max'], 'all');
    if (typeof layer === 'number' && layer >= L) throw new Error(`layer ${layer} does not exist: the model has ${L} layers`);
    if (typeof head === 'number' && head >= H) throw new Error(`head ${head} does not exist: the model has ${H} heads`);
    const mode = this.getAttribute('mode') === 'matrix' ? 'matrix' : 'arcs';
    const topK = Math.max(0, Number(this.getAttribute('topk')) || 0);
    const threshold = Number(this.getAttribute('threshold') ?? 0.02) || 0;
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
