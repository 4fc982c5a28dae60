// heads-matter.js: section 7, "Which heads matter". On the page's model, for a prompt and two answer tokens (the
// metric: logit(answer) - logit(wrong) at the last position), it runs in the worker, one step after another:
// activation patching from the prompt into a corrupted one (when given), the ablation of each head alone, every
// head's attention (for the arcs of a clicked head), the logit lens and the direct logit attribution of the answer.
// Each step is a worker call and a step of the progress bar; Cancel stops the run between steps and keeps what is
// drawn. Clicking a head (in either heatmap) draws its arcs, lists what the last token attends to, and runs the
// prompt once more without it. The section's settings live in the URL hash (heads-state.js); main.js writes it.
import { Heatmap } from '../../lib/views/heatmap.js';
import { ArcView } from '../../lib/views/arcs.js';
import { filterArcs, topAttended, range } from '../../lib/shared/attention-math.js';
import { EngineAttention } from '../../lib/views/attention-source.js';
import { plainLabel } from '../../lib/shared/token-text.js';
import { taughtHeads } from '../shared/default-model.js';
import { PRESETS, fields, presetOf, parseHeadsHash, formatHeadsHash } from './heads-state.js';
import { lensTable, dlaChart, knockoutView, shown } from '../views/heads-views.js';
import { heatmapSvg, heatmapPng, rowsOf } from '../views/heads-export.js';
import { saveFile, saveSvg, savePng } from '../views/export.js';
import { renderTopAttended } from '../views/top-attended.js';
import { isGpt2SmallShaped, notGpt2Small } from './gpt2-small.js';
import { headColumnLabel } from '../../lib/shared/head-groups.js';

const $ = (id) => document.getElementById(id);
const FIELDS = ['prompt', 'corrupted', 'answer', 'wrong'];
class Cancelled extends Error {}

export class HeadsMatter {
  // onChange(): the section's state changed (main.js writes the hash); openLoader(): the "Load GPT-2 small" dialog.
  constructor(worker, { onChange, openLoader }) {
    this.worker = worker;
    this.onChange = onChange;
    this.openLoader = openLoader;
    this.model = null;      // {key, name, config}
    this.results = null;    // what the last run computed (export, redraws)
    this.run = null;        // the run in progress: {cancelled, job, model}
    this.grids = {};        // 'ablation' | 'patching' -> Heatmap of L x H cells
    this.arcs = null;
    this.knock = null;      // the "without this head" request in flight
    const { state, errors, given } = parseHeadsHash(location.hash);
    this.state = state;
    this.wanted = given;    // a link set the section: run once the model is in
    this.seen = false;      // the section has come near the viewport
    this.showLinkErrors(errors);
    this.bind();
    this.syncInputs();
    this.placeholders('Runs when the section comes into view, or press Run.');
    new IntersectionObserver((entries) => {
      if (this.seen || !entries.some((e) => e.isIntersecting)) return;
      this.seen = true;
      this.autoRun();
    }, { rootMargin: '300px' }).observe($('which-heads'));
  }

  bind() {
    const select = $('hm-preset');
    select.replaceChildren(...Object.entries(PRESETS).map(([name, p]) => new Option(p.label, name)),
      new Option('Your own (edit the fields)', 'custom'));
    select.addEventListener('change', () => {
      if (select.value !== 'custom') Object.assign(this.state, fields(PRESETS[select.value]), { layer: null, head: null });
      this.syncInputs();
      this.changed();
      this.autoRun();
    });
    for (const f of FIELDS) {
      $(`hm-${f}`).addEventListener('input', (e) => {
        this.state[f] = e.target.value;
        $('hm-preset').value = presetOf(this.state);
        this.updateNeeds();
        clearTimeout(this.typing);
        this.typing = setTimeout(() => this.changed(), 250);
      });
      $(`hm-${f}`).addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && (e.target.tagName !== 'TEXTAREA' || e.ctrlKey || e.metaKey)) { e.preventDefault(); this.start(); }
      });
    }
    $('hm-ablate').addEventListener('change', (e) => { this.state.kind = e.target.value; this.changed(); this.start(); });
    $('hm-run').addEventListener('click', () => this.start());
    $('hm-cancel').addEventListener('click', () => this.cancel());
    $('hm-load-gpt2').addEventListener('click', () => this.openLoader());
    $('hm-export-json').addEventListener('click', () => this.exportJson());
    for (const which of ['ablation', 'patching']) {
      $(`hm-export-${which}-svg`).addEventListener('click', () => this.exportGrid(which, 'svg'));
      $(`hm-export-${which}-png`).addEventListener('click', () => this.exportGrid(which, 'png'));
    }
  }

  syncInputs() {
    for (const f of FIELDS) if ($(`hm-${f}`).value !== this.state[f]) $(`hm-${f}`).value = this.state[f];
    $('hm-preset').value = presetOf(this.state);
    $('hm-ablate').value = this.state.kind;
    this.updateNeeds();
  }

  changed() {
    clearTimeout(this.typing);
    this.typing = 0;
    this.onChange();
  }

  // The section's part of the URL hash (main.js appends it to the explorer's).
  hashPart() {
    return formatHeadsHash(this.state);
  }

  // A pasted link or back/forward: the section takes the hash's settings and runs again if they changed.
  applyHash(hash) {
    const { state, errors } = parseHeadsHash(hash);
    this.showLinkErrors(errors);
    const same = Object.keys(state).every((k) => state[k] === this.state[k]);
    if (same) return;
    const rerun = ['kind', ...FIELDS].some((k) => state[k] !== this.state[k]);
    Object.assign(this.state, state);
    this.syncInputs();
    if (rerun) this.autoRun(true);
    else if (this.results?.attention && state.layer !== null) this.pick(state.layer, state.head, { user: false });
  }

  showLinkErrors(errors) {
    const el = $('hm-link-notice');
    el.hidden = !errors.length;
    el.textContent = errors.length ? `This link's ${errors.join('; ')}. The section's default is used instead.` : '';
  }

  // A model was loaded (or the page opened on one).
  setModel(info) {
    const changed = this.model?.key !== info.key;
    this.model = info;
    this.updateNeeds();
    if (!changed) return;
    if (this.results) { this.clearResults(); this.placeholders(`Press Run for ${info.name}.`); }
    if (this.seen || this.wanted) this.autoRun();
  }

  // A preset written for GPT-2 small says so on another model and offers the loader (the Run button still runs it).
  updateNeeds() {
    const preset = PRESETS[presetOf(this.state)], m = this.model;
    const needs = !!(preset?.gpt2Small && m && !isGpt2SmallShaped(m.config));
    $('hm-needs').hidden = !needs;
    if (needs) {
      $('hm-needs-text').textContent = `${notGpt2Small('This preset is for', m)}. GPT-2 small's heads learned it from ` +
        'text: load GPT-2 small, or press Run to see what this model does with it.';
    }
    return needs;
  }

  // Runs unless the preset needs another model (then the note says so and waits for Run).
  autoRun(force = false) {
    if (!this.model || (!force && !this.seen && !this.wanted)) return;
    if (this.updateNeeds()) { this.cancel(); this.clearResults(); this.placeholders('Load GPT-2 small, or press Run.'); return; }
    this.start();
  }

  cancel() {
    const run = this.run;
    if (!run) return;
    run.cancelled = true;
    if (run.job) this.worker.cancel(run.job);
    this.finish(run, { cancelled: true });
  }

  // The steps, one worker call each. Every result is drawn as it arrives; an error clears the drawings and shows
  // the engine's message.
  async start() {
    if (!this.model) return;
    this.cancel();
    if (this.typing) this.changed(); // the hash names what runs
    const model = this.model, s = { ...this.state };
    const run = { cancelled: false, job: null, model, done: 0, started: performance.now() };
    this.run = run;
    this.clearResults();
    this.showError(null);
    const results = { model: { key: model.key, name: model.name, config: model.config }, ...s };
    const steps = this.steps(results);
    for (const step of steps) results[step.name] = null;
    run.steps = steps.filter((step) => !step.skipped);
    this.results = results;
    this.placeholders('');
    this.showProgress(run);
    const call = async (op, args) => {
      if (run.cancelled || this.run !== run) throw new Cancelled();
      run.sweep = null;
      this.showProgress(run);
      // the sweeps report each layer they finish
      run.job = this.worker.call(op, { model: model.key, ...args }, { onProgress: (p) => { run.sweep = p; } });
      const r = await run.job;
      if (run.cancelled || this.run !== run) throw new Cancelled();
      run.done++;
      return r;
    };
    try {
      for (const step of steps) {
        if (step.skipped) { $(step.root).replaceChildren(message(step.skipped)); continue; }
        results[step.name] = await call(step.op, step.args());
        step.draw(results[step.name]);
      }
      this.finish(run, {});
    } catch (e) {
      if (e instanceof Cancelled || run.cancelled || this.run !== run) return;
      this.finish(run, {});
      this.clearResults();
      this.showError(e.message);
    }
  }

  // A run's steps in order, each named once: {name (its field of results), label (for the progress line), root (the
  // element its drawing goes in), op and args() (its worker call), draw(result)}; skipped (why) for one not run.
  // They fill results as they go: the ablation runs on the patching's ids, and the steps after it on its ids.
  steps(results) {
    const { n_layer: L, n_head: H } = results.model.config, key = results.model.key;
    const patching = results.corrupted.trim() !== '';
    return [
      { name: 'patching', root: 'hm-patching', op: 'patchingSweep',
        label: `patching each of the ${L * H} heads and every residual position from the prompt into the corrupted one`,
        skipped: !patching && 'No corrupted prompt: patching skipped.',
        args: () => ({ clean: results.prompt, corrupted: results.corrupted, answer: results.answer, wrong: results.wrong }),
        draw: (r) => { results.labels = r.labels; this.drawPatching(results); } },
      { name: 'ablation', root: 'hm-ablation', op: 'ablationSweep', label: `ablating each of the ${L * H} heads alone`,
        args: () => ({ ...(results.patching ? { ids: results.patching.ids } : { text: results.prompt }), answer: results.answer,
          wrong: results.wrong, kind: results.kind }),
        draw: (r) => { results.ids = r.ids; results.labels = r.labels; this.drawAblation(results); } },
      { name: 'attention', root: 'hm-head-view', op: 'analyze', label: "reading every head's attention",
        args: () => ({ ids: results.ids, topk: 5 }), // the worker keeps its queries and keys
        draw: (r) => { r.source = new EngineAttention(this.worker, key, results.ids, r.shape); this.pickDefault(results); } },
      { name: 'lens', root: 'hm-lens', op: 'logitLens', label: 'reading the logit lens',
        args: () => ({ ids: results.ids, k: 3, target: results.answer }), draw: () => this.drawLens(results) },
      { name: 'attribution', root: 'hm-dla', op: 'directLogitAttribution', label: `attributing the logit of ${shown(results.answer)}`,
        args: () => ({ ids: results.ids, token: results.answer }), draw: () => this.drawAttribution(results) },
    ];
  }

  showProgress(run) {
    const { label } = run.steps[Math.min(run.done, run.steps.length - 1)];
    $('hm-progress').hidden = false;
    $('hm-progress-bar').max = run.steps.length;
    $('hm-progress-bar').value = run.done;
    const tick = () => {
      const seconds = ((performance.now() - run.started) / 1000).toFixed(1);
      const layers = run.sweep?.layers ? `, ${run.sweep.layersDone} of ${run.sweep.layers} layers done` : '';
      $('hm-progress-text').textContent = `${run.done + 1} of ${run.steps.length}: ${label}${layers}… ${seconds} s`;
    };
    tick();
    clearInterval(run.timer);
    run.timer = setInterval(tick, 200);
    $('hm-run').textContent = 'Run again';
    $('hm-cancel').hidden = false;
    $('which-heads').setAttribute('aria-busy', 'true');
  }

  finish(run, { cancelled = false }) {
    clearInterval(run.timer);
    if (this.run !== run) return;
    this.run = null;
    $('hm-progress').hidden = true;
    $('hm-cancel').hidden = true;
    $('hm-run').textContent = 'Run';
    $('which-heads').removeAttribute('aria-busy');
    const seconds = ((performance.now() - run.started) / 1000).toFixed(1);
    const status = $('hm-status');
    if (cancelled) {
      const left = run.steps.slice(run.done);
      status.textContent = `Cancelled after ${run.done} of ${run.steps.length} steps (${seconds} s): ` +
        `${left.map((step) => step.name).join(', ')} not computed.`;
      for (const step of left) this.notComputed(step);
    } else {
      status.textContent = `${run.steps.length} steps in ${seconds} s on ${run.model.name}.`;
    }
    status.dataset.state = cancelled ? 'cancelled' : 'done';
  }

  notComputed(step) {
    $(step.root).replaceChildren(message('Not computed: the run was cancelled.'));
    if (step.name === 'patching') $('hm-resid').replaceChildren();
  }

  placeholders(text) {
    for (const id of ['hm-ablation', 'hm-patching', 'hm-lens', 'hm-dla']) $(id).replaceChildren(text ? message(text) : '');
  }

  clearResults() {
    this.results = null;
    this.grids = {};
    this.arcs = null;
    if (this.knock) { this.worker.cancel(this.knock); this.knock = null; }
    for (const id of ['hm-ablation', 'hm-patching', 'hm-resid', 'hm-lens', 'hm-dla', 'hm-head-view', 'hm-headline',
      'hm-patching-note', 'hm-dla-sum']) $(id).replaceChildren();
    $('hm-head').hidden = true;
    $('hm-status').textContent = '';
    delete $('hm-status').dataset.state;
    for (const b of document.querySelectorAll('#hm-exports button')) b.disabled = true;
  }

  showError(text) {
    $('hm-error').hidden = !text;
    $('hm-error').textContent = text || '';
  }

  // -- drawings --

  metricName(r = this.results) {
    return `logit(${shown(r.answer)}) − logit(${shown(r.wrong)})`;
  }

  // A layer x head grid whose cells pick a head (click, or Enter / Space on the focused cell; arrows move: the
  // Heatmap's grid(), which <arc-scope mode="ablation"> shares).
  grid(root, name, values, { scale, label, title }) {
    const { n_layer: L, n_head: H, n_kv_head: KV } = this.results.model.config;
    const holder = document.createElement('div');
    root.replaceChildren(holder);
    // Larger models than GPT-2 small get small cells and short labels, so the two grids still sit side by side
    // (GPT-2 XL's 48 x 25: 400 x 768 px of cells each); each cell's name still says its layer and head.
    const large = L * H > 144;
    const map = new Heatmap(holder, { rows: L, cols: H, cell: large ? 16 : H > 6 ? 26 : 40, signed: true, label,
      rowLabels: range(L).map((l) => (large ? `L${l}` : `layer ${l}`)),
      colLabels: range(H).map((h) => headColumnLabel(h, H, KV, large)) });
    map.update(values, scale);
    map.cells.forEach((cell, i) => Object.assign(cell.dataset, { layer: Math.floor(i / H), head: i % H, value: values[i] }));
    map.grid({ name: title, onPick: (l, h) => this.pick(l, h, { user: true }) });
    this.grids[name] = map;
    return map;
  }

  // "layer 1 head 0 (taught: induction)"
  headName(l, h) {
    const t = this.taught(l, h);
    return `layer ${l} head ${h}${t ? ` (${t})` : ''}`;
  }

  // "taught: induction" for the default model's two taught heads (default-model.js), else ''.
  taught(l, h) {
    const t = taughtHeads(this.results.model.key).find((x) => x.layer === l && x.head === h);
    return t ? `taught: ${t.pattern}` : '';
  }

  drawPatching(r) {
    const p = r.patching, { n_layer: L, n_head: H } = r.model.config;
    const values = p.heads.data;
    const scale = Math.max(1, ...Array.from(values, Math.abs));
    this.grid($('hm-patching'), 'patching', values, { scale,
      label: `activation patching: each head's output from the prompt into the corrupted run; 1 restores the prompt's metric, 0 changes nothing`,
      title: (l, h, i) => `${this.headName(l, h)}: patching it recovers ${(100 * values[i]).toFixed(1)}% of the metric` });
    let best = 0;
    for (let i = 1; i < L * H; i++) if (values[i] > values[best]) best = i;
    const note = $('hm-patching-note');
    note.textContent = `The metric is ${p.clean.toFixed(2)} on the prompt and ${p.corrupted.toFixed(2)} on the corrupted ` +
      `one (they differ from token ${p.firstDifference} on). Patching ${this.headName(Math.floor(best / H), best % H)} ` +
      `alone recovers ${(100 * values[best]).toFixed(0)}% of it.`;
    note.dataset.best = best;
    const [, T] = p.resid.shape;
    const holder = document.createElement('div');
    $('hm-resid').replaceChildren(holder);
    const resid = new Heatmap(holder, { rows: L, cols: T, cell: T > 40 ? 10 : 18, signed: true,
      rowLabels: range(L).map((l) => `layer ${l}`), colLabels: T > 40 ? null : r.labels.map(plainLabel),
      label: 'patching the residual stream (hook_resid_pre) at each layer and position' });
    resid.update(p.resid.data, Math.max(1, ...Array.from(p.resid.data, Math.abs)));
    resid.cells.forEach((cell, i) => {
      cell.firstChild.textContent = `layer ${Math.floor(i / T)}, position ${i % T} (${plainLabel(r.labels[i % T])}): ` +
        `${(100 * p.resid.data[i]).toFixed(1)}%`;
    });
    $('hm-export-patching-svg').disabled = $('hm-export-patching-png').disabled = false;
    $('hm-export-json').disabled = false;
  }

  drawAblation(r) {
    const a = r.ablation;
    const effect = a.heads.data.map((m) => m - a.baseline);
    r.ablationEffect = effect;
    this.grid($('hm-ablation'), 'ablation', effect, {
      label: `ablation: the change in ${this.metricName(r)} with each head ablated alone (${r.kind})`,
      title: (l, h, i) => `${this.headName(l, h)}: ${this.metricName(r)} ${a.heads.data[i].toFixed(2)} without it ` +
        `(${signed(effect[i])})` });
    this.headline(r);
    $('hm-export-ablation-svg').disabled = $('hm-export-ablation-png').disabled = false;
    $('hm-export-json').disabled = false;
  }

  // The numbers in words: the metric with every head, and without the heads that matter most.
  headline(r) {
    const a = r.ablation, { n_layer: L, n_head: H } = r.model.config, metric = a.heads.data;
    const order = range(L * H).sort((i, j) => metric[i] - metric[j]);
    const preset = PRESETS[presetOf(r)];
    const focus = preset?.focus && (!preset.focus.defaultModelOnly || taughtHeads(r.model.key).length) &&
      preset.focus.layer < L && preset.focus.head < H ? preset.focus.layer * H + preset.focus.head : null;
    const last = plainLabel(r.labels[r.labels.length - 1]);
    const root = $('hm-headline');
    const claim = (i) => {
      const s = document.createElement('strong');
      s.className = 'hm-claim';
      Object.assign(s.dataset, { layer: Math.floor(i / H), head: i % H, baseline: a.baseline, ablated: metric[i] });
      s.textContent = `metric ${a.baseline.toFixed(1)} → ${metric[i].toFixed(1)} without layer ${Math.floor(i / H)} head ${i % H}`;
      return s;
    };
    const first = focus ?? order[0];
    const parts = [`The metric, ${this.metricName(r)} after ${last}, is ${a.baseline.toFixed(2)} with every head: `,
      claim(first), ` (${[this.taught(Math.floor(first / H), first % H), `${r.kind} ablation`].filter(Boolean).join('; ')}).`];
    const other = order.find((i) => i !== first);
    if (other !== undefined) {
      parts.push(` ${other === order[0] ? 'The largest drop' : 'The next largest drop'}: ` +
        `${this.headName(Math.floor(other / H), other % H)}, to ${metric[other].toFixed(2)}.`);
    }
    if (a.baseline <= 0) parts.push(' The model prefers the wrong answer even with every head, so a drop means little here.');
    root.replaceChildren(...parts);
  }

  // After a run: the head the link named, else the preset's, else the one whose ablation lowers the metric most.
  pickDefault(r) {
    const { n_layer: L, n_head: H } = r.model.config, s = this.state;
    if (s.layer !== null && s.layer < L && s.head < H) { this.pick(s.layer, s.head, { user: false }); return; }
    const claim = $('hm-headline').querySelector('.hm-claim');
    this.pick(Number(claim.dataset.layer), Number(claim.dataset.head), { user: false });
  }

  // A head picked: marked in both grids; its arcs on the prompt, what the last token attends to, and the prompt run
  // again without it.
  pick(l, h, { user }) {
    const r = this.results;
    if (!r?.ablation) return;
    const { n_head: H } = r.model.config, i = l * H + h;
    if (user) { this.state.layer = l; this.state.head = h; this.changed(); }
    for (const map of Object.values(this.grids)) map.mark(i);
    $('hm-head').hidden = false;
    $('hm-head-title').textContent = this.headName(l, h);
    const facts = [`${this.metricName(r)}: ${r.ablation.baseline.toFixed(2)} with every head, ` +
      `${r.ablation.heads.data[i].toFixed(2)} without it (${r.kind} ablation)`];
    if (r.patching) facts.push(`patching it alone recovers ${(100 * r.patching.heads.data[i]).toFixed(1)}% of the metric`);
    $('hm-head-facts').textContent = `${facts.join('; ')}.`;
    if (!r.attention) return;
    const ticket = this.picked = (this.picked ?? 0) + 1;
    r.attention.source.matrix(l, h).then((matrix) => {
      if (this.results === r && this.picked === ticket) this.drawHead(r, l, h, matrix);
    }, (e) => {
      if (this.results === r && this.picked === ticket) $('hm-head-view').replaceChildren(message(`Could not compute its attention: ${e.message}`));
    });
    this.knockout(l, h);
  }

  // The picked head's arcs on the prompt and what the last token attends to (matrix: its (T, T) attention).
  drawHead(r, l, h, matrix) {
    const { labels } = r.attention, T = labels.length;
    const view = $('hm-head-view');
    if (!this.arcs || !view.contains(this.arcs.el)) {
      view.replaceChildren();
      this.arcs = new ArcView(view, { label: `Attention arcs of ${this.headName(l, h)}` });
    }
    if (this.arcs.labels !== labels) this.arcs.setTokens(labels);
    this.arcs.setArcs([{ head: h, arcs: filterArcs(matrix, T, { topK: 0, threshold: 0.02 }) }]);
    $('hm-top-token').textContent = plainLabel(labels[T - 1]);
    renderTopAttended($('hm-top').tBodies[0], labels, topAttended(matrix, T, T - 1, 5));
  }

  async knockout(l, h) {
    const r = this.results;
    if (this.knock) this.worker.cancel(this.knock);
    const root = $('hm-knockout');
    root.replaceChildren(message(`Running the prompt without layer ${l} head ${h}…`));
    const job = this.worker.call('headKnockout', { model: r.model.key, ids: r.ids, layer: l, head: h, kind: r.kind, answer: r.answer });
    this.knock = job;
    try {
      const k = await job;
      if (this.knock !== job || this.results !== r) return;
      knockoutView(root, k, r.attention.labels, { what: `without layer ${l} head ${h}`, answer: r.answer });
      root.dataset.layer = l; root.dataset.head = h;
    } catch (e) {
      if (this.knock === job && this.results === r && e.message !== 'cancelled') root.replaceChildren(message(`Could not run it without the head: ${e.message}`));
    } finally {
      if (this.knock === job) this.knock = null;
    }
  }

  drawLens(r) {
    lensTable($('hm-lens'), r.lens, r.labels, { id: r.lens.targetId, text: r.answer });
  }

  drawAttribution(r) {
    const d = r.attribution;
    const { bars } = dlaChart($('hm-dla'), d, { tokenText: shown(r.answer) });
    const sum = bars.reduce((s, b) => s + b.value, 0);
    const byValue = bars.filter((b) => b.kind === 'head' || b.kind === 'mlp').sort((a, b) => Math.abs(b.value) - Math.abs(a.value));
    const el = $('hm-dla-sum');
    Object.assign(el.dataset, { logit: d.logit, sum });
    const close = Math.abs(sum - d.logit) <= 1e-3 * Math.max(1, Math.abs(d.logit));
    const rounded = { q8: 'int8', q16: '14-bit' }[r.model.config.dtype];
    const why = close ? 'they add up to it' : rounded
      ? `they add up to ${sum.toFixed(2)}: this ${rounded} model rounds each part's activations on their own, so its ` +
        'parts match the logit only to that rounding'
      : `they add up to ${sum.toFixed(2)}`;
    el.textContent = `logit(${shown(r.answer)}) after ${plainLabel(r.labels[r.labels.length - 1])} = ${d.logit.toFixed(2)}, ` +
      `split into ${bars.length} parts; ${why}. Largest: ${byValue.slice(0, 3).map((b) =>
        `${b.kind === 'mlp' ? `layer ${b.layer} MLP` : this.headName(...b.label.slice(1).split('H').map(Number))} ${signed(b.value)}`).join(', ')}.`;
  }

  // -- export --

  exportJson() {
    const r = this.results;
    if (!r) return;
    const { n_layer: L, n_head: H } = r.model.config;
    const out = {
      arcscope: 'which heads matter', model: r.model, preset: presetOf(r), prompt: r.prompt, corrupted: r.corrupted,
      answer: r.answer, wrong: r.wrong, ablate: r.kind, ids: r.ids ?? null,
      tokens: r.labels ? r.labels.map(plainLabel) : null,
      metric: `logit(answer) - logit(wrong) at the last position`,
      ablation: r.ablation && { baseline: r.ablation.baseline, metric: rowsOf(r.ablation.heads.data, L, H),
        effect: rowsOf(r.ablationEffect, L, H) },
      patching: r.patching && { clean: r.patching.clean, corrupted: r.patching.corrupted,
        firstDifference: r.patching.firstDifference, heads: rowsOf(r.patching.heads.data, L, H),
        resid: rowsOf(r.patching.resid.data, L, r.patching.resid.shape[1]) },
      lens: r.lens && { shape: r.lens.shape, top: r.lens.top, target: rowsOf(r.lens.target, L, r.lens.shape[1]) },
      attribution: r.attribution && { token: r.attribution.token, position: r.attribution.position,
        logit: r.attribution.logit, parts: r.attribution.parts },
    };
    saveFile(new Blob([`${JSON.stringify(out, null, 1)}\n`], { type: 'application/json' }), 'arcscope-heads.json');
  }

  exportGrid(which, format) {
    const r = this.results;
    const values = which === 'ablation' ? r?.ablationEffect : r?.patching?.heads.data;
    if (!values) return;
    const { n_layer: L, n_head: H } = r.model.config;
    const grid = {
      values, rows: L, cols: H, rowLabels: range(L).map((l) => `layer ${l}`), colLabels: range(H).map((h) => `head ${h}`),
      scale: which === 'ablation' ? Math.max(...Array.from(values, Math.abs)) : Math.max(1, ...Array.from(values, Math.abs)),
      title: `arcscope · ${r.model.name} · ${which === 'ablation' ? `ablation (${r.kind})` : 'activation patching'} · ${this.metricName(r)}`,
      note: which === 'ablation' ? `change in the metric with each head ablated (from ${r.ablation.baseline.toFixed(2)}); orange: lower`
        : 'share of the metric recovered by patching each head (1 = clean, 0 = corrupted)',
    };
    const name = `arcscope-${which}`;
    if (format === 'svg') saveSvg(heatmapSvg(grid), `${name}.svg`);
    else savePng(heatmapPng(grid), `${name}.png`);
  }
}

function message(text) {
  const p = document.createElement('p');
  p.className = 'muted small hm-placeholder';
  p.textContent = text;
  return p;
}

const signed = (v) => (v >= 0 ? `+${v.toFixed(2)}` : `\u2212${(-v).toFixed(2)}`);
