// Under the strict Content-Security-Policy (served with --csp): everything works, and the console stays clean.
import { test, expect } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { watchConsole, openPage, drawnArcs, addElement } from './helpers.mjs';
import { serveFolder } from '../package/consumer.mjs';

const STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

test('the tutorial runs under the strict CSP with zero console errors', async ({ page }) => {
  const errors = watchConsole(page);
  const response = await page.goto('./');
  expect(response.headers()['content-security-policy']).toBe(STRICT);
  await openPage(page);
  expect((await drawnArcs(page)).length).toBeGreaterThan(0);
  await expect(page.locator('#qkv-weights .note').first()).toHaveText(/Σ 1\.0000/);
  await expect(page.locator('#pe-value')).not.toHaveText('…');
  await expect(page.locator('#heads-weights rect[data-weight]')).toHaveCount(256);
  // Interactions that build DOM and styles at run time.
  await page.hover('#view .tokens.from [data-token-index="3"]');
  await page.click('label:has(input[value="matrix"])');
  await expect(page.locator('#view .matrix rect[data-weight]').first()).toBeAttached();
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-png')]);
  expect(download.suggestedFilename()).toBe('arcscope-attention.png');
  await page.fill('#gen-count', '3');
  await page.click('#generate');
  await expect(page.locator('#generate')).toHaveText('Generate');
  expect(errors).toEqual([]);
});

test('<arc-scope> runs under the strict CSP with zero console errors', async ({ page }) => {
  const errors = watchConsole(page);
  const response = await page.goto('./embed.html');
  expect(response.headers()['content-security-policy']).toBe(STRICT);
  await expect(page.locator('#example-arcs path[data-from]').first()).toBeAttached();
  await expect(page.locator('#example-matrix rect[data-weight]').first()).toBeAttached();
  expect(errors).toEqual([]);
});

test('a model URL the policy blocks: the element names connect-src', async ({ page }) => {
  // The model on another origin that allows CORS: only the page's connect-src stands in its way.
  const { server, url } = await serveFolder(fileURLToPath(new URL('../../models/', import.meta.url)), { cors: true });
  try {
    await page.goto('./embed.html');
    const model = `${url}shakespeare-4l.q8.arcs`;
    const message = await addElement(page, { text: 'hello world', model }).then(() => 'drawn?', (e) => e.message);
    console.log(`blocked model: ${message.split('\n')[0]}`);
    expect(message).toContain(`could not reach ${model} (`);
    expect(message).toContain("Content-Security-Policy: its connect-src must allow this URL");
  } finally {
    server.close();
  }
});
