// Hostile input: no hang, bounded memory, a failure never harms another model, and messages a person understands.
// The misbehaving servers are scripts/serve.mjs's /hostile/ routes (--test-routes).
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { openPage, waitForRender, renders, addElement, change, engineCall, engineAttention, stallAfter, watchConsole,
  ARTICLE_TEXT, DEFAULT_MODEL, FIXTURE_ARCS } from './helpers.mjs';

const MB = (n) => `${(n / 1e6).toFixed(1)} MB`;
const MODEL_SIZE = readFileSync('models/shakespeare-4l.q8.arcs').length;

// The shadow root's error line of an element, as shown.
const errorLine = (page, id) => page.locator(`#${id} .error`);

test('a model URL that stalls or never answers fails with a clear message, and never holds up another element', async ({ page, baseURL }) => {
  await page.goto('./embed.html');
  await expect(page.locator('#example-arcs path[data-from]').first()).toBeAttached();
  // 10 s, not the default 30: long enough that the element below renders first even on a busy machine.
  await stallAfter(page, 10);
  const stalled = addElement(page, { text: 'hello', model: '/hostile/stall.arcs' });
  const silent = addElement(page, { text: 'hello', model: '/hostile/never.arcs' });
  stalled.catch(() => {}); silent.catch(() => {});
  // While both downloads hang, an element on the default model renders, and the stalled ones have no error yet.
  const started = Date.now();
  const fine = await addElement(page, { text: 'Now is the winter of our discontent' });
  console.log(`an element on the default model rendered ${Date.now() - started} ms after two hanging ones were added`);
  expect(fine.tokens).toHaveLength(7);
  await expect(errorLine(page, 'added-2')).toBeHidden();
  await expect(errorLine(page, 'added-3')).toBeHidden();
  // Then each hanging one gives up with words that say what happened.
  const url = (path) => new URL(path, baseURL).href;
  await expect(stalled).rejects.toThrow(`the download of ${url('/hostile/stall.arcs')} stalled: no data for 10 s ` +
    `(received 66 kB of ${MB(MODEL_SIZE)})`);
  await expect(silent).rejects.toThrow(`the download of ${url('/hostile/never.arcs')} stalled: no answer from the server for 10 s`);
  await expect(errorLine(page, 'added-2')).toBeVisible();
  await expect(errorLine(page, 'added-2')).toHaveAttribute('role', 'alert');
  await expect(errorLine(page, 'added-2')).toContainText('arc-scope: the download of');
  console.log(`shown: ${await errorLine(page, 'added-2').textContent()}`);
  console.log(`shown: ${await errorLine(page, 'added-3').textContent()}`);
  // The examples still draw.
  await expect(page.locator('#example-arcs path[data-from]').first()).toBeAttached();
});

test('the explorer keeps working while a model download stalls, then says why and keeps its model', async ({ page, baseURL }) => {
  await openPage(page);
  const status = await page.locator('#model-status').textContent();
  await stallAfter(page, 10);  // long enough for the edit below to render first on a busy machine
  const stall = new URL('/hostile/stall.arcs', baseURL).href;
  await page.evaluate((url) => { location.hash = `#model=${encodeURIComponent(url)}`; }, stall);
  await expect(page.locator('#model-status')).toHaveClass(/busy/);
  // The text still goes through the current model while the download hangs.
  const before = await renders(page);
  await page.fill('#text', 'To be, or not to be');
  await expect.poll(() => renders(page), { timeout: 9_000 }).toBeGreaterThan(before);
  await expect(page.locator('#model-status')).toHaveClass(/busy/);
  await expect(page.locator('#model-error')).toContainText(`Could not load the model ${stall}: the download of ${stall} stalled`);
  await expect(page.locator('#model-status')).toHaveText(status);
  await expect(page.locator('#view .tokens.from [data-token-index]')).toHaveCount(7);
  // The link names the model on screen again, not the one that failed.
  await page.fill('#text', 'To be, or not to be, that is');
  await expect.poll(() => page.url()).toContain('that%20is');
  expect(page.url()).not.toContain('hostile');
});

test('a load can be cancelled, and the same URL can be asked for again', async ({ page, baseURL }) => {
  await page.goto('./embed.html');
  const url = new URL('/hostile/never.arcs', baseURL).href;
  const outcome = () => page.evaluate(async (url) => {
    const { sharedEngine } = await import('/lib/worker-client.js');
    const worker = sharedEngine();
    const started = performance.now();
    const loading = worker.loadModel(url);
    setTimeout(() => worker.cancel(loading), 200);
    try { await loading; return 'loaded?'; } catch (e) { return { message: e.message, ms: performance.now() - started }; }
  }, url);
  for (let i = 0; i < 2; i++) {
    const { message, ms } = await outcome();
    expect(message).toBe('cancelled');
    expect(ms).toBeLessThan(2_000); // the default stall timeout is 20 s
  }
});

test('a valid model under a name that is not valid percent-encoding loads and shows its name', async ({ page }) => {
  await page.goto('./embed.html');
  const r = await addElement(page, { text: 'hello world', model: '/hostile/100%ZZ.arcs' });
  expect(r.tokens).toHaveLength(2);
  await expect(page.locator('#added-2 .caption')).toContainText('100%ZZ.arcs');
});

// The same analysis twice: the exact bytes of the attention and of the next-token probabilities.
const fingerprint = (page, key, text) => page.evaluate(async ({ key, text }) => {
  const { sharedEngine } = await import('/lib/worker-client.js');
  const r = await sharedEngine().call('analyze', { model: key, text, topk: 5 });
  const attention = (await sharedEngine().call('attentionTensor', { model: key, ids: r.ids })).data;
  return { ids: r.ids, attention: Array.from(new Uint8Array(attention.buffer)), next: r.next,
    probs: Array.from(new Uint8Array(Float32Array.from(r.next.map((n) => n.prob)).buffer)) };
}, { key, text });

test('rejected requests leave the loaded model exactly as it was', async ({ page, baseURL }) => {
  test.setTimeout(360_000);
  const errors = watchConsole(page);
  await openPage(page);
  const url = (path) => new URL(path, baseURL).href;
  const key = url(DEFAULT_MODEL);
  const before = await fingerprint(page, key, ARTICLE_TEXT);
  await stallAfter(page, 1);
  const reject = (op, args) => engineCall(page, op, args).then(() => 'accepted?', (e) => e.message);
  const messages = await Promise.all([
    reject('loadModel', { url: url('/hostile/page.arcs') }),
    reject('loadModel', { url: url('/hostile/truncated.arcs') }),
    reject('loadModel', { url: url('/models/missing.arcs') }),
    reject('loadModel', { url: url('/hostile/stall.arcs') }),
    reject('loadModel', { url: url('/hostile/never.arcs') }),
    reject('loadModel', { url: url('/hostile/cut.arcs') }),
    reject('convertModel', { source: { safetensorsUrl: url('/hostile/page.arcs'), configUrl: url('/fixtures/tiny-hf/config.json') },
      key: 'hostile-conversion', name: 'hostile' }),
    reject('analyze', { model: key, text: ' word'.repeat(300) }),
    reject('analyze', { model: key, ids: [50257] }),
    reject('analyze', { model: key, ids: [1.5] }),
    reject('analyze', { model: url('/models/missing.arcs'), text: 'hello' }),
    reject('generate', { model: key, ids: [] }),
    reject('noSuchOp', {}),
    // Crafted files (tests/e2e/global-setup.mjs): sizes that would wrap in wasm's 32 bits, non-finite weights.
    reject('convertModel', { source: { safetensorsUrl: url('/fixtures/hostile/claims-15gb/model.safetensors'),
      configUrl: url('/fixtures/hostile/claims-15gb/config.json') }, key: 'claims-15gb', name: 'claims-15gb' }),
    reject('convertModel', { source: { safetensorsUrl: url('/fixtures/hostile/nan-weight/model.safetensors'),
      configUrl: url('/fixtures/hostile/nan-weight/config.json') }, key: 'nan-weight', name: 'nan-weight' }),
    reject('loadModel', { url: url('/fixtures/hostile/nan-scale.q8.arcs') }),
    // 32,769 tokens is this model's context, but an analysis runs on at most the 4,096 the memory is planned for
    // (model-memory.js): refused before the pass, whose KV cache and T x T would not fit.
    reject('attention', { model: url('/fixtures/hostile/long-context.q8.arcs'), ids: new Array(32769).fill(464),
      layer: 0, head: 0 }),
    // A weight format the converter does not have: refused before anything is downloaded.
    reject('convertModel', { source: { safetensorsUrl: url('/fixtures/tiny-hf/model.safetensors'),
      configUrl: url('/fixtures/tiny-hf/config.json') }, key: 'tiny-q4', name: 'tiny', dtype: 'q4' }),
  ]);
  for (const m of messages) console.log(`rejected: ${m}`);
  expect(messages).not.toContain('accepted?');
  expect(messages[0]).toBe(`${url('/hostile/page.arcs')} sent a web page, not the file: check that the link points at ` +
    'the file itself (on Hugging Face, a /resolve/ link rather than /blob/)');
  // messages[1] (a truncated file): the engine's own words (checked by its tests), after the URL they are about.
  expect(messages[1]).toMatch(new RegExp(`^${url('/hostile/truncated.arcs').replace(/[.?]/g, '\\$&')}: truncated: `));
  expect(messages[2]).toContain('HTTP 404');
  expect(messages[3]).toMatch(/stalled: no data for 1 s \(received 66 kB of/);
  expect(messages[4]).toMatch(/stalled: no answer from the server for 1 s/);
  expect(messages[5]).toMatch(new RegExp(`broke off after [\\d.]+ MB of ${MB(MODEL_SIZE)}`));
  expect(messages[6]).toContain('sent a web page');
  expect(messages[7]).toBe('the text is 300 tokens long; this model reads at most 256');
  expect(messages[8]).toContain('50257');
  expect(messages[13]).toMatch(/^truncated checkpoint: model\.safetensors is 82\.8 KB \(82843 bytes\) but its header describes 15\.3 GB/);
  expect(messages[14]).toBe('tensor ln_f.bias holds a non-finite value (NaN) at index 7');
  expect(messages[15]).toMatch(/\/fixtures\/hostile\/nan-scale\.q8\.arcs: tensor wte\.weight has a non-finite q8 scale \(NaN\) for row 3, columns 0-31/);
  expect(messages[16]).toBe('the text is 32769 tokens long; this model reads 32769, and an analysis here runs on at ' +
    "most 4096, what the engine's memory is planned for");
  expect(messages[17]).toBe("dtype must be q8, q16 or f32, got 'q4'");
  // Bad element attributes, through the same worker.
  await page.evaluate(() => import('/lib/arc-scope.js'));
  await expect(addElement(page, { text: 'hello', layer: '1.5' })).rejects.toThrow('layer "1.5" is not valid');
  await expect(addElement(page, { text: ' word'.repeat(300) })).rejects.toThrow('this model reads at most 256');
  // The model gives the very same numbers, and the rest of the engine works.
  const after = await fingerprint(page, key, ARTICLE_TEXT);
  expect(after.ids).toEqual(before.ids);
  expect(after.attention.length).toBe(before.attention.length);
  expect(after.attention).toEqual(before.attention);
  expect(after.probs).toEqual(before.probs);
  expect(after.next.map((n) => n.token)).toEqual(before.next.map((n) => n.token));
  const tokens = await engineCall(page, 'tokenize', { text: 'Hello world' });
  expect(tokens.ids).toEqual([15496, 995]);
  const shown = await renders(page);
  await page.fill('#text', 'The end of the test');
  await waitForRender(page, shown);
  expect(errors.filter((e) => !/404|Failed to load resource/.test(e))).toEqual([]);
});

// The engine module, with core.topK made to free a wild pointer when asked for 13 tokens: a real wasm trap
// ("memory access out of bounds") inside the page's real worker, on demand.
async function trapOnTopK13(page) {
  await page.route('**/lib/wasm/arcscope_core.js', async (route) => {
    const response = await route.fetch();
    const body = (await response.text()).replace('export default createArcscopeCore;', `
export default (options) => createArcscopeCore(options).then((core) => {
  self.enginesStarted = (self.enginesStarted || 0) + 1;
  const topK = core.topK;
  core.topK = (logits, k) => (k === 13 ? core._free(-16) : topK(logits, k));
  return core;
});`);
    expect(body).toContain('core._free(-16)');
    await route.fulfill({ response, body });
  });
}

test('a crash in the engine says what it was doing, restarts the engine, and every model comes back', async ({ page, baseURL }) => {
  await trapOnTopK13(page);
  await openPage(page);
  const key = new URL(DEFAULT_MODEL, baseURL).href;
  const before = await fingerprint(page, key, ARTICLE_TEXT);
  // A model from picked bytes: after the crash it comes back from Cache Storage.
  const picked = await page.evaluate(async (url) => {
    const { sharedEngine } = await import('/lib/worker-client.js');
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    return (await sharedEngine().loadModelBytes(bytes, 'local:tiny.q8.arcs:1', 'tiny.q8.arcs')).key;
  }, FIXTURE_ARCS);
  const message = await engineCall(page, 'analyze', { model: key, text: ARTICLE_TEXT, topk: 13 }).then(() => null, (e) => e.message);
  console.log(`message: ${message}`);
  expect(message).toBe(`the engine crashed while running the model on ${before.ids.length} tokens (memory access out of ` +
    'bounds); it has been restarted, and your models load again when next used');
  expect(await engineCall(page, 'models')).toEqual([]); // the broken engine's models are gone with it
  const after = await fingerprint(page, key, ARTICLE_TEXT);
  expect(await page.workers()[0].evaluate(() => self.enginesStarted)).toBe(2); // and that result came from a fresh one
  expect(after.attention).toEqual(before.attention);
  expect(after.probs).toEqual(before.probs);
  const tinyResult = await engineCall(page, 'analyze', { model: picked, text: 'hello' });
  expect(tinyResult.shape.slice(0, 2)).toEqual([2, 3]);
  // The page's explorer goes on with the fresh engine.
  const shown = await renders(page);
  await page.fill('#text', 'After the crash');
  await waitForRender(page, shown);
  await expect(page.locator('#explore-error')).toBeHidden();
});

test('the queries and keys the worker keeps outlive other operations and a crash: a head asked for later is the engine\'s', async ({ page, baseURL }) => {
  await trapOnTopK13(page);
  await openPage(page);
  const key = new URL(DEFAULT_MODEL, baseURL).href;
  const { ids } = await engineCall(page, 'analyze', { model: key, text: ARTICLE_TEXT });
  const { attention, shape: [L, H, T] } = await engineAttention(page, DEFAULT_MODEL, ARTICLE_TEXT);
  const head = (l, h) => attention.slice((l * H + h) * T * T, (l * H + h + 1) * T * T);
  // Other texts, a generation and the head scores run on the model in between, then the engine crashes.
  await engineCall(page, 'analyze', { model: key, text: 'Now is the winter of our discontent' });
  await engineCall(page, 'generate', { model: key, ids: [464, 3797], maxTokens: 3 });
  await engineCall(page, 'headScores', { model: key });
  const crash = await engineCall(page, 'analyze', { model: key, ids, topk: 13 }).then(() => null, (e) => e.message);
  expect(crash).toContain('the engine crashed');
  const { data, shape } = await engineCall(page, 'attention', { model: key, ids, layer: 1, head: 2 });
  expect(shape).toEqual([T, T]);
  expect(Array.from(data)).toEqual(head(1, 2));
  const max = await engineCall(page, 'attention', { model: key, ids, layer: 'max', head: 0 });
  const layers = Array.from({ length: L }, (_, l) => head(l, 0));
  for (let i = 0; i < T * T; i++) expect(max.data[i]).toBe(Math.max(...layers.map((m) => m[i])));
  expect(await engineCall(page, 'attention', { model: key, ids, layer: L, head: 0 }).catch((e) => e.message))
    .toBe(`layer must be an integer from 0 to ${L - 1}, 'mean' or 'max'; got ${L}`);
});

test('an element keeps to its own error when the worker cannot even start, and never hangs', async ({ page }) => {
  await page.route('**/lib/worker/worker.js', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.goto('./embed.html');
  await expect(page.locator('#example-arcs .error')).toContainText('arc-scope: the engine worker failed to start');
  // A later element fails at once too instead of waiting for an answer that cannot come.
  await expect(addElement(page, { text: 'hello' })).rejects.toThrow('the engine worker failed to start');
});

test('attribute values are read strictly: each bad one is an error in the element, and fixing it renders again', async ({ page }) => {
  await page.goto('./embed.html');
  await addElement(page, { text: 'Now is the winter of our discontent', topk: '2' });
  const el = page.locator('#added-2');
  const { L, H } = await el.evaluate((el) => ({ L: el.result.shape[0], H: el.result.shape[1] }));
  const layers = `use an integer from 0 to ${L - 1}, "mean" or "max"`;
  const heads = `use an integer from 0 to ${H - 1}, "all", "mean" or "max"`;
  const topks = 'use an integer from 0 up (0 draws every arc) or "auto"';
  const cases = [
    ['layer', '-1', layers], ['layer', '1.5', layers], ['layer', '', layers], ['layer', '0x2', layers],
    ['layer', '1e9', layers], ['layer', String(L), layers], ['layer', ' 1', layers], ['layer', 'Mean', layers],
    ['head', '-1', heads], ['head', String(H), heads], ['head', 'every', heads], ['head', '', heads],
    ['mode', 'heatmap', 'use "arcs", "matrix" or "ablation"'], ['mode', '', 'use "arcs", "matrix" or "ablation"'],
    ['topk', '-1', topks], ['topk', '1.5', topks], ['topk', 'abc', topks], ['topk', 'Auto', topks],
    ['threshold', 'abc', 'use a number from 0 to 1'], ['threshold', '-0.1', 'use a number from 0 to 1'],
    ['threshold', '1.5', 'use a number from 0 to 1'], ['threshold', '0x1', 'use a number from 0 to 1'],
    ['threshold', '', 'use a number from 0 to 1'],
    ['model', '', 'use the URL of an .arcs model file, or leave it out for the default model'],
  ];
  const set = (name, value) => change(el, { name, value });
  for (const [name, value, expected] of cases) {
    const message = `${name} "${value}" is not valid: ${expected}`;
    expect(await set(name, value)).toBe(message);
    await expect(el.locator('.error')).toBeVisible();
    await expect(el.locator('.error')).toHaveText(`arc-scope: ${message}`);
    expect(await set(name, null)).toBe('rendered');
    await expect(el.locator('.error')).toBeHidden();
  }
  console.log(`e.g. arc-scope: layer "1.5" is not valid: ${layers}`);
  // Valid values of every kind render.
  for (const [name, value] of [['layer', '0'], ['layer', 'mean'], ['layer', String(L - 1)], ['head', 'max'], ['head', '0'],
    ['mode', 'matrix'], ['mode', 'arcs'], ['topk', '0'], ['topk', 'auto'], ['threshold', '0'], ['threshold', '1'], ['threshold', '.5'],
    ['threshold', '1e-3']]) {
    expect(await set(name, value), `${name}="${value}"`).toBe('rendered');
  }
  await expect(el.locator('.error')).toBeHidden();
});

test('the analysis cache shared by elements stays within its byte budget', async ({ page }) => {
  await page.goto('./embed.html');
  await addElement(page, { text: 'hello', topk: '1', threshold: '0.5' });
  const result = await page.locator('#added-2').evaluate(async (el) => {
    const { analysisCache } = await import('/lib/arc-scope.js');
    const seen = [];
    const started = performance.now();
    for (let i = 0; i < 24; i++) {
      const drawn = new Promise((ok, fail) => {
        el.addEventListener('arcscope-rendered', ok, { once: true });
        el.addEventListener('arcscope-error', (e) => fail(new Error(e.detail.message)), { once: true });
      });
      // About 226 tokens each: 4 MB of attention on the default model.
      el.setAttribute('text', `${i}: ${'The cat sat on the mat, and the dog lay by the door. '.repeat(16)}`);
      await drawn;
      seen.push({ ...analysisCache(), analysis: el.result.attention.byteLength });
    }
    return { seen, ms: performance.now() - started };
  });
  const { seen, ms } = result;
  const last = seen.at(-1);
  console.log(`24 texts in ${ms.toFixed(0)} ms; cache: ${last.entries} entries, ${MB(last.bytes)} of ${MB(last.budget)}; ` +
    `one analysis ${MB(last.analysis)}`);
  expect(seen.reduce((total, s) => total + s.analysis, 0)).toBeGreaterThan(last.budget); // more than fits
  for (const s of seen) expect(s.bytes).toBeLessThanOrEqual(s.budget);
  expect(last.bytes).toBeGreaterThan(last.budget - 2 * last.analysis); // it evicts only what it must
  expect(last.entries).toBeLessThan(seen.length);
});
