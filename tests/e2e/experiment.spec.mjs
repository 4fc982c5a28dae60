// Section 5's experiment panel: on a model with GPT-2 small's 12 layers and 12 heads, one click runs the article's
// experiment (layer 8, head 5, " it"), its table equals blocks.8.attn.hook_pattern from runWithCache computed
// independently in the page, and the explorer moves to that sentence, layer and head with " it" pinned; the default
// model says what the experiment needs and offers the loader; the code shown is the code that runs.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { COMPUTE_TIMEOUT, FIXTURE_GPT2_SHAPED, openPage, waitForRender, watchConsole } from './helpers.mjs';

test('with a 12 x 12 model the button runs the experiment and its top 5 is runWithCache\'s pattern row', async ({ page }) => {
  const errors = watchConsole(page);
  await openPage(page, `#model=${encodeURIComponent(FIXTURE_GPT2_SHAPED)}`);
  await page.click('#experiment-run');
  await expect(page.locator('#experiment-result')).toBeVisible();
  const rows = await page.locator('#experiment-top tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  expect(rows).toHaveLength(5);
  // The same steps with the engine module itself, not the page's worker or code.
  const expected = await page.evaluate(async (url) => {
    const { createEngine } = await import('/lib/arcscope.js');
    const engine = await createEngine();
    const model = engine.loadModel(new Uint8Array(await (await fetch(url)).arrayBuffer()));
    const tokens = model.toTokens("The trophy didn't fit in the bag because it was too big");
    const strs = model.toStrToks(tokens);
    const { cache } = model.runWithCache(tokens, { names: ['blocks.8.attn.hook_pattern'] });
    const { data, shape: [, T] } = cache['blocks.8.attn.hook_pattern'];
    const pos = strs.indexOf(' it');
    const row = Array.from(data.subarray((5 * T + pos) * T, (5 * T + pos + 1) * T));
    const order = row.map((w, i) => [w, i]).sort((a, b) => b[0] - a[0]).slice(0, 5);
    return { pos, top: order.map(([w, i]) => [`'${strs[i]}'`, String(i), w.toFixed(3)]) };
  }, FIXTURE_GPT2_SHAPED);
  expect(rows).toEqual(expected.top);
  await expect(page.locator('#experiment-caption')).toContainText(`token ' it' at position ${expected.pos}`);
  // The explorer: the sentence, layer 8, head 5, " it" pinned (its index without <|endoftext|>).
  await waitForRender(page);
  expect(await page.inputValue('#layer')).toBe('8');
  expect(await page.inputValue('#head')).toBe('5');
  await expect(page.locator('#top5-token')).toHaveText('·it');
  expect(page.url()).toContain(`token=${expected.pos - 1}`);
  expect(errors).toEqual([]);
});

test('with the default model the panel says what the experiment needs and offers the loader', async ({ page }) => {
  await openPage(page);
  await page.click('#experiment-run');
  const needs = page.locator('#experiment-needs');
  await expect(needs).toBeVisible();
  await expect(needs).toContainText('layer 8, head 5 of GPT-2 small (12 layers × 12 heads)');
  await expect(needs).toContainText('has 4 layers × 4 heads');
  await needs.getByRole('button', { name: 'Load GPT-2 small…' }).click();
  await expect(page.locator('dialog[open]')).toBeVisible();
});

test('the JavaScript shown beside the Python is experiment.js, the code the button runs', async ({ page }) => {
  await openPage(page);
  const shown = readFileSync('web/tutorial/shared/experiment.js', 'utf8').trim();
  await expect(page.locator('#experiment-js')).toHaveText(shown);
});

test('a 12 x 12 model loaded from the dialog opens on layer 8, head 5, not on the old model\'s view', async ({ page, baseURL }) => {
  await openPage(page);
  expect(await page.inputValue('#layer')).toBe('3');
  await page.click('#open-loader');
  await page.fill('#src-weights', new URL('/fixtures/gpt2-12x12/model.safetensors', baseURL).href);
  await page.fill('#src-config', new URL('/fixtures/gpt2-12x12/config.json', baseURL).href);
  await page.click('#load-url');
  await expect(page.locator('#loader')).not.toBeVisible({ timeout: COMPUTE_TIMEOUT });
  await expect.poll(() => page.inputValue('#layer')).toBe('8');
  expect(await page.inputValue('#head')).toBe('5');
});
