// <arc-scope> for bloggers: loading="lazy", fallback children, theme, properties, and precomputed attention (src= and
// the data property) drawn without the engine. Each test page is served with the strict CSP.
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { STRICT_CSP } from '../../scripts/serve.mjs';
import { ARTICLE_TEXT, addElement, change, drawnArcs, watchConsole } from './helpers.mjs';
import { FIXTURES } from './global-setup.mjs';

const ATTENTION = `${FIXTURES}/attention`;          // served at /fixtures/attention/
const ENGINE_FILES = /\.wasm$|\.arcs$|\/worker\.js$/;  // what only the engine fetches

// The default model's attention on the article's sentence, as `arcscope run --out` writes it, and broken variants.
test.beforeAll(() => {
  mkdirSync(ATTENTION, { recursive: true });
  execFileSync('build/native/arcscope', ['run', '--model', 'models/shakespeare-4l.q8.arcs', '--text', ARTICLE_TEXT,
    '--out', `${ATTENTION}/article.json`]);
  const article = JSON.parse(readFileSync(`${ATTENTION}/article.json`, 'utf8'));
  article.attention[2][1].pop(); // one head one query row short
  writeFileSync(`${ATTENTION}/ragged.json`, JSON.stringify(article));
  writeFileSync(`${ATTENTION}/not-json.json`, '{"tokens": ["a"], "attention": [[[[1]]]]'); // the last brace lost
});

// One layer, two heads, three tokens; the second head's rows do not sum to 1, and it attends ahead (not causal).
const TINY = {
  tokens: ['The', ' cat', ' sat'],
  attention: [[[[1, 0, 0], [0.4, 0.6, 0], [0.2, 0.3, 0.5]], [[0.5, 0.5, 0.5], [0.9, 0.1, 0], [0.1, 0.1, 0.3]]]],
  model: 'tiny example',
};

// Serves a page under /feature/ holding body (and page.css) with the strict CSP, and opens it.
async function openFeaturePage(page, body, { css = '', script = true } = {}) {
  const headers = { 'Content-Security-Policy': STRICT_CSP };
  await page.route('**/feature/page.css', (route) => route.fulfill({ headers, contentType: 'text/css', body: css }));
  await page.route('**/feature/page.html', (route) => route.fulfill({ headers, contentType: 'text/html', body:
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>feature</title>
    <link rel="stylesheet" href="page.css">
    ${script ? '<script type="module" src="/lib/arc-scope.js"></script>' : ''}</head><body>${body}</body></html>` }));
  await page.goto('./feature/page.html');
  if (script) await page.waitForFunction(() => customElements.get('arc-scope'));
}

// Adds <arc-scope id=id> with attributes and its data property set before it connects (so it never starts the
// engine); resolves like change().
const addDataElement = (page, id, data, attrs = {}) => page.evaluate(({ id, data, attrs }) => new Promise((ok) => {
  const el = document.createElement('arc-scope');
  el.id = id;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.data = data;
  el.addEventListener('arcscope-error', (e) => ok(e.detail.message), { once: true });
  el.addEventListener('arcscope-rendered', () => ok('rendered'), { once: true });
  document.body.append(el);
}), { id, data, attrs });

// Resolves once the element has drawn (now or before).
const rendered = (locator) => expect(locator.locator('[data-from], [data-weight]').first()).toBeAttached();
const frameColor = (locator) => locator.evaluate((el) => getComputedStyle(el.shadowRoot.querySelector('.frame')).backgroundColor);
const WHITE = 'rgb(255, 255, 255)', DARK = 'rgb(18, 22, 28)';  // --paper, light and dark

test('loading="lazy" fetches nothing until the element comes near the viewport, then renders', async ({ page }) => {
  const errors = watchConsole(page);
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname + new URL(r.url()).search));
  // 900 px viewport: #near starts 50 px below the fold (inside the 200 px margin), the others 3000 px further.
  await openFeaturePage(page, `<div class="fold"></div>
    <arc-scope id="near" loading="lazy" src="/fixtures/attention/article.json?near"></arc-scope>
    <div class="far"></div><arc-scope id="lazy-src" loading="lazy" src="/fixtures/attention/article.json"></arc-scope>
    <div class="far"></div><arc-scope id="lazy-model" loading="lazy" text="Now is the winter of our discontent"></arc-scope>`,
  { css: '.fold { height: 950px } .far { height: 3000px }' });
  await rendered(page.locator('#near'));
  await expect(page.locator('#lazy-src .caption')).toHaveText('loads when scrolled into view');
  await expect(page.locator('#lazy-model .caption')).toHaveText('loads when scrolled into view');
  await page.waitForTimeout(500);
  expect(requests.filter((r) => ENGINE_FILES.test(r) || r.includes('attention/'))).toEqual(['/fixtures/attention/article.json?near']);
  expect(page.workers()).toHaveLength(0);
  // Scrolled to: the src element fetches its file and draws, still without the engine.
  await page.locator('#lazy-src').scrollIntoViewIfNeeded();
  await rendered(page.locator('#lazy-src'));
  expect(requests).toContain('/fixtures/attention/article.json');
  expect(requests.filter((r) => ENGINE_FILES.test(r))).toEqual([]);
  // The model element starts the worker, the wasm and the model only when scrolled to.
  await page.locator('#lazy-model').scrollIntoViewIfNeeded();
  await rendered(page.locator('#lazy-model'));
  expect(await page.locator('#lazy-model').evaluate((el) => el.result.tokens.length)).toBe(7);
  for (const file of [/\/worker\.js$/, /\.wasm$/, /shakespeare-4l\.q8\.arcs$/]) expect(requests.some((r) => file.test(r))).toBe(true);
  expect(errors).toEqual([]);
});

test('a lazy element off screen reports a bad layer or head at once, without loading anything', async ({ page }) => {
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await openFeaturePage(page, `<div class="far"></div>
    <arc-scope id="bad-layer" loading="lazy" layer="top" text="hello"></arc-scope>
    <arc-scope id="bad-head" loading="lazy" head="-1" src="/fixtures/attention/article.json"></arc-scope>`,
  { css: '.far { height: 3000px }' });
  await expect(page.locator('#bad-layer .error')).toHaveText(/^arc-scope: layer "top" is not valid/);
  await expect(page.locator('#bad-head .error')).toHaveText(/^arc-scope: head "-1" is not valid/);
  await page.waitForTimeout(300);
  expect(requests.filter((r) => ENGINE_FILES.test(r) || r.includes('attention/'))).toEqual([]);
});

test('a loading value that is not valid is the element\'s error, and nothing loads', async ({ page }) => {
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await openFeaturePage(page, '<arc-scope id="soon" loading="soon" text="hello"></arc-scope>');
  const el = page.locator('#soon');
  await expect(el.locator('.error')).toHaveText('arc-scope: loading "soon" is not valid: use "eager" or "lazy"');
  expect(await change(el, { name: 'loading', value: '' })).toBe('loading "" is not valid: use "eager" or "lazy"');
  await page.waitForTimeout(300);
  expect(requests.filter((r) => ENGINE_FILES.test(r))).toEqual([]);
  expect(await change(el, { name: 'loading', value: 'eager' })).toBe('rendered');
  await expect(el.locator('.error')).toBeHidden();
});

test('fallback children show until the first drawing; with child elements the text attribute is required', async ({ page }) => {
  await openFeaturePage(page, `<div class="far"></div>
    <arc-scope id="with-text" loading="lazy" text="Now is the winter"><img src="/favicon.svg" alt="arcs"></arc-scope>
    <arc-scope id="no-text"><img src="/favicon.svg" alt="arcs">Now is the winter</arc-scope>
    <arc-scope id="content">Now is the winter</arc-scope>`, { css: '.far { height: 3000px } img { width: 40px }' });
  const withText = page.locator('#with-text');
  await expect(withText.locator('img')).toBeVisible();
  await withText.scrollIntoViewIfNeeded();
  await rendered(withText);
  await expect(withText.locator('img')).toBeHidden();
  expect(await withText.evaluate((el) => el.result.tokens)).toEqual(['Now', '·is', '·the', '·winter']);
  // Child elements and no text attribute: an error, and the fallback stays.
  const noText = page.locator('#no-text');
  await expect(noText.locator('.error')).toHaveText('arc-scope: give the text attribute: the child elements are the ' +
    'fallback shown until the drawing, not the text');
  await expect(noText.locator('img')).toBeVisible();
  // Text alone is still the input (and shown as the fallback until drawn).
  await rendered(page.locator('#content'));
  expect(await page.locator('#content').evaluate((el) => el.result.tokens)).toEqual(['Now', '·is', '·the', '·winter']);
  expect(await page.locator('#content').evaluate((el) => el.shadowRoot.querySelector('slot').hidden)).toBe(true);
});

test('theme="dark" and "light" override the reader\'s preference; bad values are errors; the page can restyle', async ({ page }) => {
  // Every colour variable the light palette defines; theme="dark" must match the media query's dark palette exactly.
  const css = readFileSync('web/lib/css/views.css', 'utf8');
  const names = [...css.slice(0, css.indexOf('}')).matchAll(/(--[\w-]+):/g)].map((m) => m[1]);
  expect(names).toContain('--paper');
  await page.emulateMedia({ colorScheme: 'light' });
  await openFeaturePage(page, '', {
    css: '#styled { --paper: rgb(1, 2, 3); --arc-scope-max-height: 5rem } #styled::part(caption) { color: rgb(4, 5, 6) }',
  });
  for (const [id, theme] of [['dark', 'dark'], ['light', 'light'], ['auto', null], ['styled', 'dark'], ['bad', null]]) {
    expect(await addDataElement(page, id, TINY, theme ? { theme } : {})).toBe('rendered');
  }
  const palette = (id) => page.locator(`#${id}`).evaluate((el, names) =>
    Object.fromEntries(names.map((n) => [n, getComputedStyle(el).getPropertyValue(n).trim()])), names);
  expect(await frameColor(page.locator('#dark'))).toBe(DARK);
  expect(await frameColor(page.locator('#light'))).toBe(WHITE);
  expect(await frameColor(page.locator('#auto'))).toBe(WHITE);
  const darkOnLight = await palette('dark');
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await frameColor(page.locator('#dark'))).toBe(DARK);
  expect(await frameColor(page.locator('#light'))).toBe(WHITE);
  expect(await frameColor(page.locator('#auto'))).toBe(DARK);
  expect(darkOnLight).toEqual(await palette('auto'));
  // The page's own CSS wins over the theme: custom properties on the element, and ::part.
  const styled = page.locator('#styled');
  expect(await frameColor(styled)).toBe('rgb(1, 2, 3)');
  expect(await styled.evaluate((el) => ({
    maxHeight: getComputedStyle(el.shadowRoot.querySelector('.view')).maxHeight,
    caption: getComputedStyle(el.shadowRoot.querySelector('.caption')).color,
    parts: [...el.shadowRoot.querySelectorAll('[part]')].map((p) => p.getAttribute('part')),
  }))).toEqual({ maxHeight: '80px', caption: 'rgb(4, 5, 6)', parts: ['frame', 'view', 'legend', 'caption', 'error'] });
  const bad = page.locator('#bad');
  for (const value of ['sepia', '', 'Dark']) {
    expect(await change(bad, { name: 'theme', value })).toBe(`theme "${value}" is not valid: use "auto", "light" or "dark"`);
  }
  await expect(bad.locator('.error')).toBeVisible();
  expect(await change(bad, { data: TINY })).toBe('theme "Dark" is not valid: use "auto", "light" or "dark"');
  expect(await change(bad, { name: 'theme', value: 'light' })).toBe('rendered');
  await expect(bad.locator('.error')).toBeHidden();
});

test('properties mirror the attributes, render when set, and survive being set before the module loads', async ({ page }) => {
  const names = ['text', 'model', 'src', 'layer', 'head', 'mode', 'topk', 'threshold', 'theme', 'loading'];
  await openFeaturePage(page, '');
  expect(await addDataElement(page, 'props', TINY)).toBe('rendered');
  const el = page.locator('#props');
  expect(await el.evaluate((el, names) => names.map((n) => {
    const before = el[n];
    el[n] = 7;
    const set = [el[n], el.getAttribute(n)];
    el[n] = null;
    return [n, before, ...set, el.hasAttribute(n)];
  }), names)).toEqual(names.map((n) => [n, null, '7', '7', false]));
  // Several properties set in one task: one render with all of them.
  const detail = await el.evaluate((el) => new Promise((ok) => {
    const seen = [];
    el.addEventListener('arcscope-rendered', (e) => seen.push(e.detail));
    el.head = 1; el.mode = 'matrix'; el.layer = 'mean';
    setTimeout(() => ok(seen), 300);
  }));
  expect(detail).toEqual([{ tokens: 3, layer: 'mean', head: 1, mode: 'matrix' }]);
  await expect(el.locator('rect[data-weight]')).toHaveCount(9);
  expect(await el.evaluate((el) => el.data.model)).toBe('tiny example');
  expect(await change(el, { name: 'layer', value: '1' })).toBe('layer "1" is not valid: use an integer from 0 to 0, "mean" or "max"');

  // Set on an element before <arc-scope> is defined: the upgrade keeps them.
  await openFeaturePage(page, '', { script: false });
  const result = await page.evaluate(async (data) => {
    const el = document.createElement('arc-scope');
    el.data = data;
    el.head = '1';
    el.theme = 'dark';
    document.body.append(el);
    const drawn = new Promise((ok) => el.addEventListener('arcscope-rendered', (e) => ok(e.detail), { once: true }));
    await import('/lib/arc-scope.js');
    return { detail: await drawn, theme: el.getAttribute('theme'), head: el.head, own: Object.hasOwn(el, 'data') };
  }, TINY);
  expect(result).toEqual({ detail: { tokens: 3, layer: 0, head: 1, mode: 'arcs' }, theme: 'dark', head: '1', own: false });
});

test('src= with arcscope run --out draws the same arcs as the live model on the same text', async ({ page }) => {
  const errors = watchConsole(page);
  await openFeaturePage(page, `<arc-scope id="live" text="${ARTICLE_TEXT}"></arc-scope>
    <arc-scope id="file" src="/fixtures/attention/article.json"></arc-scope>`);
  const live = page.locator('#live'), file = page.locator('#file');
  await rendered(live);
  await rendered(file);
  await expect(file.locator('.caption')).toHaveText('layer 3 · all heads · shakespeare-4l.q8.arcs');
  await expect(live.locator('.caption')).toHaveText('layer 3 · all heads · shakespeare-4l.q8.arcs');
  const labels = (el) => el.locator('.tokens.from [data-token-index]').allTextContents();
  expect(await labels(file)).toEqual(await labels(live));
  const sameResult = await page.evaluate(() => {
    const [a, b] = [...document.querySelectorAll('arc-scope')].map((el) => el.result);
    let worst = 0;
    for (let i = 0; i < a.attention.length; i++) worst = Math.max(worst, Math.abs(a.attention[i] - b.attention[i]));
    return { shapes: [a.shape, b.shape], ids: [Array.from(a.ids), b.ids], tokens: [a.tokens, b.tokens], worst };
  });
  expect(sameResult.shapes[1]).toEqual(sameResult.shapes[0]);
  expect(sameResult.ids[1]).toEqual(sameResult.ids[0]);
  expect(sameResult.tokens[1]).toEqual(sameResult.tokens[0]);
  console.log(`largest difference between the native CLI's attention and the browser's: ${sameResult.worst.toExponential(2)}`);
  // The same arcs for every layer and head setting, and the same matrix.
  const key = (a) => `${a.head}/${a.from}/${a.to}`;
  for (const [name, value] of [['layer', '0'], ['layer', '1'], ['head', '2'], ['layer', 'mean'], ['head', 'max'], ['topk', '2']]) {
    for (const el of [live, file]) expect(await change(el, { name, value })).toBe('rendered');
    const [a, b] = [await drawnArcs(page, '#live'), await drawnArcs(page, '#file')];
    expect(b.map(key), `${name}=${value}`).toEqual(a.map(key));
    for (let i = 0; i < a.length; i++) expect(b[i].weight).toBeCloseTo(a[i].weight, 5);
    expect(a.length).toBeGreaterThan(0);
  }
  for (const el of [live, file]) expect(await change(el, { name: 'mode', value: 'matrix' })).toBe('rendered');
  const cells = (id) => page.locator(`#${id} rect[data-weight]`).evaluateAll((rs) => rs.map((r) => +r.dataset.weight));
  const [a, b] = [await cells('live'), await cells('file')];
  expect(b).toHaveLength(a.length);
  for (let i = 0; i < a.length; i++) expect(b[i]).toBeCloseTo(a[i], 5);
  expect(errors).toEqual([]);
});

test('src= and the data property draw without the engine, nested or flat, and load each src once', async ({ page }) => {
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  const ready = [];
  await page.exposeFunction('noteReady', (detail) => ready.push(detail));
  await openFeaturePage(page, `<arc-scope id="a" src="/fixtures/attention/article.json" layer="0"></arc-scope>
    <arc-scope id="b" src="/fixtures/attention/article.json" head="1"></arc-scope>`);
  await rendered(page.locator('#a'));
  await rendered(page.locator('#b'));
  expect(requests.filter((r) => r.endsWith('article.json'))).toHaveLength(1);
  // The same numbers as flat Float32Array data, and as plain flat numbers: the same arcs.
  expect(await addDataElement(page, 'flat', TINY)).toBe('rendered');
  const flat = page.locator('#flat');
  await flat.evaluate((el) => el.addEventListener('arcscope-ready', (e) => window.noteReady(e.detail)));
  const { tokens, attention, shape } = await page.locator('#a').evaluate((el) => ({
    tokens: el.result.tokens, attention: Array.from(el.result.attention), shape: el.result.shape }));
  const source = JSON.parse(readFileSync(`${ATTENTION}/article.json`, 'utf8'));
  for (const typed of [true, false]) {
    expect(await change(flat, { data: { tokens: source.tokens, attention, shape }, typed })).toBe('rendered');
    expect(await change(flat, { name: 'layer', value: '0' })).toBe('rendered');
    expect(await drawnArcs(page, '#flat')).toEqual(await drawnArcs(page, '#a'));
    await flat.evaluate((el) => el.removeAttribute('layer'));
  }
  expect(await flat.evaluate((el) => el.result.tokens)).toEqual(tokens);
  await expect(flat.locator('.caption')).toHaveText('layer 3 · all heads'); // no "model" given
  expect(ready).toEqual([{ model: null, config: null, layers: 4, heads: 4, build: null },
    { model: null, config: null, layers: 4, heads: 4, build: null }]);
  expect(requests.filter((r) => ENGINE_FILES.test(r))).toEqual([]);
  expect(page.workers()).toHaveLength(0);
});

test('attention data is read strictly: each problem is a message in the element, one arcscope-error each', async ({ page, baseURL }) => {
  await openFeaturePage(page, '');
  expect(await addDataElement(page, 'data', TINY)).toBe('rendered');
  const el = page.locator('#data');
  await el.evaluate((el) => { el.errors = 0; el.addEventListener('arcscope-error', () => el.errors++); });
  const weights = 'weights must be finite numbers from 0 to 1';
  const cases = [
    ['x', 'data: it is not an object like {"tokens": [...], "attention": [...]}'],
    [[1, 2], 'data: it is not an object like {"tokens": [...], "attention": [...]}'],
    [{}, 'data: "tokens" is missing: give the text of each token, e.g. [" The", " cat"]'],
    [{ tokens: [], attention: [] }, 'data: "tokens" must be a non-empty array of strings'],
    [{ tokens: ['a', 2] }, 'data: tokens[1] is 2, not a string'],
    [{ tokens: ['a', 'b'] }, 'data: "attention" is missing: give [layer][head][query][key] arrays'],
    [{ tokens: ['a', 'b'], attention: [[[[1]]]] }, 'data: "attention" is [1, 1, 1, 1] ([layer, head, query, key]) but ' +
      '"tokens" has 2 tokens: each head needs 2 rows of 2 weights'],
    [{ tokens: ['a', 'b'], attention: [[[[1, 0], [0.5]]]] }, 'data: "attention" is ragged: attention[0][0][1] has 1 keys, ' +
      'attention[0][0][0] has 2'],
    [{ tokens: ['a', 'b'], attention: [[[[1, 0], [0.5, 0.5]]], [[[1, 0]]]] }, 'data: "attention" is ragged: ' +
      'attention[1][0] has 1 query rows, attention[0][0] has 2'],
    [{ tokens: ['a'], attention: [[[1]]] }, 'data: "attention" must nest four levels of non-empty arrays, ' +
      '[layer][head][query][key]; attention[0][0][0] is 1'],
    [{ tokens: ['a'], attention: [[[[[1]]]]] }, `data: attention[0][0][0][0] is [1]: ${weights}`],
    [{ tokens: ['a', 'b'], attention: [[[[1, 0], [-0.5, 1]]]] }, `data: attention[0][0][1][0] is -0.5: ${weights}`],
    [{ tokens: ['a', 'b'], attention: [[[[1, 0], [1.5, 0]]]] }, `data: attention[0][0][1][0] is 1.5: ${weights}`],
    [{ tokens: ['a', 'b'], attention: [[[[1, null], [1, 0]]]] }, `data: attention[0][0][0][1] is null: ${weights} ` +
      '(JSON writers save NaN and infinities as null)'],
    [{ tokens: ['a', 'b'], attention: [[[[1, '0'], [1, 0]]]] }, `data: attention[0][0][0][1] is "0": ${weights}`],
    [{ tokens: ['a', 'b'], attention: [1, 0, 1, 0] }, 'data: "attention" is a flat list of numbers, so "shape": ' +
      '[L, H, T, T] is needed'],
    [{ tokens: ['a', 'b'], attention: [1, 0, 1], shape: [1, 1, 2, 2] }, 'data: "attention" has 3 numbers but "shape" ' +
      '[1, 1, 2, 2] needs 4'],
    [{ tokens: ['a', 'b'], attention: [1, 0, 1, 0], shape: [1, 1, 2] }, 'data: "shape" must be four positive integers ' +
      '[L, H, T, T], not [1,1,2]'],
    [{ tokens: ['a', 'b'], attention: [1, 0, 1, 0], shape: [1, 1, 4, 1] }, 'data: "attention" is [1, 1, 4, 1] ' +
      '([layer, head, query, key]) but "tokens" has 2 tokens: each head needs 2 rows of 2 weights'],
    [{ tokens: ['a', 'b'], attention: [[[[1, 0], [1, 0]]]], shape: [1, 2, 2, 2] }, 'data: "shape" is [1,2,2,2] but ' +
      '"attention" is [1,1,2,2]'],
    [{ tokens: ['a', 'b'], attention: [[[[1, 0], [1, 0]]]], ids: [1] }, 'data: "ids" must be 2 non-negative integers, ' +
      'one per token (or leave it out)'],
    [{ tokens: ['a', 'b'], attention: [[[[1, 0], [1, 0]]]], model: 3 }, 'data: "model" must be a string (or leave it out)'],
    [{ tokens: ['a', 'b'], attention: 'lots' }, 'data: "attention" is "lots": give [layer][head][query][key] arrays, ' +
      'or flat numbers with "shape": [L, H, T, T]'],
  ];
  for (const [data, message] of cases) {
    expect(await change(el, { data }), JSON.stringify(data)).toBe(message);
    await expect(el.locator('.error')).toHaveText(`arc-scope: ${message}`);
  }
  // Flat typed arrays name the layer, head, query and key of a bad number.
  expect(await change(el, { data: { tokens: ['a', 'b'], attention: [1, 0, NaN, 0], shape: [1, 1, 2, 2] }, typed: true }))
    .toBe(`data: attention[2] (layer 0, head 0, query 1, key 0) is NaN: ${weights}`);
  // layer and head are checked against the data's L and H.
  expect(await change(el, { data: TINY })).toBe('rendered');
  await expect(el.locator('.error')).toBeHidden();
  expect(await change(el, { name: 'head', value: '2' })).toBe('head "2" is not valid: use an integer from 0 to 1, "all", "mean" or "max"');
  expect(await change(el, { name: 'head', value: null })).toBe('rendered');
  // Not causal, rows not summing to 1: drawn as given (the second head's first token attends ahead).
  expect(await el.evaluate((el) => [...el.shadowRoot.querySelectorAll('path[data-head="1"][data-from="0"]')]
    .map((p) => p.dataset.to))).toEqual(['0', '1', '2']);
  // One source at a time, and no text with data.
  expect(await change(el, { name: 'src', value: '/fixtures/attention/article.json' }))
    .toBe('the data property and src are both set: give one source of attention');
  expect(await change(el, { name: 'src', value: null })).toBe('rendered');
  expect(await change(el, { name: 'text', value: 'hello' })).toBe('text is not used with the data property, whose ' +
    'tokens come with the attention: remove text');
  expect(await change(el, { name: 'text', value: null })).toBe('rendered');
  expect(await el.evaluate((el) => el.errors)).toBe(cases.length + 4);

  // src: HTTP errors with the URL and status, files that are not attention JSON, and the same checks.
  await page.evaluate(() => {
    const el = Object.assign(document.createElement('arc-scope'), { id: 'file' });
    el.setAttribute('src', '/fixtures/attention/article.json');
    document.body.append(el);
  });
  const file = page.locator('#file');
  await rendered(file);
  const at = (path) => new URL(path, baseURL).href;
  const srcCases = [
    ['/fixtures/attention/missing.json', `could not load ${at('/fixtures/attention/missing.json')}: HTTP 404 Not Found`],
    ['/fixtures/attention/not-json.json', `${at('/fixtures/attention/not-json.json')} is not JSON: `], // then V8's words
    ['/embed.html', `${at('/embed.html')} is a web page, not attention JSON`],
    ['/fixtures/attention/ragged.json', `${at('/fixtures/attention/ragged.json')}: "attention" is ragged: ` +
      'attention[2][1] has 12 query rows, attention[0][0] has 13'],
    ['', 'src "" is not valid: use the URL of an attention JSON file, or leave it out to run a model on the text'],
  ];
  for (const [src, message] of srcCases) {
    const shown = await change(file, { name: 'src', value: src });
    if (message.endsWith(': ')) expect(shown.startsWith(message), shown).toBe(true);
    else expect(shown, src).toBe(message);
    await expect(file.locator('.error')).toHaveText(`arc-scope: ${shown}`);
  }
  expect(await change(file, { name: 'src', value: '/fixtures/attention/article.json' })).toBe('rendered');
  expect(await change(file, { name: 'layer', value: '4' })).toBe('layer "4" is not valid: use an integer from 0 to 3, "mean" or "max"');
  expect(await change(file, { name: 'model', value: '/models/shakespeare-4l.q8.arcs' }))
    .toBe('src and model are both set: give one source of attention');
});

test('a src download has a stall timeout and a size bound, each named; a failed one is forgotten, so asking again draws', async ({ page, baseURL }) => {
  await openFeaturePage(page, '');
  // The page's downloads (src) give up after 1 s without data here: model-source.js's clock, 20 s unless set.
  await page.evaluate(() => import('/lib/shared/downloads.js').then((m) => m.setStallTimeout(1)));
  const cached = () => page.evaluate(() => import('/lib/arc-scope.js').then((m) => m.analysisCache().entries));
  const at = (path) => new URL(path, baseURL).href;
  // scripts/serve.mjs's /hostile/stall-once.json: half its JSON and then nothing the first time, whole after.
  const whole = JSON.stringify({ tokens: ['a', 'b'], attention: [[[[1, 0], [0.5, 0.5]]]] }).length;
  const flaky = '/hostile/stall-once.json?element';
  await expect(addElement(page, { src: flaky })).rejects.toThrow(`the download of ${at(flaky)} stalled: no data for ` +
    `1 s (received ${whole >> 1} B of ${whole} B)`);
  const el = page.locator('#added-0');
  await expect(el.locator('.error')).toHaveText(/^arc-scope: the download of .* stalled/);
  expect(await cached()).toBe(0); // the failed download is not kept, neither its promise nor its bytes
  expect(await change(el, { name: 'src', value: flaky })).toBe('rendered'); // the same src again: a new download
  expect(await el.evaluate((el) => el.result.tokens)).toEqual(['a', 'b']);
  expect(await cached()).toBe(1);
  // A gzip bomb stops at the bound as it inflates; a declared size past it is refused at once. Neither is kept.
  expect(await change(el, { name: 'src', value: '/hostile/bomb.json' }))
    .toBe(`${at('/hostile/bomb.json')} is larger than 64.0 MB, the most a src file may be`);
  expect(await change(el, { name: 'src', value: '/hostile/huge.json' }))
    .toBe(`${at('/hostile/huge.json')} is larger than 64.0 MB, the most a src file may be (it is 100.0 MB)`);
  expect(await cached()).toBe(1);
});

test('an engine that cannot even be created is the element\'s error, once, with the fallback still shown', async ({ page }) => {
  await page.addInitScript(() => {
    window.Worker = class { constructor() { throw new Error('workers are switched off here'); } };
  });
  await openFeaturePage(page, '<arc-scope id="one" text="hello"><img src="/favicon.svg" alt="arcs"></arc-scope>');
  const el = page.locator('#one');
  await expect(el.locator('.error')).toContainText('workers are switched off here');
  await expect(el.locator('img')).toBeVisible();
  const events = await el.evaluate((el) => new Promise((ok) => {
    const seen = [];
    el.addEventListener('arcscope-error', (e) => seen.push(e.detail.message));
    el.setAttribute('text', 'hello again');
    setTimeout(() => ok(seen), 500);
  }));
  expect(events).toHaveLength(1);
  expect(events[0]).toContain('workers are switched off here');
});
