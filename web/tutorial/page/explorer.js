// explorer.js: section 5, what the loaded model attends to on the user's text. Owns the view state (mirrored in the
// URL hash by main.js), asks the worker for a forward pass when the text changes, and for the matrices of each view
// (attention-source.js: the worker computes the heads a view shows, exactly; the page never holds every head), then
// the thumbnails in the background. It measures itself: performance measures 'arcscope-typing-to-arcs' (the last
// keystroke to the text's arcs drawn), 'arcscope-analysis' (the worker's forward pass, round trip) and
// 'arcscope-view-switch' (a control changed to its view drawn).
import { ArcView } from '../../lib/views/arcs.js';
import { ThumbGrid } from '../views/thumbs.js';
import { renderHeadScores, renderTaughtNote } from '../views/heads-scores.js';
import { taughtHeads } from '../shared/default-model.js';
import { filterArcs, topAttended, aggregate, topKFor, sinkChoice, AUTO_ALL_TOKENS, AUTO_TOP_K } from '../../lib/shared/attention-math.js';
import { EngineAttention, GrowingAttention, selectView, withoutSink } from '../../lib/views/attention-source.js';
import { plainLabel } from '../../lib/shared/token-text.js';
import { renderHeadLegend } from '../../lib/views/head-legend.js';
import { kvGroups } from '../../lib/shared/head-groups.js';
import { buildSvg, drawPng, saveSvg, savePng } from '../views/export.js';
import { fillSelect, showTokenCount, messageParagraph, attentionMatrix, renderNextTokens, arcTable } from '../views/explorer-panels.js';
import { renderTopAttended } from '../views/top-attended.js';
import { isGpt2SmallShaped } from './gpt2-small.js';
import { analysisLength } from '../../lib/shared/model-memory.js';

const $ = (id) => document.getElementById(id);
const GPT2_CONTEXT = 1024; // GPT-2 small's n_ctx (and that of every GPT-2 size)

export class Explorer {
  constructor(worker, state, onChange, onLinkFallback = () => {}) {
    this.worker = worker;
    this.state = state;
    this.onChange = onChange;      // called after any state change (main.js writes the hash)
    this.onLinkFallback = onLinkFallback; // a link's setting this model or text does not have: (message) for the notice
    this.linkToken = state.token;  // a link's token, checked against the first text drawn
    this.model = null;             // {key, name, config}
    this.result = null;            // the text drawn: {ids, labels, shape, next}
    this.source = null;            // its attention (attention-source.js)
    this.latest = null;            // {result, source}: the text to draw, once its view's matrices arrive
    this.drawn = null;             // what the view shows: {result, picked: [{head, matrix}], view (the state drawn), source,
                                   //   shown (picked, the sink hidden or not), mean (of shown, when asked)}
    this.focusIndex = null;        // query token under hover/focus (top-5 table follows it)
    this.request = 0;
    this.drawTicket = 0;
    this.thumbJob = null;
    this.typedAt = null;           // when the text last changed by typing, for 'arcscope-typing-to-arcs'
    this.switchedAt = null;        // when a control last changed, for 'arcscope-view-switch'
    this.busyFor = new Set();      // why the view is dimmed: 'analysis', 'view'

    this.arcs = new ArcView($('view'), { onFocus: (side, i) => this.onFocus(side, i) });
    this.thumbs = new ThumbGrid($('thumbs'), (l, h) => this.set({ layer: l, head: h }));
    this.matrix = null;
    this.bindControls();
  }

  bindControls() {
    const s = this.state;
    $('text').value = s.text;
    // Typing never waits for a pause: a change is analysed at once when no analysis is on its way, else the latest
    // text when it arrives (the worker runs an edit only from its first changed token, and a result for a text that
    // has since changed is never drawn).
    $('text').addEventListener('input', () => {
      this.typedAt = performance.now();
      this.stopThumbnails(); // they are of the old text, and the worker would compute them before this one's analysis
      Object.assign(this.state, { text: $('text').value, token: null });
      this.onChange(this.state);
      this.analyzeLatest();
    });
    $('layer').addEventListener('change', (e) => this.set({ layer: word(e.target.value) }));
    $('head').addEventListener('change', (e) => this.set({ head: word(e.target.value) }));
    $('topk').addEventListener('change', (e) => this.set({ topk: word(e.target.value) }));
    $('topk').options[0].textContent = `auto: all, top ${AUTO_TOP_K} past ${AUTO_ALL_TOKENS} tokens`;
    $('threshold').addEventListener('input', (e) => this.set({ threshold: Number(e.target.value) }));
    $('sink').addEventListener('change', (e) => this.set({ sink: e.target.checked }));
    // What the default does with the first token, said under the controls (renderSinkNote).
    const sinkNote = Object.assign(document.createElement('p'), { className: 'notice', id: 'sink-note', hidden: true });
    sinkNote.setAttribute('role', 'status');
    $('link-notice').before(sinkNote);
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
    if (s.sink !== 'auto') $('sink').checked = s.sink; // 'auto': as the view drawn decides (draw)
    for (const r of document.querySelectorAll('input[name="mode"]')) r.checked = r.value === s.mode;
    if (this.model) {
      $('layer').value = String(s.layer);
      $('head').value = String(s.head);
    }
  }

  set(patch) {
    this.switchedAt = performance.now();
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
    const view = this.validView();
    if (keepView) {
      if (typeof s.layer === 'number' && s.layer !== view.layer) {
        this.onLinkFallback(`layer ${s.layer} is past ${info.name}'s ${L} layers (0 to ${L - 1})`);
      }
      if (typeof s.head === 'number' && s.head !== view.head) {
        this.onLinkFallback(`head ${s.head} is past ${info.name}'s ${H} heads (0 to ${H - 1})`);
      }
    }
    Object.assign(s, view);
    fillSelect($('layer'), L, [['mean', 'mean of layers'], ['max', 'max of layers']], 'layer');
    const groups = kvGroups(H, info.config.n_kv_head);
    fillSelect($('head'), H, [['all', 'all heads'], ['mean', 'mean of heads'], ['max', 'max of heads']], 'head', groups);
    this.thumbs.build(L, H, groups);
    this.syncControls();
    this.onChange(this.state);
    const drawn = this.analyze(); // queued first in the worker: the arcs come before the head scores
    this.loadScores();
    return drawn;
  }

  // {layer, head}: the state's if the model has them (a link's), else the model's own default view. The article looks
  // at layer 8, head 5 of GPT-2 small; other models open on all heads of the last layer.
  validView() {
    let { layer, head } = this.state;
    const { n_layer: L, n_head: H } = this.model.config;
    const gpt2Small = isGpt2SmallShaped(this.model.config);
    if (!(typeof layer === 'number' && layer < L) && layer !== 'mean' && layer !== 'max') layer = gpt2Small ? 8 : L - 1;
    if (!(typeof head === 'number' && head < H) && !['all', 'mean', 'max'].includes(head)) head = gpt2Small ? 5 : 'all';
    return { layer, head };
  }

  async loadScores() {
    const root = $('scores');
    root.previousElementSibling?.classList.contains('legend') && root.previousElementSibling.remove();
    const taught = taughtHeads(this.model.key), { n_layer: L, n_head: H, n_kv_head: KV } = this.model.config;
    renderTaughtNote($('taught-note'), [], 0);
    try {
      const model = this.model;
      const scores = await this.worker.call('headScores', { model: model.key });
      if (model !== this.model) return; // another model was loaded meanwhile; its own scores are on their way
      renderHeadScores(root, scores, (l, h) => this.set({ layer: l, head: h }), { taught, groups: kvGroups(H, KV) });
      renderTaughtNote($('taught-note'), taught, L * H, () => $('open-loader').click());
    } catch (e) {
      root.replaceChildren(messageParagraph(`Head scores are not available: ${e.message}`));
    }
  }

  // One typed analysis at a time: a change while one runs is analysed, as the text is then, when it finishes.
  analyzeLatest() {
    if (this.typing) { this.typedAgain = true; return; }
    this.typing = this.analyze().finally(() => {
      this.typing = null;
      if (this.typedAgain) { this.typedAgain = false; this.analyzeLatest(); }
    });
  }

  // One round trip: the analysis tells the token count as soon as it has tokenized (progress {tokens}), so the counter
  // shows the length against the model's context before the model runs, and a text too long for it is refused with
  // this page's advice. Any failure clears the old drawing: arcs of a previous text under an error would look like
  // this text's.
  async analyze() {
    if (!this.model) return;
    const id = ++this.request;
    const { key } = this.model, text = this.state.text;
    this.busy('analysis', true);
    let count = null;
    try {
      const counted = ({ tokens }) => {
        if (tokens === undefined || id !== this.request) return;
        count = tokens;
        this.showCount(tokens);
      };
      const started = performance.now();
      const r = await this.worker.call('analyze', { model: key, text }, { onProgress: counted });
      if (id !== this.request) return; // a newer text is on its way
      performance.measure('arcscope-analysis', { start: started, detail: { tokens: r.ids.length } });
      this.showCount(r.ids.length);
      await this.setResult(r, () => id === this.request);
    } catch (e) {
      if (id !== this.request) return;
      this.clearResult();
      this.showError(count > analysisLength(this.model.config) ? this.tooLong(count, text) : e.message);
    } finally {
      if (id === this.request) this.busy('analysis', false);
    }
  }

  // The view dims while an analysis or a slow view is on its way (the old drawing stays until the new one is ready).
  busy(why, on) {
    if (on) this.busyFor.add(why); else this.busyFor.delete(why);
    $('view').classList.toggle('busy', this.busyFor.size > 0);
  }

  showCount(n) {
    showTokenCount($('token-count'), n, analysisLength(this.model.config));
  }

  tooLong(n, text) {
    const max = analysisLength(this.model.config), cut = n - max;
    const chars = Math.ceil((text.length * cut) / n); // tokens are about equally long in one text
    const more = max < GPT2_CONTEXT && n <= GPT2_CONTEXT
      ? `, or load GPT-2 small ("Load GPT-2 small…" at the top), which reads ${GPT2_CONTEXT.toLocaleString('en')} tokens` : '';
    return `The text is ${n} tokens long, and ${this.model.name} reads at most ${max}: shorten it by ${cut} ` +
      `token${cut === 1 ? '' : 's'} (about ${chars} character${chars === 1 ? '' : 's'})${more}.`;
  }

  // Nothing drawn: no arcs, matrix, thumbnails, top 5 or next tokens (the error above says why).
  clearResult() {
    this.latest?.settle?.(false);
    this.result = this.source = this.latest = this.drawn = null;
    this.drawTicket++;
    this.stopThumbnails();
    this.focusIndex = null;
    this.arcs.setTokens([]);
    this.arcs.setArcs([]);
    this.matrix?.root.remove();
    this.matrix = null;
    this.renderSinkNote(null);
    const { n_layer: L, n_head: H, n_kv_head: KV } = this.model.config;
    this.thumbs.build(L, H, kvGroups(H, KV));
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

  // A new analysis (r: the analyze op's result; source: its attention, by default the worker's matrices for it):
  // drawn once its view's matrices arrive (by this call, or by a control changed meanwhile), then its thumbnails
  // follow in the background. current() says whether it is still the text wanted by then.
  async setResult(r, current = () => true, source = new EngineAttention(this.worker, this.model.key, r.ids, r.shape)) {
    if (this.state.token !== null && this.state.token >= r.labels.length) {
      if (this.state.token === this.linkToken) {
        this.onLinkFallback(`token ${this.state.token} is past the text's ${r.labels.length} tokens (0 to ` +
          `${r.labels.length - 1})`);
      }
      this.state.token = null;
    }
    this.linkToken = null;
    this.latest?.settle?.(false);
    const latest = this.latest = { result: r, source };
    const shown = new Promise((ok, fail) => Object.assign(latest, { settle: ok, fail }));
    this.drawView().catch(() => {}); // a failure rejects shown
    if (!await shown || !current()) return;
    this.showError(null);
    if (this.typedAt !== null) {
      performance.measure('arcscope-typing-to-arcs', { start: this.typedAt, detail: { tokens: r.labels.length } });
      this.typedAt = null;
    }
    this.renderNext(r.next);
    document.dispatchEvent(new CustomEvent('arcscope-rendered', { detail: { tokens: r.labels.length } }));
    if (source instanceof EngineAttention) this.loadThumbnails(source);
  }

  // Every head's thumbnail, a layer at a time, computed in the worker after the view (and behind any view asked for
  // meanwhile).
  loadThumbnails(source) {
    this.stopThumbnails();
    this.thumbs.clear();
    const job = source.thumbnails(64, (layer, data, size) => { if (this.source === source) this.thumbs.drawLayer(layer, data, size); });
    this.thumbJob = job;
    job.catch(() => {}).finally(() => { if (this.thumbJob === job) this.thumbJob = null; }); // cancelled, or superseded
  }

  stopThumbnails() {
    if (this.thumbJob) this.worker.cancel(this.thumbJob);
    this.thumbJob = null;
  }

  // Redraws the current view (a control changed); a failure is reported above the drawing, which stays.
  redraw() {
    this.drawView().catch((e) => { if (this.latest) this.showError(`This view could not be computed: ${e.message}`); });
  }

  // Draws the latest text in the current view once its matrices have arrived (the worker computes those it has not
  // sent yet). A later call supersedes an earlier one still waiting (-> false); until then the old drawing stays.
  async drawView() {
    const latest = this.latest;
    if (!latest) return false;
    // A link without layer or head leaves them unset until its model is set (main.js): meanwhile this model's default.
    const ticket = ++this.drawTicket, view = { ...this.state, ...this.validView() };
    const slow = setTimeout(() => this.busy('view', true), 150);
    // A filter, the sink or the mode changed: the matrices drawn are the ones to filter again.
    const d = this.drawn;
    const same = d?.result === latest.result && d.source === latest.source && d.view.layer === view.layer && d.view.head === view.head;
    let picked;
    try {
      picked = same ? d.picked : await selectView(latest.source, view);
    } catch (e) {
      if (this.latest === latest) latest.fail?.(e);
      throw e;
    } finally {
      clearTimeout(slow);
      if (ticket === this.drawTicket) this.busy('view', false);
    }
    if (ticket !== this.drawTicket) return false;
    if (latest.result !== this.result) {
      this.result = latest.result;
      this.source = latest.source;
      this.showCount(this.result.labels.length);
      this.showTokens(this.result.labels);
      this.matrix = null;
    }
    this.draw(picked, view, latest.source);
    latest.settle?.(true);
    if (typeof view.layer === 'number') latest.source.prefetchLayer?.(view.layer); // the switch to all its heads
    return true;
  }

  // The view's matrices (from source) drawn as arcs or as a matrix, with the legend, the top-5 table and the counter.
  // The first token is shown or hidden as the switch says, or, until the reader sets it, as the rows' mass says.
  draw(picked, asked, source) {
    const T = this.result.labels.length;
    const sink = sinkChoice(asked.sink, picked.map((p) => p.matrix), T), view = { ...asked, sink: sink.show };
    this.drawn = { result: this.result, picked, view, source, shown: view.sink ? picked : withoutSink(picked, T), mean: null };
    $('sink').checked = view.sink;
    this.renderSinkNote(asked.sink === 'auto' && !view.sink ? sink.share : null);
    const arcsView = view.mode === 'arcs';
    this.arcs.el.hidden = !arcsView;
    if (this.matrix) this.matrix.root.hidden = arcsView;
    if (arcsView) {
      const filter = { topK: topKFor(view.topk, T), threshold: view.threshold };
      this.arcs.setArcs(this.drawn.shown.map(({ head, matrix }) => ({ head, arcs: filterArcs(matrix, T, filter) })));
    } else {
      this.drawMatrix(this.drawnMatrix(), T);
    }
    this.thumbs.select(view.layer, view.head);
    this.renderLegend();
    this.renderTop5();
    // A counter tests and benchmarks can wait on, and a mark for "interactive".
    const count = Number($('view').dataset.renders || 0) + 1;
    $('view').dataset.renders = String(count);
    if (count === 1) performance.mark('arcscope-first-render');
    if (this.switchedAt !== null) {
      performance.measure('arcscope-view-switch', { start: this.switchedAt, detail: { tokens: T } });
      this.switchedAt = null;
    }
    if (document.querySelector('.arc-table').open) this.renderArcTable();
  }

  // The one matrix of the view drawn: its head, or the mean of the heads shown.
  drawnMatrix() {
    const d = this.drawn;
    d.mean ??= d.shown.length === 1 ? d.shown[0].matrix : aggregate(d.shown.map((p) => p.matrix), 'mean');
    return d.mean;
  }

  drawMatrix(m, T) {
    if (!this.matrix || this.matrix.opt.rows !== T) {
      this.matrix = attentionMatrix(this.result.labels);
      $('view').querySelector('.matrix')?.remove();
      $('view').append(this.matrix.root);
    }
    this.matrix.root.hidden = false;
    this.matrix.update(m, 1);
  }

  // What the default did with the first token, when it hid it (share: of each row it took, else null).
  renderSinkNote(share) {
    const note = $('sink-note');
    note.hidden = share === null;
    if (share === null) return;
    note.textContent = `The first token takes ${Math.round(share * 100)}% of each row here (a "sink", where heads ` +
      'park attention they do not need): it is hidden and each row rescaled, so the other arcs show. Tick ' +
      '"attention to first token" to see it.';
  }

  // With all heads drawn, a key to their colours; clicking one shows that head alone.
  renderLegend() {
    const legend = $('head-legend');
    legend.hidden = this.state.head !== 'all' || this.state.mode !== 'arcs';
    const { n_head: H, n_kv_head: KV } = this.model.config;
    if (!legend.hidden) renderHeadLegend(legend, H, (h) => this.set({ head: h }), KV);
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
    if (!r || !this.drawn) return;
    const T = r.labels.length;
    const query = this.focusIndex ?? this.state.token ?? defaultQuery(r.labels);
    const { shown, view } = this.drawn;
    // The query's row of the view: its head's, or the mean of the heads shown (as the matrix view shows them).
    const rows = shown.map(({ matrix }) => matrix.subarray(query * T, query * T + T));
    const row = rows.length === 1 ? rows[0] : aggregate(rows, 'mean');
    $('top5-token').textContent = plainLabel(r.labels[query]);
    $('top5-where').textContent = `token ${query}, ${describe(view)}${shown.length > 1 ? ' (mean of the heads shown)' : ''}`;
    renderTopAttended($('top5').tBodies[0], r.labels, topAttended(row, T, 0, 5));
  }

  // Screen readers get the arcs as a table: each query token with the keys it draws from.
  renderArcTable() {
    if (!document.querySelector('.arc-table').open || !this.result) return;
    $('arc-table').replaceChildren(arcTable(this.result.labels, this.arcs.drawnArcs(),
      { caption: `Arcs drawn for ${describe(this.drawn?.view ?? this.state)}`, withHeads: this.state.head === 'all' }));
  }

  renderNext(next) {
    renderNextTokens($('next'), next);
  }

  // Appends tokens one by one through the KV cache; each new token brings one attention row per layer and head,
  // and the arcs grow with it. At the end one full forward refreshes the next-token list and the thumbnails.
  async generate() {
    if (!this.result) return;
    const button = $('generate');
    if (this.generating) { this.worker.cancel(this.generating); return; }
    button.textContent = 'Stop';
    this.request++; // a pending text analysis must not overwrite the generated tokens
    this.stopThumbnails();
    // The prompt's heads grow a row per token; the worker runs nothing else until the generation ends, so the heads
    // of the view on screen are the ones that can grow meanwhile.
    const grown = new GrowingAttention(this.source);
    let result = this.result;
    const job = this.worker.call('generate', {
      model: this.model.key, ids: this.result.ids, maxTokens: Number($('gen-count').value) || 20,
      temperature: Number($('gen-temp').value) || 0, topK: 40, seed: 1 + (this.generations = (this.generations || 0) + 1),
    }, {
      onProgress: (p) => {
        grown.append(p.row);
        result = { ...result, ids: [...result.ids, p.id], labels: p.labels, shape: grown.shape };
        this.latest = { result, source: grown };
        this.state.text = p.text;
        this.showCount(p.labels.length);
        this.redraw();
        this.syncControls();
      },
    });
    this.generating = job;
    try {
      const { ids } = await job;
      await this.setResult(await this.worker.call('analyze', { model: this.model.key, ids }));
      this.onChange(this.state);
    } catch (e) {
      this.showError(e.message);
    } finally {
      this.generating = null;
      button.textContent = 'Generate';
    }
  }

  exportTitle() {
    return `arcscope · ${this.model?.name ?? ''} · ${describe(this.drawn?.view ?? this.state)}`;
  }

  exportSvg() {
    if (!this.result) return;
    saveSvg(buildSvg(this.result.labels, this.arcs.drawnArcs(), this.exportTitle()), 'arcscope-attention.svg');
  }

  exportPng() {
    if (!this.result) return;
    savePng(drawPng(this.result.labels, this.arcs.drawnArcs(), this.exportTitle()), 'arcscope-attention.png');
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

export function describe(s) {
  const layer = typeof s.layer === 'number' ? `layer ${s.layer}` : `${s.layer} over layers`;
  const head = typeof s.head === 'number' ? `head ${s.head}` : s.head === 'all' ? 'all heads' : `${s.head} over heads`;
  return `${layer}, ${head}${s.sink === false ? ', first token hidden' : ''}`;
}

// The article asks what "it" attends to; otherwise the last token.
function defaultQuery(labels) {
  const it = labels.findIndex((l) => l.text.trim().toLowerCase() === 'it');
  return it >= 0 ? it : labels.length - 1;
}
