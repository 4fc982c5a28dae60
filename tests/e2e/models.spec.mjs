// Loading models: a Hugging Face checkpoint converted in the browser (from a URL and from local files), an .arcs
// file, the browser cache, and failures that must leave the current model in place.
import { test, expect } from '@playwright/test';
import { openPage, waitForRender, renders, drawnArcs, DEFAULT_MODEL, FIXTURE_HF, FIXTURE_ARCS } from './helpers.mjs';

const TINY = { layers: 2, heads: 3 }; // tests/e2e/global-setup.mjs makes this checkpoint

async function expectTinyModel(page) {
  await expect(page.locator('#model-status')).toContainText(`${TINY.layers} layers × ${TINY.heads} heads`);
  await expect(page.locator('#layer option')).toHaveCount(TINY.layers + 2);
  await expect(page.locator('#head option')).toHaveCount(TINY.heads + 3);
  await expect.poll(async () => (await drawnArcs(page)).length).toBeGreaterThan(0);
}

test('a Hugging Face checkpoint from a URL is converted in the worker with progress, cached, and reopened from the cache', async ({ page, baseURL }) => {
  await openPage(page);
  const progress = [];
  await page.exposeFunction('noteProgress', (t) => progress.push(t));
  await page.evaluate(() => new MutationObserver(() => window.noteProgress(document.getElementById('progress-text').textContent))
    .observe(document.getElementById('progress-text'), { childList: true, characterData: true, subtree: true }));
  await page.click('#open-loader');
  await page.fill('#src-weights', new URL(`${FIXTURE_HF}/model.safetensors`, baseURL).href);
  await page.fill('#src-config', new URL(`${FIXTURE_HF}/config.json`, baseURL).href);
  const before = await renders(page);
  await page.click('#load-url');
  await expect(page.locator('#loader')).not.toBeVisible({ timeout: 30_000 });
  await waitForRender(page, before);
  await expectTinyModel(page);
  console.log(`progress reports seen: ${progress.length}, e.g. ${progress.filter(Boolean).slice(-2).join(' | ')}`);
  expect(progress.some((t) => /converting|header/.test(t))).toBe(true);
  expect(page.url()).toContain(encodeURIComponent('tiny-hf/model.safetensors'));
  // The converted model is in Cache Storage; a reload of the shared link opens it without converting again.
  const cached = await page.evaluate(async () => (await (await caches.open('arcscope-models-v1')).keys()).length);
  expect(cached).toBeGreaterThan(0);
  await page.reload();
  await waitForRender(page);
  await expectTinyModel(page);
  // The next visit without a link reopens the last model the user loaded, from the cache.
  await page.goto('./');
  await waitForRender(page);
  await expectTinyModel(page);
});

test('an .arcs file and a checkpoint load from the file picker', async ({ page }) => {
  await openPage(page);
  await page.click('#open-loader');
  await page.setInputFiles('#files', `build/test-fixtures/${FIXTURE_ARCS.split('/').pop()}`);
  await expect(page.locator('#loader')).not.toBeVisible({ timeout: 30_000 });
  await expectTinyModel(page);
  await page.click('#open-loader');
  await page.setInputFiles('#files', ['build/test-fixtures/tiny-hf/config.json', 'build/test-fixtures/tiny-hf/model.safetensors']);
  await expect(page.locator('#loader')).not.toBeVisible({ timeout: 30_000 });
  await expectTinyModel(page);
  expect(page.url()).toContain('local%3Amodel.safetensors');
});

test('failures show a clear message and keep the current model', async ({ page, baseURL }) => {
  await openPage(page);
  const status = await page.locator('#model-status').textContent();
  const arcs = await drawnArcs(page);
  await page.click('#open-loader');
  await page.fill('#src-weights', new URL('/fixtures/missing/model.safetensors', baseURL).href);
  await page.fill('#src-config', new URL(`${FIXTURE_HF}/config.json`, baseURL).href);
  await page.click('#load-url');
  await expect(page.locator('#loader-error')).toContainText('HTTP 404');
  await expect(page.locator('#loader-error')).toContainText('current model is still loaded');
  // A file that is not a model.
  await page.setInputFiles('#files', 'build/test-fixtures/tiny-hf/config.json');
  await expect(page.locator('#loader-error')).toContainText('model.safetensors');
  await page.setInputFiles('#files', { name: 'broken.arcs', mimeType: 'application/octet-stream', buffer: Buffer.from('not a model at all') });
  await expect(page.locator('#loader-error')).toContainText('Could not load the model');
  console.log(`message for a broken .arcs file: ${await page.locator('#loader-error').textContent()}`);
  await page.click('#loader-close');
  await expect(page.locator('#model-status')).toHaveText(status);
  expect(await drawnArcs(page)).toEqual(arcs);
});

test('the worker keeps two models in memory and reloads a freed one when it is asked for again', async ({ page, baseURL }) => {
  await openPage(page);
  const url = (path) => new URL(path, baseURL).href;
  const [first, second, third] = [url(DEFAULT_MODEL), url(FIXTURE_ARCS), url(`${FIXTURE_ARCS}?copy=2`)];
  const inMemory = () => page.evaluate(async () => {
    const { sharedEngine } = await import('./lib/worker-client.js');
    return (await sharedEngine().call('models')).map((m) => m.key);
  });
  expect(await inMemory()).toEqual([first]);
  await page.evaluate(async (urls) => {
    const { sharedEngine } = await import('./lib/worker-client.js');
    for (const u of urls) await sharedEngine().loadModel(u);
  }, [second, third]);
  expect(await inMemory()).toEqual([second, third]);   // the least recently used one was freed
  // The page still holds the first model's key: using it loads the model again instead of failing.
  const tokens = await page.evaluate(async (key) => {
    const { sharedEngine } = await import('./lib/worker-client.js');
    return (await sharedEngine().call('analyze', { model: key, text: 'To be, or not to be' })).ids.length;
  }, first);
  expect(tokens).toBeGreaterThan(3);
  expect(await inMemory()).toEqual([third, first]);
});
