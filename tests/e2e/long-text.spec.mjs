// Long texts on a GPT-2-small-shaped model: 512 and 1,024 tokens from typing to arcs, each view switch (layer, head,
// filter, aggregation), and the memory of the page and its worker before and after; the arcs drawn are checked
// against the engine's own values for one head. Timings and memory are printed, not asserted: the machine is shared,
// and timed assertions would be flaky.
//   npx playwright test tests/e2e/long-text.spec.mjs
// The model is the real GPT-2 small when build/bench has it (global-setup.mjs links it into the fixtures), else the
// narrow GPT-2-shaped fixture with a 1,024-token context (ARCSCOPE_LONG_MODEL=/fixtures/... picks another). The page
// is served cross-origin isolated by its own server here, so the engine runs its threaded build, and
// ARCSCOPE_LONG_MEMORY_DETAIL=1 adds performance.measureUserAgentSpecificMemory()'s page and worker bytes to the
// renderer's resident size and the page heap. ARCSCOPE_LONG_ISOLATE=0 serves it without (one thread).
import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { encode, decode } from 'gpt-3-encoder';
import { FIXTURES } from './global-setup.mjs';
import { drawnArcs } from './helpers.mjs';

const LONG_MODEL = process.env.ARCSCOPE_LONG_MODEL ||
  (existsSync(`${FIXTURES}/gpt2-small.q8.arcs`) ? '/fixtures/gpt2-small.q8.arcs' : '/fixtures/gpt2-12x12-1024.q8.arcs');
const MB = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

// The browser as the config starts it, plus eager memory measurement (else it waits for the next garbage collection).
test.use({
  launchOptions: {
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--enable-blink-features=ForceEagerMeasureMemory', '--js-flags=--expose-gc'],
  },
});

let server, origin;
test.beforeAll(async () => {
  const port = await new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
  });
  const isolate = process.env.ARCSCOPE_LONG_ISOLATE === '0' ? [] : ['--isolate'];
  server = spawn('node', ['scripts/serve.mjs', '--port', String(port), ...isolate, '--fixtures', FIXTURES],
    { stdio: 'ignore' });
  origin = `http://127.0.0.1:${port}`;
  await expect.poll(() => fetch(`${origin}/`).then((r) => r.status, () => 0), { timeout: 10_000 }).toBe(200);
});
test.afterAll(() => server?.kill());

// Exactly n GPT-2 tokens of prose (the project's README, repeated as needed).
function textOf(n) {
  const prose = readFileSync('README.md', 'utf8').replace(/```[^]*?```/g, '').replace(/[#`*|]/g, '');
  let ids = encode(prose.repeat(Math.ceil((2 * n) / encode(prose).length))).slice(0, n);
  for (let text = decode(ids); ; text = decode(ids)) {
    const again = encode(text);
    if (again.length === n) return text;
    ids = again.length > n ? again.slice(0, n) : [...again, ...encode(' and').slice(0, n - again.length)];
  }
}

// The page's memory: the renderer processes' resident size (the page and its worker share one), the page's JS heap,
// and, with ARCSCOPE_LONG_MEMORY_DETAIL=1 on a cross-origin isolated page, measureUserAgentSpecificMemory's page and
// worker bytes (each call took about a minute here, so the suite leaves it out).
const memoryDetail = process.env.ARCSCOPE_LONG_MEMORY_DETAIL === '1';
async function memory(page, cdp, browserCdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  // The analysis worker's garbage too (not the engine's thread-pool workers: they never return to their event loop).
  for (const worker of page.workers().filter((w) => /\/worker\.js$/.test(w.url()))) await worker.evaluate(() => globalThis.gc?.());
  const { metrics } = await cdp.send('Performance.getMetrics');
  const pageHeap = metrics.find((m) => m.name === 'JSHeapUsedSize').value;
  const agent = !memoryDetail ? null : await page.evaluate(async () => {
    if (!self.crossOriginIsolated || !performance.measureUserAgentSpecificMemory) return null;
    const m = await performance.measureUserAgentSpecificMemory();
    const by = (scope) => m.breakdown.filter((b) => b.attribution.some((a) => a.scope === scope))
      .reduce((n, b) => n + b.bytes, 0);
    return { total: m.bytes, page: by('Window'), worker: by('DedicatedWorkerGlobalScope') };
  });
  // Freed memory goes back to the system a while after the collection: read until the largest renderer stops
  // shrinking (under 1 MB in a second), for at most 20 s.
  let rss = await rendererRss(browserCdp);
  for (let i = 0; i < 20; i++) {
    await page.waitForTimeout(1000);
    const next = await rendererRss(browserCdp), largest = (m) => Math.max(...m.values());
    const settled = largest(rss) - largest(next) < 2 ** 20;
    rss = next;
    if (settled) break;
  }
  return { rss, pageHeap, agent };
}

// pid -> resident bytes of every renderer process.
async function rendererRss(browserCdp) {
  const { processInfo } = await browserCdp.send('SystemInfo.getProcessInfo');
  const rss = new Map();
  for (const p of processInfo.filter((p) => p.type === 'renderer')) {
    const status = readFileSync(`/proc/${p.id}/status`, 'utf8');
    rss.set(p.id, Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024);
  }
  return rss;
}

// The RSS of the page's renderer (the page and its worker share one): the largest at the second measure of those
// alive at both. Other renderers (a spare one, a previous test's on its way out) would only add noise.
const pageRenderer = (a, b) => [...b.rss.keys()].filter((pid) => a.rss.has(pid))
  .reduce((best, pid) => (best === undefined || b.rss.get(pid) > b.rss.get(best) ? pid : best), undefined);
const growth = (a, b, pid = pageRenderer(a, b)) => `renderer RSS +${MB(b.rss.get(pid) - a.rss.get(pid))} ` +
  `(${MB(a.rss.get(pid))} -> ${MB(b.rss.get(pid))}), page JS heap ` +
  `+${MB(b.pageHeap - a.pageHeap)}` + (a.agent && b.agent ? `, measureUserAgentSpecificMemory +${MB(b.agent.total -
  a.agent.total)} (page +${MB(b.agent.page - a.agent.page)}, worker +${MB(b.agent.worker - a.agent.worker)})` : '');

// Types text into the explorer as a person would (one input event) and resolves with the milliseconds until the
// arcs of its T tokens were drawn, and until the next frame after that (painted); rejects with the page's error.
const typeText = (page, text, T) => page.evaluate(({ text, T }) => new Promise((ok, fail) => {
  const box = document.getElementById('text'), error = document.getElementById('explore-error');
  const watch = new MutationObserver(() => { if (!error.hidden) fail(new Error(error.textContent)); });
  watch.observe(error, { attributes: true });
  const t0 = performance.now();
  document.addEventListener('arcscope-rendered', function drawn(e) {
    if (e.detail.tokens !== T) return;
    document.removeEventListener('arcscope-rendered', drawn);
    watch.disconnect();
    const arcs = performance.now() - t0;
    requestAnimationFrame(() => setTimeout(() => ok({ arcs, painted: performance.now() - t0 })));
  });
  box.value = text;
  box.dispatchEvent(new Event('input', { bubbles: true }));
}), { text, T });

// One view switch as a person makes it (a select, the slider, a checkbox, a radio): milliseconds until the view
// was drawn again (the #view renders counter), and until the next frame after that.
const switchView = (page, selector, value) => page.evaluate(({ selector, value }) => new Promise((ok) => {
  const control = document.querySelector(selector), view = document.getElementById('view');
  const before = Number(view.dataset.renders || 0);
  requestAnimationFrame(() => setTimeout(() => {
    const t0 = performance.now();
    const watch = new MutationObserver(() => {
      if (Number(view.dataset.renders) <= before) return;
      watch.disconnect();
      const drawn = performance.now() - t0;
      requestAnimationFrame(() => setTimeout(() => ok({ drawn, painted: performance.now() - t0 })));
    });
    watch.observe(view, { attributes: true, attributeFilter: ['data-renders'] });
    if (control.type === 'checkbox' || control.type === 'radio') control.checked = value;
    else control.value = String(value);
    control.dispatchEvent(new Event(control.type === 'range' ? 'input' : 'change', { bubbles: true }));
  }));
}), { selector, value });

const SWITCHES = [
  ['layer 9', '#layer', 9], ['head 6', '#head', 6], ['head 7', '#head', 7], ['layer 3', '#layer', 3],
  ['all heads', '#head', 'all'], ['top 1', '#topk', 1], ['min weight 0.1', '#threshold', 0.1],
  ['min weight 0.02', '#threshold', 0.02], ['top 5', '#topk', 5], ['mean of heads', '#head', 'mean'],
  ['max of heads', '#head', 'max'], ['first token hidden', '#sink', false], ['first token shown', '#sink', true],
  ['head 5', '#head', 5], ['mean of layers', '#layer', 'mean'], ['mean of all heads', '#head', 'mean'],
  ['head 5 of the mean', '#head', 5], ['layer 8', '#layer', 8],
  ['matrix', 'input[name="mode"][value="matrix"]', true], ['arcs', 'input[name="mode"][value="arcs"]', true],
];

// The largest difference between weights the page drew or returned and one layer's attention computed by the engine
// module itself in the page (not the worker, not the page's code): hook_pattern, [H, T, T], as the pass captures it.
// weights: [{head, from, to, weight}]; relative: each difference over the engine's value. Compared where the
// pattern is, so its H x T x T floats never cross to the test. Resolves with {shape, worst}.
const engineDifference = (page, { modelUrl, text, layer, weights, relative = false }) =>
  page.evaluate(async ({ modelUrl, text, layer, weights, relative }) => {
    const { createEngine } = await import('/lib/arcscope.js');
    const engine = await createEngine();
    const model = engine.loadModel(new Uint8Array(await (await fetch(modelUrl)).arrayBuffer()));
    const name = `blocks.${layer}.attn.hook_pattern`;
    const { data, shape } = model.runWithCache(model.tokenize(text).ids, { names: [name], allLogits: false }).cache[name];
    model.free();
    const T = shape[1];
    let worst = 0;
    for (const { head, from, to, weight } of weights) {
      const v = data[(head * T + from) * T + to], d = Math.abs(weight - v);
      worst = Math.max(worst, relative ? d / Math.max(1e-6, v) : d);
    }
    return { shape, worst };
  }, { modelUrl, text, layer, weights, relative });

for (const T of [512, 1024]) {
  test(`${T} tokens: typing to arcs, view switches and memory, printed; the arcs drawn are the engine's`, async ({ page, browser }) => {
    test.setTimeout(600_000);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const browserCdp = await browser.newBrowserCDPSession();
    await page.goto(`${origin}/#model=${encodeURIComponent(LONG_MODEL)}&layer=8&head=5`);
    await expect(page.locator('#model-status')).toHaveClass(/ok/, { timeout: 120_000 });
    await expect.poll(() => page.locator('#view').getAttribute('data-renders').then(Number), { timeout: 120_000 })
      .toBeGreaterThan(0);
    await expect(page.locator('#scores .cell')).toHaveCount(144, { timeout: 300_000 }); // the worker is idle again
    const isolated = await page.evaluate(() => self.crossOriginIsolated);
    const threads = await page.evaluate(() => import('/lib/arcscope.js').then((m) => m.threadsAvailable?.() ?? 1));
    const before = await memory(page, cdp, browserCdp);
    const text = textOf(T);
    const typed = await typeText(page, text, T);
    const drawnAfterTyping = await drawnArcs(page);
    const switches = [];
    for (const [name, selector, value] of SWITCHES) switches.push([name, await switchView(page, selector, value)]);
    await page.waitForTimeout(3000); // anything still running in the background (thumbnails) has finished
    const after = await memory(page, cdp, browserCdp);
    const model = LONG_MODEL.split('/').pop();
    console.log(`${T} tokens on ${model} (cross-origin isolated: ${isolated}; engine threads available: ${threads}):`);
    console.log(`  typing to arcs ${typed.arcs.toFixed(0)} ms, painted ${typed.painted.toFixed(0)} ms ` +
      `(${drawnAfterTyping.length} arcs)`);
    for (const [name, t] of switches) console.log(`  ${name.padEnd(20)} ${t.drawn.toFixed(0).padStart(5)} ms, painted ${t.painted.toFixed(0)} ms`);
    // The page's own measures (explorer.js), when it takes them: the forward pass's share of typing to arcs.
    const own = await page.evaluate(() => performance.getEntriesByType('measure')
      .filter((m) => m.name.startsWith('arcscope-') && m.detail?.tokens > 100).map((m) => [m.name, Math.round(m.duration)]));
    if (own.length) console.log(`  the page's measures: ${own.map(([n, d]) => `${n.replace('arcscope-', '')} ${d}`).join(', ')} ms`);
    console.log(`  memory: ${growth(before, after)}`);
    // The arcs drawn for layer 8 head 5 are the engine's own weights.
    await switchView(page, '#head', 5);
    const arcs = await drawnArcs(page);
    expect(arcs.length).toBeGreaterThan(0);
    for (const a of arcs) expect(a.head).toBe(5);
    const { shape, worst } = await engineDifference(page,
      { modelUrl: LONG_MODEL, text, layer: 8, weights: arcs, relative: true });
    expect(shape).toEqual([12, T, T]);
    console.log(`  ${arcs.length} arcs of layer 8 head 5; largest relative difference from the engine's: ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-5);
    // A word typed at the end: the worker runs only its tokens (live-edit.spec.mjs checks the bits).
    // (At the context's end, the last word is typed again differently.)
    const longer = T < 1024 ? `${text} and` : `${text.slice(0, text.lastIndexOf(' '))} and`;
    // Where its time goes: each worker call the page makes meanwhile, from its start to its answer. The check above
    // ran a second engine in the page: its garbage is collected first, as a reader's page would not have it.
    await cdp.send('HeapProfiler.collectGarbage');
    await page.evaluate(() => {
      const e = window.arcscopePage.worker, call = e.call.bind(e);
      window.calls = [];
      window.callsFrom = performance.now();
      e.call = (op, ...rest) => {
        const start = performance.now() - window.callsFrom, job = call(op, ...rest);
        job.then(() => window.calls.push(`${op} ${start.toFixed(0)}-${(performance.now() - window.callsFrom).toFixed(0)}`),
          () => window.calls.push(`${op} ${start.toFixed(0)}-stopped`));
        return job;
      };
    });
    const typedWord = await typeText(page, longer, encode(longer).length);
    const calls = await page.evaluate(() => window.calls);
    console.log(`  a word typed at the end: arcs in ${typedWord.arcs.toFixed(0)} ms, painted ${typedWord.painted.toFixed(0)} ms ` +
      `(worker calls, ms from the keystroke: ${calls.join(', ')})`);
  });
}

test('<arc-scope> on a long text holds no full tensor; result.pattern() and the arcs it drew are the engine\'s', async ({ page }) => {
  const model = '/fixtures/gpt2-12x12-1024.q8.arcs', text = textOf(300);
  await page.goto(`${origin}/embed.html`);
  const got = await page.evaluate(({ model, text }) => new Promise((ok, fail) => {
    const el = document.createElement('arc-scope');
    Object.assign(el, { model, text, layer: 8, head: 'all', threshold: 0 });
    el.addEventListener('arcscope-error', (e) => fail(new Error(e.detail.message)), { once: true });
    el.addEventListener('arcscope-rendered', async () => {
      const { attention, shape } = el.result;
      const pattern = await el.result.pattern(8, 3), mean = await el.result.pattern('mean', 'max');
      ok({ attention, shape, arcs: el.result.drawnArcs(), pattern: Array.from(pattern), mean: mean.length,
        backend: el.shadowRoot.querySelector('.arcview').dataset.backend });
    }, { once: true });
    document.body.append(el);
  }), { model, text });
  const T = 300;
  expect(got.shape).toEqual([12, 12, T, T]);
  expect(got.attention).toBeNull(); // 12 x 12 x 300 x 300 floats would be 52 MB
  expect(got.backend).toBe('canvas');
  expect(got.mean).toBe(T * T);
  // topk "auto": each query's 3 strongest in each of the 12 heads.
  expect(got.arcs).toHaveLength(12 * (1 + 2 + 3 * (T - 2)));
  // The arcs drawn, and head 3's pattern as result.pattern() returned it, against the engine's.
  const pattern = got.pattern.map((weight, i) => ({ head: 3, from: Math.floor(i / T), to: i % T, weight }));
  const { worst } = await engineDifference(page, { modelUrl: model, text, layer: 8, weights: [...got.arcs, ...pattern] });
  console.log(`${got.arcs.length} arcs drawn on a canvas; largest difference from the engine's hook_pattern: ${worst}`);
  expect(worst).toBe(0);
});
