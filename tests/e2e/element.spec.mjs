// <arc-scope>: events, result, attributes, shared worker, errors inside the element, and XSS safety.
import { test, expect } from '@playwright/test';
import { watchConsole, addElement, DEFAULT_MODEL } from './helpers.mjs';

test('the embed page: both examples render, share one worker, and expose what they drew', async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto('./embed.html');
  const arcsEl = page.locator('#example-arcs');
  await expect(arcsEl.locator('path[data-from]').first()).toBeAttached();
  await expect(page.locator('#example-matrix rect[data-weight]').first()).toBeAttached();
  expect(page.workers()).toHaveLength(1);
  const { tokens, shape, arcs } = await arcsEl.evaluate((el) => ({
    tokens: el.result.tokens, shape: el.result.shape,
    arcs: [...el.shadowRoot.querySelectorAll('path[data-from]')].map((p) => ({ ...p.dataset })),
    attention: null,
  }));
  expect(shape[2]).toBe(tokens.length);
  // Each arc's weight is the attention value in element.result for its layer and head.
  const worst = await arcsEl.evaluate((el) => {
    const { attention, shape: [, H, T], layer } = el.result;
    let w = 0;
    for (const p of el.shadowRoot.querySelectorAll('path[data-from]')) {
      const v = attention[((layer * H + Number(p.dataset.head)) * T + Number(p.dataset.from)) * T + Number(p.dataset.to)];
      w = Math.max(w, Math.abs(v - Number(p.dataset.weight)) / v);
    }
    return w;
  });
  console.log(`${arcs.length} arcs; largest relative difference from element.result: ${worst.toExponential(2)}`);
  expect(worst).toBeLessThan(1e-5);
  // topk="2": at most two arcs per token and head.
  const perRow = {};
  for (const a of arcs) perRow[`${a.from}/${a.head}`] = (perRow[`${a.from}/${a.head}`] || 0) + 1;
  expect(Math.max(...Object.values(perRow))).toBeLessThanOrEqual(2);
  expect(errors).toEqual([]);
});

test('changing an attribute re-renders', async ({ page }) => {
  await page.goto('./embed.html');
  const r = await addElement(page, { text: 'Now is the winter of our discontent', model: DEFAULT_MODEL, layer: '0', head: '1' });
  expect(r.tokens.length).toBe(7);
  const el = page.locator('#added-2');
  const next = el.evaluate((el) => new Promise((ok) => el.addEventListener('arcscope-rendered', (e) => ok(e.detail), { once: true })));
  await el.evaluate((el) => { el.setAttribute('head', '0'); el.setAttribute('mode', 'matrix'); });
  const detail = await next;
  expect(detail).toMatchObject({ head: 0, mode: 'matrix' });
  await expect(el.locator('rect[data-weight]')).toHaveCount(49);
  await expect(el.locator('path[data-from]')).toHaveCount(0);
  const text = el.evaluate((el) => new Promise((ok) => el.addEventListener('arcscope-rendered', () => ok(el.result.tokens), { once: true })));
  await el.evaluate((el) => el.setAttribute('text', 'Is this a dagger'));
  expect(await text).toHaveLength(4);
  expect(page.workers()).toHaveLength(1);
});

test('markup in text stays text, and errors show inside the element without breaking the page', async ({ page }) => {
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  await page.goto('./embed.html');
  const r = await addElement(page, { text: '<img src=x onerror=alert(1)>', model: DEFAULT_MODEL });
  expect(r.tokens.join('')).toContain('<img');
  const el = page.locator('#added-2');
  expect(await el.evaluate((el) => el.shadowRoot.querySelectorAll('img').length)).toBe(0);
  expect((await el.locator('.tokens.from [data-token-index]').allTextContents()).join('')).toBe('<img\u00B7src=x\u00B7onerror=alert(1)>');
  // A missing model and an impossible head: messages inside the elements.
  await expect(addElement(page, { text: 'hello', model: '/models/missing.arcs' })).rejects.toThrow(/404/);
  await expect(page.locator('#added-3 .error')).toContainText('404');
  await expect(addElement(page, { text: 'hello', model: DEFAULT_MODEL, head: '99' })).rejects.toThrow(/head "99" is not valid/);
  await expect(page.locator('#added-4 .error')).toContainText('head "99" is not valid: use an integer from 0 to');
  // The rest of the page still works.
  await expect(page.locator('#example-arcs path[data-from]').first()).toBeAttached();
  expect(dialogs).toEqual([]);
});
