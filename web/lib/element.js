// element.js: the <arc-scope> custom element, for blog posts and docs (the guide: docs/embedding.md).
//   <script type="module" src="/lib/element.js"></script>
//   <arc-scope text="The trophy didn't fit in the bag because it was too big" layer="3" head="1"></arc-scope>
// Attributes (changing one re-renders): the table of them, each with how it is read, its default and its doc line,
// is element/arc-scope-attributes.js's ATTRIBUTES (the guide's table, docs/embedding.md, is written from there).
// An absent attribute means its default. Any other value that is not valid, an empty one included, is an error: the
// element shows it inside itself (role=alert) and fires arcscope-error; fixing the attribute renders again.
// Properties: each attribute has a property of its name that returns the attribute's string, or null when absent,
// and sets it (null or undefined removes it, anything else is set as a string). `data` (no attribute) takes an object
// in src's JSON shape; its attention may be a Float32Array. The attention comes from one of data, src or a model:
// giving two is an error, and so is text with data or src (their tokens come with the attention).
// Children (an <img> of the arcs for feed readers, say) show until the first drawing, then hide.
// Events: arcscope-ready ({model, config, layers, heads, build}: a model or attention data loaded, each time it changes;
// config and build are null for data and src), arcscope-rendered ({tokens, layer, head, mode}; element.result =
// {tokens, ids, attention, shape, layer, head, mode, pattern(), drawnArcs()}) and arcscope-error ({message}), once
// per failed render. result.attention is the whole [L, H, T, T] tensor when it is at most 16 MB and null past that
// (GPT-2 small past 166 tokens); result.pattern(layer, head) gives any head's or aggregate's (T, T), exactly, always.
// Every element on a page shares one worker and one copy of each model. Styles live in a shadow root, so the host
// page's CSS and this element's cannot disturb each other; ::part(frame | view | caption | error) and the colour
// variables of css/views.css are the ways in.
import { assets, DEFAULT_MODEL_NAME } from './assets.js';
import { sharedEngine } from './worker-client.js';
import { ArcView } from './views/arcs.js';
import { Heatmap } from './views/heatmap.js';
import { renderHeadLegend } from './views/head-legend.js';
import { groupOf, groupLabel } from './shared/head-groups.js';
import { filterArcs, aggregate, topKFor, sinkChoice } from './shared/attention-math.js';
import { EngineAttention, TensorAttention, selectView, withoutSink } from './views/attention-source.js';
import { displayPiece, plainLabel } from './shared/token-text.js';
import { parseAttention } from './views/attention-data.js';
import { PromiseCache } from './shared/promise-cache.js';
import { fetchBytes } from './shared/downloads.js';
import { ATTRIBUTE_NAMES, readAttribute } from './element/arc-scope-attributes.js';
import { ablationOptions, drawAblation, withAblationSweep } from './element/ablation-mode.js';

const DEFAULT_MODEL = assets.model.href;
// The element's stylesheets, linked from its shadow root. ?no-inline keeps each a file under Vite, which would
// otherwise inline a small one (arc-scope.css) as a data: URL that a strict style-src blocks; Vite drops the query
// from the URL it writes, and a plain server ignores it.
const STYLES = [new URL('./css/views.css?no-inline', import.meta.url).href,
  new URL('./css/arc-scope.css?no-inline', import.meta.url).href];

// The analyses (a model's on a text, or a src file), shared by elements, least recently used first. Bounded by the
// bytes of the attention tensors they hold and by their number (thousands of short texts would cost little attention
// but more than their labels). A long text holds no tensor: the worker computes the heads its views show
// (attention-source.js).
const CACHE_BYTES = 64 << 20;
// A model's analysis carries its whole [L, H, T, T] tensor (element.result.attention) up to this size: GPT-2 small
// up to 166 tokens, the default model up to 512.
const FULL_TENSOR_BYTES = 16 << 20;
const CACHE_ENTRIES = 256;
const analyses = new PromiseCache({ budget: CACHE_BYTES, maxEntries: CACHE_ENTRIES,
  sizeOf: (r) => (r.attention ?? r.heads?.data)?.byteLength ?? 0 }); // an ablation sweep holds its grid only

// The analysis under key, started by start() if it is not cached; a failed one is forgotten.
const cached = (key, start) => analyses.get(key, start);

// What the shared analysis cache holds (read-only; for tests and the curious).
export function analysisCache() {
  return { entries: analyses.size, bytes: analyses.bytes, budget: CACHE_BYTES, maxEntries: CACHE_ENTRIES };
}

// A src file, fetched by shared/downloads.js's download (no worker, no wasm), with its stall timeout (the page's own
// clock: setStallTimeout there) and a size bound, and read strictly. The bound counts the bytes as they arrive (a
// compressed body as it inflates), so an endless or a compression-bomb file stops there: 64 MB is about the JSON
// (some 17 bytes a weight) of the 16 MB tensor the element keeps whole.
const SRC_BYTES = 64e6;
const SRC_WORDING = {
  unreachable: (href, e) => `could not load ${href} (offline, blocked by the page's Content-Security-Policy: its ` +
    `connect-src must allow this URL, or another origin without CORS): ${e.message}`,
  status: (href, response) => `could not load ${href}: HTTP ${response.status} ${response.statusText}`.trim(),
  webPage: (href) => `${href} is a web page, not attention JSON`,
};
async function fetchAttention(href) {
  const meta = {};
  const bytes = await fetchBytes(href, 'downloading', { meta, limit: SRC_BYTES, most: 'a src file may be',
    wording: SRC_WORDING });
  if (/^text\/html\b/i.test(meta.type)) throw new Error(SRC_WORDING.webPage(href));
  const body = new TextDecoder().decode(bytes);
  let json;
  try {
    json = JSON.parse(body);
  } catch (e) {
    throw new Error(`${href} is not JSON: ${e.message}`, { cause: e });
  }
  return precomputed(parseAttention(json, href));
}

// Parsed attention data as an analysis. Its tokens are token text, shown the way the engine's labels are.
function precomputed({ tokens, ids, attention, shape, model }) {
  const labels = tokens.map((t, i) => ({ ...displayPiece(t), continuation: false, group: [i, i + 1] }));
  return { name: model, config: null, ids, labels, attention, shape, source: new TensorAttention(attention, shape) };
}

// A model's analysis of text: the analyze op's, with its whole tensor when that is small, else its heads from the
// worker as the views need them.
async function analysis(worker, key, text) {
  const r = await worker.call('analyze', { model: key, text, topk: 5 });
  const [L, H, T] = r.shape;
  if (L * H * T * T * 4 > FULL_TENSOR_BYTES) {
    return { ...r, attention: null, source: new EngineAttention(worker, key, r.ids, r.shape) };
  }
  const { data } = await worker.call('attentionTensor', { model: key, ids: r.ids });
  return { ...r, attention: data, source: new TensorAttention(data, r.shape) };
}

// Outside a browser (a server-side rendering build in Node: Astro, VitePress, Next) there is no HTMLElement: the
// module still imports, with the same exports, and defines no element (see the end of this file).
const ElementBase = globalThis.HTMLElement ?? class {};

export class ArcScopeElement extends ElementBase {
  static observedAttributes = ATTRIBUTE_NAMES;

  result = null;
  #data = null;
  #parsed = null;      // {from, value}: the data property's object and its reading
  #announced = null;   // the source the last arcscope-ready was for
  #near = false;       // loading="lazy": the element has come near the viewport
  #observer = null;
  #pending = false;
  #renders = 0;
  #arcs = null;
  #matrix = null;
  #effects = null;     // mode="ablation": the layer x head heatmap
  #fallback; #view; #legend; #caption; #error;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    for (const href of STYLES) {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = href;
      root.append(link);
    }
    const part = (tag, name) => {
      const el = document.createElement(tag);
      el.className = name;
      el.setAttribute('part', name);
      return el;
    };
    const frame = part('figure', 'frame');
    this.#fallback = document.createElement('slot'); // the children, until the first drawing
    this.#view = part('div', 'view');
    this.#legend = part('p', 'legend');  // arcs of every head: which colour is which head
    this.#legend.hidden = true;
    this.#caption = part('figcaption', 'caption');
    this.#error = part('p', 'error');
    this.#error.setAttribute('role', 'alert');
    this.#error.hidden = true;
    frame.append(this.#fallback, this.#view, this.#legend, this.#caption, this.#error);
    root.append(frame);
  }

  connectedCallback() {
    // A property set before this module loaded is an own property that hides the accessor: pass it on.
    for (const name of [...ATTRIBUTE_NAMES, 'data']) {
      if (!Object.hasOwn(this, name)) continue;
      const value = this[name];
      delete this[name];
      this[name] = value;
    }
    this.#schedule();
  }

  disconnectedCallback() { this.#stopWatching(); }
  attributeChangedCallback() { this.#schedule(); }

  get data() { return this.#data; }
  set data(value) {
    this.#data = value ?? null;
    this.#schedule();
  }

  // Attribute changes arrive one by one; render once after the current task.
  #schedule() {
    if (this.#pending || !this.isConnected) return;
    this.#pending = true;
    queueMicrotask(() => { this.#pending = false; this.#render(); });
  }

  // The attribute's value, or its default when it is absent (arc-scope-attributes.js); context: {layers, heads} once
  // the shape is known.
  #read(name, context = {}) {
    return readAttribute(name, this.getAttribute(name), { base: document.baseURI, ...context });
  }

  async #render() {
    const ticket = ++this.#renders;
    try {
      // Everything that needs no download is checked first: a bad value shows before anything loads.
      const view = {
        mode: this.#read('mode'),
        topK: this.#read('topk'),
        threshold: this.#read('threshold'),
        sink: this.#read('sink'),
      };
      this.#read('theme'); // applied by the CSS (:host([theme])); read to refuse bad values
      const lazy = this.#read('loading') === 'lazy';
      // ablate's value is refused when it is not valid, in any mode.
      const sweep = ablationOptions(view.mode, this.#read('ablate'), (name) => this.getAttribute(name));
      const src = this.#read('src');
      const model = this.#read('model');
      const given = [this.#data !== null && 'the data property', src !== null && 'src', model !== null && 'model']
        .filter(Boolean);
      if (given.length > 1) throw new Error(`${given[0]} and ${given[1]} are both set: give one source of attention`);
      const live = this.#data === null && src === null;
      if (!live && this.hasAttribute('text')) {
        throw new Error(`text is not used with ${given[0]}, whose tokens come with the attention: remove text`);
      }
      if (sweep && !live) throw new Error(`mode "ablation" runs the model on text: it cannot use ${given[0]}`);
      const text = live ? this.#text() : null;
      if (lazy && !this.#near) {
        // layer and head: their form now, so an element off screen says at once; their range once the shape is known
        if (this.hasAttribute('layer')) this.#read('layer');
        if (this.hasAttribute('head')) this.#read('head');
        this.#waitForViewport();
        return;
      }
      this.#stopWatching();
      if (!this.result) this.#caption.textContent = live ? 'loading the model…' : 'loading the attention…';
      let r;
      if (live) r = await (sweep ? this.#ablation(model ?? DEFAULT_MODEL, text, sweep) : this.#analyze(model ?? DEFAULT_MODEL, text));
      else {
        r = this.#data !== null ? this.#readData() : await cached(`src\n${src}`, () => fetchAttention(src));
        this.#announce(this.#data ?? src, r.name, null, r.shape);
      }
      const [L, H] = r.shape;
      view.layer = this.#read('layer', { layers: L, heads: H });
      view.head = this.#read('head', { layers: L, heads: H });
      if (ticket !== this.#renders) return; // a newer render superseded this one
      if (sweep) this.#drawAblation(r, view);
      else {
        const picked = await selectView(r.source, view);
        if (ticket !== this.#renders) return;
        this.#draw(r, view, picked);
      }
    } catch (e) {
      if (ticket !== this.#renders) return;
      // Whatever failed (a rejection that is not an Error included), the element says so rather than stay blank.
      const message = (e instanceof Error ? e.message : String(e)) || 'something failed without saying what';
      if (!this.result) this.#caption.textContent = '';
      this.#error.textContent = `arc-scope: ${message}`;
      this.#error.hidden = false;
      this.dispatchEvent(new CustomEvent('arcscope-error', { detail: { message } }));
    }
  }

  // The text attribute, else the text content. Child elements are a fallback for readers without the element, so
  // with them the text must be given as the attribute.
  #text() {
    const text = this.getAttribute('text');
    if (text !== null) return text;
    if (this.children.length > 0) {
      throw new Error('give the text attribute: the child elements are the fallback shown until the drawing, ' +
        'not the text');
    }
    return this.textContent.trim();
  }

  // The model's analysis of text (sharedEngine() throwing, a worker that cannot start and a failed download all
  // reject here); arcscope-ready fires once the model is in memory.
  async #analyze(modelUrl, text) {
    const worker = sharedEngine();
    const { build } = await worker.ready;
    const info = await worker.loadModel(modelUrl);
    // The default model by its own name, not by its URL's (a bundler's copy has a hash in it).
    const name = info.key === DEFAULT_MODEL ? DEFAULT_MODEL_NAME : info.name;
    this.#announce(info.key, name, info.config, [info.config.n_layer, info.config.n_head], build);
    const r = await cached(`${info.key}\n${text}`, () => analysis(worker, info.key, text));
    return { ...r, name, config: info.config };
  }

  // mode="ablation": the text's analysis (its tokens and attention, shared with the other modes) and the ablation
  // sweep on its ids (ablation-mode.js), both from the shared cache.
  async #ablation(modelUrl, text, options) {
    const r = await this.#analyze(modelUrl, text);
    const worker = sharedEngine();
    const { key } = await worker.loadModel(modelUrl);
    return withAblationSweep(worker, key, text, r, options, cached);
  }

  // The data property, read once per object assigned.
  #readData() {
    if (this.#parsed?.from !== this.#data) {
      this.#parsed = { from: this.#data, value: precomputed(parseAttention(this.#data, 'data')) };
    }
    return this.#parsed.value;
  }

  // build: the engine's (engine.build: which module runs, on how many threads and why), null without the engine.
  #announce(source, model, config, [layers, heads], build = null) {
    if (source === this.#announced) return;
    this.#announced = source;
    this.dispatchEvent(new CustomEvent('arcscope-ready', { detail: { model, config, layers, heads, build } }));
  }

  // loading="lazy": the render waits until the element comes within 200px of the viewport.
  #waitForViewport() {
    this.#error.hidden = true;
    if (!this.result) this.#caption.textContent = 'loads when scrolled into view';
    if (this.#observer) return;
    this.#observer = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      this.#near = true;
      this.#stopWatching();
      this.#schedule();
    }, { rootMargin: '200px' });
    this.#observer.observe(this);
  }

  #stopWatching() {
    this.#observer?.disconnect();
    this.#observer = null;
  }

  // picked: the view's matrices (attention-source.js's selectView).
  #draw(r, { layer, head, mode, topK, threshold, sink }, drawn) {
    const T = r.labels.length;
    // The first token as asked, or hidden where it takes most of the rows drawn (sink="auto": many decoders' heads).
    const first = sinkChoice({ auto: 'auto', shown: true, hidden: false }[sink], drawn.map((p) => p.matrix), T);
    const picked = first.show ? drawn : withoutSink(drawn, T);
    this.#error.hidden = true;
    this.#fallback.hidden = true;
    if (this.#effects) { this.#effects.root.remove(); this.#effects = null; }
    if (mode === 'arcs') {
      if (this.#matrix) { this.#matrix.root.remove(); this.#matrix = null; }
      if (!this.#arcs) this.#arcs = new ArcView(this.#view, { label: `Attention arcs, layer ${layer}, head ${head}` });
      if (this.#arcs.labels !== r.labels) this.#arcs.setTokens(r.labels);
      const filter = { topK: topKFor(topK, T), threshold };
      this.#arcs.setArcs(picked.map((p) => ({ head: p.head, arcs: filterArcs(p.matrix, T, filter) })));
    } else {
      if (this.#arcs) { this.#arcs.el.remove(); this.#arcs = null; }
      const m = picked.length === 1 ? picked[0].matrix : aggregate(picked.map((p) => p.matrix), 'mean');
      if (!this.#matrix || this.#matrix.labels !== r.labels) {
        const holder = document.createElement('div');
        this.#view.replaceChildren(holder);
        const names = r.labels.map(plainLabel);
        this.#matrix = new Heatmap(holder, { rows: T, cols: T, cell: 18, rowLabels: names, colLabels: names,
          cellData: true, label: 'attention matrix: rows attend to columns' });
        this.#matrix.labels = r.labels;
      }
      this.#matrix.update(m, 1);
    }
    const H = r.shape[1];
    this.#legend.hidden = !(mode === 'arcs' && head === 'all');
    if (!this.#legend.hidden) renderHeadLegend(this.#legend, H, null, r.config?.n_kv_head);
    // A matrix has one colour: with head "all" it shows the heads' mean, and says so.
    const heads = head !== 'all' ? `${head} over heads` : mode === 'matrix' && H > 1 ? `mean of ${H} heads` : 'all heads';
    // A query head of a grouped-query model names the heads it shares its keys and values with.
    const group = typeof head === 'number' ? groupOf(head, H, r.config?.n_kv_head) : null;
    const what = `${typeof layer === 'number' ? `layer ${layer}` : `${layer} over layers`} · ${
      typeof head === 'number' ? `head ${head}` : heads}${group ? ` (${groupLabel(group)})` : ''}`;
    const hidden = first.show ? '' : sink === 'auto' ? ` · first token hidden: it takes ${Math.round(first.share * 100)}% ` +
      'of each row (sink="shown" draws it)' : ' · first token hidden';
    this.#caption.textContent = `${what}${r.name ? ` · ${r.name}` : ''}${hidden}`;
    this.result = this.#resultOf(r, { layer, head, mode, sink: first.show ? 'shown' : 'hidden' });
    this.dispatchEvent(new CustomEvent('arcscope-rendered', { detail: { tokens: T, layer, head, mode } }));
  }

  // mode="ablation": the layer x head heatmap of the sweep (ablation-mode.js). layer and head given together as
  // integers outline that head's cell; a redrawing (an attribute changed) keeps the focus on the cell that had it.
  #drawAblation(r, { layer, head, mode }) {
    const focused = this.#effects?.cells.indexOf(this.shadowRoot.activeElement) ?? -1;
    this.#error.hidden = true;
    this.#fallback.hidden = true;
    this.#legend.hidden = true;
    this.#arcs = null;
    this.#matrix = null;
    const marked = this.hasAttribute('layer') && typeof layer === 'number' && typeof head === 'number'
      ? layer * r.sweep.shape[1] + head : -1;
    const { effects, caption, ablation } = drawAblation(this.#view, r.sweep, { marked, focused, kvHeads: r.config?.n_kv_head });
    this.#effects = effects;
    this.#caption.textContent = `${caption} · ${r.name}`;
    this.result = this.#resultOf(r, { layer, head, mode, ablation });
    this.dispatchEvent(new CustomEvent('arcscope-rendered', { detail: { tokens: r.labels.length, layer, head, mode } }));
  }

  // element.result: what was drawn, the text's tokens, and its attention: the whole tensor when small (null
  // otherwise), any head's or aggregate's exact (T, T) on demand, and the arcs drawn (whichever back end drew them).
  #resultOf(r, drawn) {
    const arcs = drawn.mode === 'arcs' ? this.#arcs : null;
    return { tokens: r.labels.map(plainLabel), ids: r.ids, attention: r.attention, shape: r.shape, ...drawn,
      pattern: (layer, head) => r.source.matrix(layer, head), drawnArcs: () => arcs?.drawnArcs() ?? [] };
  }
}

// Each attribute as a property of the same name: the attribute's string or null; setting null removes it.
for (const name of ATTRIBUTE_NAMES) {
  Object.defineProperty(ArcScopeElement.prototype, name, {
    get() { return this.getAttribute(name); },
    set(value) {
      if (value == null) this.removeAttribute(name);
      else this.setAttribute(name, value);
    },
    enumerable: true,
    configurable: true,
  });
}

if (globalThis.customElements && !customElements.get('arc-scope')) customElements.define('arc-scope', ArcScopeElement);
