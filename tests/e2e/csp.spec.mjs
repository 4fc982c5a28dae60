// Under the strict Content-Security-Policy (served with --csp): everything works, and the console stays clean.
import { test, expect } from '@playwright/test';
import { watchConsole, openPage, drawnArcs } from './helpers.mjs';

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
  await expect(page.locator('#generate')).toHaveText('Generate', { timeout: 30_000 });
  expect(errors).toEqual([]);
});

test('<arc-scope> runs under the strict CSP with zero console errors', async ({ page }) => {
  const errors = watchConsole(page);
  const response = await page.goto('./embed.html');
  expect(response.headers()['content-security-policy']).toBe(STRICT);
  await expect(page.locator('#example-arcs path[data-from]').first()).toBeAttached({ timeout: 30_000 });
  await expect(page.locator('#example-matrix rect[data-weight]').first()).toBeAttached();
  expect(errors).toEqual([]);
});
