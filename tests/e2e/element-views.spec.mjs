// <arc-scope>'s views as a reader sees them: the matrix of every head says that it is their mean, arcs of every head
// come with a key from colour to head (the explorer's legend), and a matrix shows every row at the default height.
// Attention is given as data (no engine), in the shape of the default model and of GPT-2 small.
import { test, expect } from '@playwright/test';
import { STRICT_CSP } from '../../scripts/serve.mjs';

// A causal attention tensor [L, H, T, T] (flat) whose rows sum to 1, each head with its own pattern.
function attention(L, H, T) {
  const a = new Float32Array(L * H * T * T);
  for (let m = 0; m < L * H; m++) {
    for (let i = 0; i < T; i++) {
      const row = a.subarray((m * T + i) * T, (m * T + i + 1) * T);
      for (let j = 0; j <= i; j++) row[j] = 1 + ((m + j) % 3);
      const sum = row.reduce((s, x) => s + x, 0);
      for (let j = 0; j <= i; j++) row[j] /= sum;
    }
  }
  return a;
}

const tokensOf = (T) => Array.from({ length: T }, (_, i) => (i ? ` word${i}` : 'Start'));

// A page with the strict policy and the element's module; then an element drawing data of shape [L, H, T, T].
async function drawData(page, { L = 1, H, T, attrs = {}, css = '' }) {
  const headers = { 'Content-Security-Policy': STRICT_CSP };
  await page.route('**/views/page.css', (route) => route.fulfill({ headers, contentType: 'text/css', body: css }));
  await page.route('**/views/page.html', (route) => route.fulfill({ headers, contentType: 'text/html', body:
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>views</title><link rel="stylesheet" href="page.css">
    <script type="module" src="/lib/arc-scope.js"></script></head><body></body></html>` }));
  await page.goto('./views/page.html');
  await page.waitForFunction(() => customElements.get('arc-scope'));
  const data = { tokens: tokensOf(T), shape: [L, H, T, T], attention: Array.from(attention(L, H, T)), model: 'data' };
  const outcome = await page.evaluate(({ data, attrs }) => new Promise((ok) => {
    const el = document.createElement('arc-scope');
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    el.data = { ...data, attention: new Float32Array(data.attention) };
    el.addEventListener('arcscope-error', (e) => ok(e.detail.message), { once: true });
    el.addEventListener('arcscope-rendered', () => ok('rendered'), { once: true });
    document.body.append(el);
  }), { data, attrs });
  expect(outcome).toBe('rendered');
  // Sizes are read once the element's stylesheets apply (they load beside its module, after it may have drawn).
  await page.locator('arc-scope').evaluate((el) => Promise.all([...el.shadowRoot.querySelectorAll('link[rel=stylesheet]')]
    .map((link) => link.sheet || new Promise((ok) => link.addEventListener('load', ok, { once: true })))));
  return page.locator('arc-scope');
}

test('mode="matrix" with head="all" draws the heads\' mean and its caption says so', async ({ page }) => {
  for (const H of [4, 12]) {
    const el = await drawData(page, { H, T: 5, attrs: { mode: 'matrix', head: 'all', layer: '0' } });
    await expect(el.locator('[part="caption"]')).toHaveText(`layer 0 · mean of ${H} heads · data`);
    // The cells are that mean.
    const { cells, mean } = await el.evaluate(async (node) => ({
      cells: [...node.shadowRoot.querySelectorAll('rect[data-weight]')].map((r) => Number(r.dataset.weight)),
      mean: [...await node.result.pattern(0, 'mean')],
    }));
    expect(cells.length).toBe(25);
    for (let k = 0; k < 25; k++) expect(cells[k]).toBeCloseTo(mean[k], 5);
    await expect(el.locator('[part="legend"]')).toBeHidden();
  }
  // One head, or arcs: no mean to speak of.
  const one = await drawData(page, { H: 4, T: 5, attrs: { mode: 'matrix', head: '2', layer: '0' } });
  await expect(one.locator('[part="caption"]')).toHaveText('layer 0 · head 2 · data');
  const arcs = await drawData(page, { H: 4, T: 5, attrs: { head: 'all', layer: '0' } });
  await expect(arcs.locator('[part="caption"]')).toHaveText('layer 0 · all heads · data');
});

test('arcs of every head come with a key from colour to head, the explorer\'s; one head or a mean has none', async ({ page }) => {
  for (const H of [4, 12, 25]) {
    const el = await drawData(page, { H, T: 6, attrs: { head: 'all', layer: '0', topk: '0' } });
    const legend = el.locator('[part="legend"]');
    await expect(legend).toBeVisible();
    const chips = await legend.locator('.chip').evaluateAll((cs) => cs.map((c) => ({
      text: c.textContent, head: Number(c.dataset.head), color: getComputedStyle(c.querySelector('.key')).backgroundColor })));
    expect(chips.map((c) => c.text)).toEqual(Array.from({ length: H }, (_, h) => `head ${h}`));
    // Each head's arcs are drawn in its chip's colour.
    const strokes = await el.locator('path[data-head]').evaluateAll((ps) => ps.map((p) => ({
      head: Number(p.dataset.head), color: getComputedStyle(p).stroke })));
    expect(new Set(strokes.map((s) => s.head)).size).toBe(H);
    for (const { head, color } of strokes) expect(color, `head ${head}`).toBe(chips[head].color);
    // Past the palette's 12 colours, the key says that heads share one.
    if (H > 12) await expect(legend.locator('.legend-note')).toHaveText(`${H} heads in 12 colours: heads 12 apart share one (0, 12, 24…).`);
    else await expect(legend.locator('.legend-note')).toHaveCount(0);
  }
  for (const head of ['1', 'mean']) {
    const el = await drawData(page, { H: 4, T: 6, attrs: { head, layer: '0' } });
    await expect(el.locator('[part="legend"]')).toBeHidden();
  }
});

// Where the last row's cells end, and where the view's visible part does, as the reader first sees it.
const lastRow = (el) => el.evaluate((node) => {
  const view = node.shadowRoot.querySelector('[part="view"]');
  const cells = [...node.shadowRoot.querySelectorAll('rect[data-weight]')];
  return { last: Math.round(cells[cells.length - 1].getBoundingClientRect().bottom),
    view: Math.round(view.getBoundingClientRect().top + view.clientHeight), scrolls: view.scrollHeight > view.clientHeight };
});

test('a matrix shows every row at the default height and at a page\'s own, without scrolling', async ({ page }) => {
  for (const [css, most] of [['', 512], ['arc-scope { --arc-scope-max-height: 20rem; }', 320]]) {
    for (const T of [5, 12, 13, 14, 24, 40, 64, 96]) {
      const el = await drawData(page, { H: 1, T, attrs: { mode: 'matrix', head: '0', layer: '0' }, css });
      const sight = await lastRow(el);
      console.log(`${css || 'default height'}, ${T} tokens: last row ends at ${sight.last} px, the view at ${sight.view} px`);
      expect(sight.last, `${T} tokens: the last row is below the view's visible part`).toBeLessThanOrEqual(sight.view);
      expect(sight.scrolls, `${T} tokens`).toBe(false);
      // and the matrix is no smaller than it must be: as wide as 38rem, or as tall as the view
      const box = await el.evaluate((node) => node.shadowRoot.querySelector('svg.heatmap').getBoundingClientRect().toJSON());
      expect(Math.max(box.width - 608, box.height - (most - 6)), `${T} tokens: ${JSON.stringify(box)}`).toBeGreaterThan(-2);
    }
  }
});
