// explorer.js: section 5, what the loaded model attends to on the user's text. Owns the view state (mirrored in the
// URL hash by main.js), asks the worker for a forward pass when the text changes, and redraws cheaply otherwise.
import { ArcView } from '../lib/arcs.js';
import { Heatmap } from '../lib/heatmap.js';
import { ThumbGrid } from './thumbs.js';
import { renderHeadScores, renderTaughtNote, taughtHeads } from './head-scores.js';
import { selectMatrices, filterArcs, topAttended, aggregate, growAttention, topKFor, AUTO_ALL_TOKENS, AUTO_TOP_K }
  from '../lib/attention-math.js';
import { plainLabel } from '../lib/token-text.js';
import { headColor } from '../lib/palette.js';
import { buildSvg, svgText, drawPng, download } from './export.js';

const $ = (id) => document.getElementById(id);
const GPT2_CONTEXT = 1024; // GPT-2 small's n_ctx (and that of every GPT-2 size)

export class Explorer {
  constructor(engine, state, onChange) {
    this.engine = engine;
    this.state = state;
    this.onChange = onChange;      // called after any state change (main.js writes the hash)
    this.model = null;             // {key, name, config}
    this.result = null;            // {ids, labels, attention, shape, next}
    this.focusIndex = null;        // query token under hover/focus (top-5 table follows it)
    this.request = 0;
    this.arcs = new ArcView($('view'), { onFocus: (side, i) => this.onFocus(side, i) });
    this.thumbs = new ThumbGrid($('thumbs'), (l, h) => this.set({ layer: l, head: h }));
    this.matrix = null;
    this.bindControls();
  }

  bindControls() {
    const s = this.state;
    $('text').value = s.text;
    let timer = 0;
    $('text').addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        Object.assign(this.state, { text: $('text').value, token: null });
        this.onChange(this.state);
        this.analyze();
      }, 200);
    });
    $('layer').addEventListener('change', (e) => this.set({ layer: word(e.target.value) }));
    $('head').addEventListener('change', (e) => this.set({ head: word(e.target.value) }));
    $('topk').addEventListener('change', (e) => this.set({ topk: word(e.target.value) }));
    $('topk').options[0].textContent = `auto: all, top ${AUTO_TOP_K} past ${AUTO_ALL_TOKENS} tokens`;
    $('threshold').addEventListener('input', (e) => this.set({ threshold: Number(e.target.value) }));
    $('sink').addEventListener('change', (e) => this.set({ sink: e.target.checked }));
    for (const r of document.querySelectorAll('input[name="mode"]')) {
      r.addEventListener('change', (e) => this.set({ mode: e.target.value }));
    }
    $('generate').addEventListener('click', () => this.generate());
    $('export-svg').addEventListener('click', () => this.exportSvg());
    $('export-png').addEventListener('click', () => this.exportPng());
    $('copy-link').addEventListener('click', () => this.copyLink());
    document.querySelector('.arc-table').addEventListener('toggle', () => this.renderArcTable());
    this.syncControls();
  }

  syncControls() {
    const s = this.state;
    if ($('text').value !== s.text) $('text').value = s.text;
    $('topk').value = String(s.topk);
    $('threshold').value = String(s.threshold);
    $('threshold-out').textContent = s.threshold.toFixed(2);
    $('sink').checked = s.sink;
    for (const r of document.querySelectorAll('input[name="mode"]')) r.checked = r.value === s.mode;
    if (this.model) {
      $('layer').value = String(s.layer);
      $('head').value = String(s.head);
    }
  }

  set(patch) {
    Object.assign(this.state, patch);
    this.syncControls();
    this.redraw();
    this.onChange(this.state);
  }

  // Shows a text in a given view (the article's experiment): the text is run again only if it changed.
  async show(patch) {
    const textChanged = patch.text !== undefined && patch.text !== this.state.text;
    Object.assign(this.state, patch);
    this.syncControls();
    this.onChange(this.state);
    if (textChanged) await this.analyze();
    else this.redraw();
  }

  // A model was loaded: rebuild the selects and grids for its shape, then run the text through it. keepView keeps a
  // link's layer and head; a model the reader loads opens on its own default view.
  setModel(info, { keepView = true } = {}) {
    this.model = info;
    $('head-legend').replaceChildren();
    const { n_layer: L, n_head: H } = info.config;
    const s = this.state;
    if (!keepView) Object.assign(s, { layer: null, head: null, token: null });
    const gpt2Small = L === 12 && H === 12; // GPT-2 small's layout (a narrow test model of that shape too)
    // The article looks at layer 8, head 5 of GPT-2 small; other models open on all heads of the last layer.
    if (!(typeof s.layer === 'number' && s.layer < L) && s.layer !== 'mean' && s.layer !== 'max') s.layer = gpt2Small ? 8 : L - 1;
    if (!(typeof s.head === 'number' && s.head < H) && !['all', 'mean', 'max'].includes(s.head)) s.head = gpt2Small ? 5 : 'all';
    fillSelect($('layer'), L, [['mean', 'mean of layers'], ['max', 'max of layers']], 'layer');
    fillSelect($('head'), H, [['all', 'all heads'], ['mean', 'mean of heads'], ['max', 'max of heads']], 'head');
    this.thumbs.build(L, H);
    this.syncControls();
    this.onChange(this.state);
    const drawn = this.analyze(); // queued first in the worker: the arcs come before the head scores
    this.loadScores();
    return drawn;
  }

  async loadScores() {
    const root = $('scores');
    root.previousElementSibling?.classList.contains('legend') && root.previousElementSibling.remove();
    const taught = taughtHeads(this.model.key), { n_layer: L, n_head: H } = this.model.config;
    renderTaughtNote($('taught-note'), [], 0);
    try {
      const model = this.model;
      const scores = await this.engine.call('headScores', { model: model.key });
      if (model !== this.model) return; // another model was loaded meanwhile; its own scores are on their way
      renderHeadScores(root, scores, (l, h) => this.set({ layer: l, head: h }), { taught });
      renderTaughtNote($('taught-note'), taught, L * H, () => $('open-loader').click());
    } catch (e) {
      const p = document.createElement('p');
      p.className = 'message';
      p.textContent = `Head scores are not available: ${e.message}`;
      root.replaceChildren(p);
    }
  }

  // Tokenizes first (quick), so the counter shows the length against the model's context before the model runs, and
  // a text too long for it is refused with advice; then the forward pass on those ids. Any failure clears the old
  // drawing: arcs of a previous text under an error would look like this text's.
  async analyze() {
    if (!this.model) return;
    const id = ++this.request;
    const { key } = this.model, text = this.state.text;
    $('view').classList.add('busy');
    try {
      const { ids } = await this.engine.call('tokenize', { text });
      if (id !== this.request) return; // a newer text is on its way
      this.showCount(ids.length);
      if (ids.length > this.model.config.n_ctx) throw new Error(this.tooLong(ids.length, text));
      const r = await this.engine.call('analyze', { model: key, ids });
      if (id !== this.request) return;
      this.showError(null);
      this.setResult(r);
    } catch (e) {
      if (id === this.request) { this.clearResult(); this.showError(e.message); }
    } finally {
      if (id === this.request) $('view').classList.remove('busy');
    }
  }

  // "37 / 256 tokens", marked as the text nears the model's context and when it is past it.
  showCount(n) {
    const max = this.model.config.n_ctx, el = $('token-count');
    el.textContent = `${n} / ${max} tokens`;
    el.classList.toggle('near', n > 0.9 * max && n <= max);
    el.classList.toggle('over', n > max);
  }

  tooLong(n, text) {
    const { n_ctx: max } = this.model.config, cut = n - max;
    const chars = Math.ceil((text.length * cut) / n); // tokens are about equally long in one text
    const more = max < GPT2_CONTEXT && n <= GPT2_CONTEXT
      ? `, or load GPT-2 small ("Load GPT-2 small…" at the top), which reads ${GPT2_CONTEXT.toLocaleString('en')} tokens` : '';
    return `The text is ${n} tokens long, and ${this.model.name} reads at most ${max}: shorten it by ${cut} ` +
      `token${cut === 1 ? '' : 's'} (about ${chars} character${chars === 1 ? '' : 's'})${more}.`;
  }

  // Nothing drawn: no arcs, matrix, thumbnails, top 5 or next tokens (the error above says why).
  clearResult() {
    this.result = null;
    this.focusIndex = null;
    this.arcs.setTokens([]);
    this.arcs.setArcs([]);
    this.matrix?.root.remove();
    this.matrix = null;
    this.thumbs.build(this.model.config.n_layer, this.model.config.n_head);
    $('top5-token').textContent = '…';
    $('top5-where').textContent = '';
    $('top5').tBodies[0].replaceChildren();
    $('next').replaceChildren();
    $('arc-table').replaceChildren();
  }

  // New tokens in the arcs view; a pinned token (a click, or a shared link's token=) stays pinned.
  showTokens(labels) {
    this.arcs.setTokens(labels);
    this.focusIndex = null;
    if (this.state.token !== null && this.state.token < labels.length) this.arcs.pin('from', this.state.token);
  }

  setResult(r) {
    this.result = r;
    const T = r.labels.length;
    if (this.state.token !== null && this.state.token >= T) this.state.token = null;
    this.showCount(T);
    this.showTokens(r.labels);
    this.matrix = null;
    this.thumbs.draw(r.attention, r.shape);
    this.renderNext(r.next);
    this.redraw();
    document.dispatchEvent(new CustomEvent('arcscope-rendered', { detail: { tokens: T } }));
  }

  // The matrices for the current layer/head choice, after the sink toggle.
  selection() {
    const { attention, shape } = this.result;
    return selectMatrices(attention, shape, { layer: this.state.layer, head: this.state.head, sink: this.state.sink });
  }

  redraw() {
    if (!this.result) return;
    const T = this.result.labels.length;
    const picked = this.selection();
    const arcsView = this.state.mode === 'arcs';
    this.arcs.el.hidden = !arcsView;
    if (this.matrix) this.matrix.root.hidden = arcsView;
    if (arcsView) {
      const filter = { topK: topKFor(this.state.topk, T), threshold: this.state.threshold };
      this.arcs.setArcs(picked.map(({ head, matrix }) => ({ head, arcs: filterArcs(matrix, T, filter) })));
    } else {
      this.drawMatrix(picked, T);
    }
    this.thumbs.select(this.state.layer, this.state.head);
    this.renderLegend();
    this.renderTop5();
    // A counter tests and benchmarks can wait on, and a mark for "interactive".
    const count = Number($('view').dataset.renders || 0) + 1;
    $('view').dataset.renders = String(count);
    if (count === 1) performance.mark('arcscope-first-render');
    if (document.querySelector('.arc-table').open) this.renderArcTable();
  }

  drawMatrix(picked, T) {
    const m = picked.length === 1 ? picked[0].matrix : aggregate(picked.map((p) => p.matrix), 'mean');
    if (!this.matrix || this.matrix.opt.rows !== T) {
      const holder = document.createElement('div');
      holder.className = 'matrix';
      const names = this.result.labels.map(plainLabel);
      this.matrix = new Heatmap(holder, { rows: T, cols: T, cell: 18, rowLabels: names, colLabels: names,
        cellData: true, label: 'attention matrix: rows attend to columns' });
      $('view').querySelector('.matrix')?.remove();
      $('view').append(holder);
    }
    this.matrix.root.hidden = false;
    this.matrix.update(m, 1);
  }

  // With all heads drawn, a key to their colours; clicking one shows that head alone.
  renderLegend() {
    const legend = $('head-legend');
    const H = this.model.config.n_head;
    legend.hidden = this.state.head !== 'all' || this.state.mode !== 'arcs';
    if (legend.hidden || legend.childElementCount === H) return;
    legend.replaceChildren(...Array.from({ length: H }, (_, h) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'chip';
      const key = document.createElement('span');
      key.className = 'key';
      key.style.setProperty('background', headColor(h));
      b.append(key, `head ${h}`);
      b.addEventListener('click', () => this.set({ head: h }));
      return b;
    }));
  }

  // The link's token= is the pinned query token, and only that: unpinning (a second click, Escape, focus leaving
  // the tokens) clears it, so the top-5 card never names a token that is not shown.
  onFocus(side, index) {
    this.focusIndex = side === 'from' ? index : null;
    const pinned = this.arcs.pinned?.side === 'from' ? this.arcs.pinned.index : null;
    if (pinned !== this.state.token) this.set({ token: pinned });
    else this.renderTop5();
  }

  // The article's printout: the 5 tokens the chosen token attends to most, in the current layer/head.
  renderTop5() {
    const r = this.result;
    if (!r) return;
    const T = r.labels.length;
    const query = this.focusIndex ?? this.state.token ?? defaultQuery(r.labels);
    const picked = this.selection();
    const m = picked.length === 1 ? picked[0].matrix : aggregate(picked.map((p) => p.matrix), 'mean');
    $('top5-token').textContent = plainLabel(r.labels[query]);
    $('top5-where').textContent = `token ${query}, ${describe(this.state)}${picked.length > 1 ? ' (mean of the heads shown)' : ''}`;
    const rows = topAttended(m, T, query, 5).map(({ index, weight }) => {
      const tr = document.createElement('tr');
      const a = document.createElement('td'), b = document.createElement('td');
      a.textContent = `${plainLabel(r.labels[index])}`;
      a.title = `token ${index}`;
      b.className = 'num-cell';
      b.textContent = weight.toFixed(3);
      tr.append(a, b);
      return tr;
    });
    $('top5').tBodies[0].replaceChildren(...rows);
  }

  // Screen readers get the arcs as a table: each query token with the keys it draws from.
  renderArcTable() {
    const holder = $('arc-table');
    if (!document.querySelector('.arc-table').open || !this.result) return;
    const labels = this.result.labels;
    const byQuery = new Map();
    for (const a of this.arcs.drawnArcs()) {
      if (!byQuery.has(a.from)) byQuery.set(a.from, []);
      byQuery.get(a.from).push(a);
    }
    const table = document.createElement('table');
    const cap = document.createElement('caption');
    cap.textContent = `Arcs drawn for ${describe(this.state)}`;
    const head = table.createTHead().insertRow();
    for (const h of ['query token', 'attends to (weight)']) {
      const th = document.createElement('th');
      th.scope = 'col'; th.textContent = h;
      head.append(th);
    }
    table.append(cap);
    const body = table.createTBody();
    labels.forEach((label, i) => {
      const tr = body.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = `${i}: ${plainLabel(label)}`;
      const td = tr.insertCell();
      const arcs = (byQuery.get(i) || []).sort((a, b) => b.weight - a.weight).slice(0, 8);
      td.textContent = arcs.map((a) => `${plainLabel(labels[a.to])} (${a.weight.toFixed(3)}${a.head >= 0 && this.state.head === 'all' ? `, head ${a.head}` : ''})`).join(', ') || 'none above the filter';
      tr.prepend(th);
    });
    holder.replaceChildren(table);
  }

  renderNext(next) {
    $('next').replaceChildren(...(next || []).map(({ token, prob }) => {
      const li = document.createElement('li');
      const t = document.createElement('span');
      t.className = 't';
      t.textContent = token.replace(/ /g, '\u00B7').replace(/\n/g, '\u21B5');
      t.style.setProperty('--p', prob.toFixed(3));
      const p = document.createElement('span');
      p.className = 'p';
      p.textContent = `${(prob * 100).toFixed(1)}%`;
      li.append(t, p);
      return li;
    }));
  }

  // Appends tokens one by one through the KV cache; each new token brings one attention row per layer and head,
  // and the arcs grow with it. At the end one full forward refreshes the next-token list and the thumbnails.
  async generate() {
    if (!this.result) return;
    const button = $('generate');
    if (this.generating) { this.engine.cancel(this.generating); return; }
    button.textContent = 'Stop';
    this.request++; // a pending text analysis must not overwrite the generated tokens
    let { attention, shape } = this.result;
    const job = this.engine.call('generate', {
      model: this.model.key, ids: this.result.ids, maxTokens: Number($('gen-count').value) || 20,
      temperature: Number($('gen-temp').value) || 0, topK: 40, seed: 1 + (this.generations = (this.generations || 0) + 1),
    }, {
      onProgress: (p) => {
        ({ attention, shape } = growAttention(attention, shape, p.row));
        this.result = { ...this.result, ids: [...this.result.ids, p.id], labels: p.labels, attention, shape };
        this.state.text = p.text;
        this.showCount(p.labels.length);
        this.showTokens(p.labels);
        this.matrix = null;
        this.redraw();
        this.syncControls();
      },
    });
    this.generating = job;
    try {
      const { ids } = await job;
      this.setResult(await this.engine.call('analyze', { model: this.model.key, ids }));
      this.onChange(this.state);
    } catch (e) {
      this.showError(e.message);
    } finally {
      this.generating = null;
      button.textContent = 'Generate';
    }
  }

  exportTitle() {
    return `arcscope · ${this.model?.name ?? ''} · ${describe(this.state)}`;
  }

  exportSvg() {
    if (!this.result) return;
    const svg = buildSvg(this.result.labels, this.arcs.drawnArcs(), this.exportTitle());
    download(new Blob([svgText(svg)], { type: 'image/svg+xml' }), 'arcscope-attention.svg');
  }

  exportPng() {
    if (!this.result) return;
    const canvas = drawPng(this.result.labels, this.arcs.drawnArcs(), this.exportTitle());
    canvas.toBlob((blob) => download(blob, 'arcscope-attention.png'), 'image/png');
  }

  async copyLink() {
    const button = $('copy-link');
    try {
      await navigator.clipboard.writeText(location.href);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Copy the address bar';
    }
    setTimeout(() => { button.textContent = 'Copy link'; }, 1500);
  }

  showError(message) {
    const el = $('explore-error');
    el.hidden = !message;
    el.textContent = message || '';
  }
}

function word(v) {
  return /^\d+$/.test(v) ? Number(v) : v;
}

function fillSelect(select, n, extra, name) {
  const options = Array.from({ length: n }, (_, i) => new Option(`${name} ${i}`, String(i)));
  for (const [value, label] of extra) options.push(new Option(label, value));
  select.replaceChildren(...options);
}

export function describe(s) {
  const layer = typeof s.layer === 'number' ? `layer ${s.layer}` : `${s.layer} over layers`;
  const head = typeof s.head === 'number' ? `head ${s.head}` : s.head === 'all' ? 'all heads' : `${s.head} over heads`;
  return `${layer}, ${head}${s.sink ? '' : ', first token hidden'}`;
}

// The article asks what "it" attends to; otherwise the last token.
function defaultQuery(labels) {
  const it = labels.findIndex((l) => l.text.trim().toLowerCase() === 'it');
  return it >= 0 ? it : labels.length - 1;
}
