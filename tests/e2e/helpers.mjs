// Shared steps for the browser tests.
import { expect } from '@playwright/test';

export const ARTICLE_TEXT = "The trophy didn't fit in the bag because it was too big";

// How long a whole analysis, sweep or conversion may take before a test calls it stuck. Generous, because a wait that
// runs out means the machine was slow, not that the code was wrong: section 7's sweeps took 60 s at a load average of
// 10 on two cores, where they take 5-15 s on a quiet one. (The config's timeouts: 60 s a wait, 4 minutes a test.)
export const COMPUTE_TIMEOUT = 180_000;

// Collects console errors and page errors; call .check() at the end of a test.
export function watchConsole(page) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

// The model the explorer tests run on: the shipped default, or another served one (ARCSCOPE_E2E_MODEL=/fixtures/...).
export const DEFAULT_MODEL = process.env.ARCSCOPE_E2E_MODEL || '/models/shakespeare-4l.q8.arcs';
const modelHash = process.env.ARCSCOPE_E2E_MODEL ? `model=${encodeURIComponent(DEFAULT_MODEL)}` : '';
export const FIXTURE_ARCS = '/fixtures/tiny.q8.arcs';
export const FIXTURE_HF = '/fixtures/tiny-hf';
export const FIXTURE_GPT2_SHAPED = '/fixtures/gpt2-12x12.q8.arcs';  // 12 layers x 12 heads, narrow

// Opens the tutorial (optionally at a hash) and waits until the explorer drew the model's arcs.
export async function openPage(page, hash = '') {
  if (modelHash && !hash.includes('model=')) hash = hash ? `${hash}&${modelHash}` : `#${modelHash}`;
  await page.goto(`./${hash}`);
  await waitForRender(page);
}

// The explorer's current token labels as shown.
export const tokenTexts = (page) => page.locator('#view .tokens.from [data-token-index]').allTextContents();

export async function waitForRender(page, previous = 0) {
  await expect(page.locator('#model-status')).toHaveClass(/ok/);
  await expect.poll(() => renders(page)).toBeGreaterThan(previous);
}

export const renders = (page) => page.locator('#view').getAttribute('data-renders').then((v) => Number(v || 0));

// Every arc in sight in an arcs view (the explorer's by default, or one inside an <arc-scope>): [{from, to, head,
// weight}]. Its SVG paths' data attributes; or, when it draws many arcs on a canvas (lib/views/arcs.js), the record of the
// arcs the canvas drew: the element's result.drawnArcs(), or the page's view's shownArcs().
export async function drawnArcs(page, scope = '#view') {
  const view = page.locator(`${scope} .arcview`).first();
  if (await view.count() && await view.getAttribute('data-backend') === 'canvas') {
    return view.evaluate((el) => {
      const host = el.getRootNode().host;
      if (host) return host.result.drawnArcs();
      const { explorer, heads } = window.arcscopePage;
      return [explorer.arcs, heads.arcs].find((a) => a?.el === el).shownArcs();
    });
  }
  return page.locator(`${scope} path[data-from]`).evaluateAll((paths) => paths
    .filter((p) => getComputedStyle(p).display !== 'none')
    .map((p) => ({ from: +p.dataset.from, to: +p.dataset.to, head: +p.dataset.head, weight: +p.dataset.weight })));
}

// Runs the model in the page's main thread with the engine module itself (not the worker, not the page's code):
// the independent reference the drawing is checked against.
export async function engineAttention(page, modelUrl, text) {
  return page.evaluate(async ({ modelUrl, text }) => {
    const { createEngine } = await import('/lib/arcscope.js');
    const engine = await createEngine();
    const bytes = new Uint8Array(await (await fetch(modelUrl)).arrayBuffer());
    const model = engine.loadModel(bytes);
    const { ids } = model.tokenize(text);
    const out = model.forward(ids, { attention: true });
    const result = { ids, shape: out.attentionShape, attention: Array.from(out.attention) };
    model.free();
    return result;
  }, { modelUrl, text });
}

// Adds an <arc-scope> to the page (id added-N) and resolves with its result after the first arcscope-rendered
// event, or rejects with the message of its first arcscope-error.
export function addElement(page, attrs) {
  return page.evaluate((attrs) => new Promise((resolve, reject) => {
    const el = document.createElement('arc-scope');
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    el.addEventListener('arcscope-rendered', () => resolve({ tokens: el.result.tokens, shape: el.result.shape }), { once: true });
    el.addEventListener('arcscope-error', (e) => reject(new Error(e.detail.message)), { once: true });
    el.id = `added-${document.querySelectorAll('arc-scope').length}`;
    document.body.append(el);
  }), attrs);
}

// Calls the page's shared engine worker (the one the page's own code uses): op with args. Rejects with the
// worker's message as it is.
export async function engineCall(page, op, args = {}) {
  const { result, error } = await page.evaluate(async ({ op, args }) => {
    const { sharedEngine } = await import('/lib/worker-client.js');
    return sharedEngine().call(op, args).then((result) => ({ result }), (e) => ({ error: e.message }));
  }, { op, args });
  if (error !== undefined) throw new Error(error);
  return result;
}

// Downloads give up after `seconds` without data (the default 20 s is too long for tests).
export const stallAfter = (page, seconds) => engineCall(page, 'configure', { stallSeconds: seconds });

// Sets an element's data property (attention as a Float32Array when typed) or one of its attributes (null removes
// it); resolves with 'rendered' or the message of the arcscope-error that follows.
export function change(locator, { data, typed = false, name, value }) {
  return locator.evaluate((el, { data, typed, name, value }) => new Promise((ok) => {
    const done = (e) => {
      el.removeEventListener('arcscope-error', done);
      el.removeEventListener('arcscope-rendered', done);
      ok(e.type === 'arcscope-error' ? e.detail.message : 'rendered');
    };
    el.addEventListener('arcscope-error', done);
    el.addEventListener('arcscope-rendered', done);
    if (name === undefined) el.data = typed ? { ...data, attention: Float32Array.from(data.attention) } : data;
    else if (value === null) el.removeAttribute(name);
    else el.setAttribute(name, value);
  }), { data, typed, name, value });
}
