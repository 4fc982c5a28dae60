// Loading models: a Hugging Face checkpoint converted in the browser (from a URL and from local files), an .arcs
// file, the browser cache, and failures that must leave the current model in place.
import { test, expect } from '@playwright/test';
import { openPage, waitForRender, renders, drawnArcs, watchConsole, DEFAULT_MODEL, FIXTURE_HF, FIXTURE_ARCS } from './helpers.mjs';

const TINY = { layers: 2, heads: 3 }; // tests/e2e/global-setup.mjs makes this checkpoint

async function expectTinyModel(page) {
  await expect(page.locator('#model-status')).toContainText(`${TINY.layers} layers × ${TINY.heads} heads`);
  await expect(page.locator('#layer option')).toHaveCount(TINY.layers + 2);
  await expect(page.locator('#head option')).toHaveCount(TINY.heads + 3);
  await expect.poll(async () => (await drawnArcs(page)).length).toBeGreaterThan(0);
}

test('a Hugging Face checkpoint from a URL is converted in the worker with progress, cached, and reopened from the cache; q8 is another model under its own key', async ({ page, baseURL }) => {
  await openPage(page);
  const progress = [];
  await page.exposeFunction('noteProgress', (t) => progress.push(t));
  const watchProgress = () => page.evaluate(() => new MutationObserver(() => window.noteProgress(document.getElementById('progress-text').textContent))
    .observe(document.getElementById('progress-text'), { childList: true, characterData: true, subtree: true }));
  const weights = new URL(`${FIXTURE_HF}/model.safetensors`, baseURL).href;
  const convert = async (dtype) => {
    await page.click('#open-loader');
    await page.fill('#src-weights', weights);
    await page.fill('#src-config', new URL(`${FIXTURE_HF}/config.json`, baseURL).href);
    if (dtype) await page.check(`#src-formats input[value="${dtype}"]`);
    const before = await renders(page);
    await page.click('#load-url');
    await expect(page.locator('#loader')).not.toBeVisible();
    await waitForRender(page, before);
    await expectTinyModel(page);
  };
  const cacheKeys = () => page.evaluate(async () => (await (await caches.open('arcscope-models-v1')).keys())
    .map((r) => decodeURIComponent(r.url.slice(r.url.lastIndexOf('/') + 1))));
  await watchProgress();
  await convert();   // the default format: the engine's for a checkpoint not of the family, q16 at this size
  console.log(`progress reports seen: ${progress.length}, e.g. ${progress.filter(Boolean).slice(-2).join(' | ')}`);
  expect(progress.some((t) => /converting to q16|header/.test(t))).toBe(true);
  await expect(page.locator('#model-status')).toContainText(', q16, ');
  expect(page.url()).toContain(encodeURIComponent('tiny-hf/model.safetensors'));
  // The converted model is in Cache Storage; a reload of the shared link opens it without converting again.
  expect(await cacheKeys()).toEqual([`q16:${weights}`]);
  await page.reload();
  await waitForRender(page);
  await expectTinyModel(page);
  // The next visit without a link reopens the last model the user loaded, from the cache.
  await page.goto('./');
  await waitForRender(page);
  await expectTinyModel(page);
  // The loader offers the three formats, each with its line (web/tutorial/page/model-formats.js), q16 first and
  // picked (GPT-2 small's default).
  await expect(page.locator('#src-formats label')).toHaveCount(3);
  await expect(page.locator('#src-formats input[value="q16"]')).toBeChecked();
  await expect(page.locator('#src-formats label').nth(1)).toContainText('q8');
  // The same checkpoint converted to q8: another model, under its own key in Cache Storage and in the link (q8's is
  // the checkpoint's URL alone), which reopens it as q8.
  await watchProgress();
  await convert('q8');
  expect(progress.some((t) => /converting to q8/.test(t))).toBe(true);
  await expect(page.locator('#model-status')).toContainText(', q8, ');
  expect((await cacheKeys()).sort()).toEqual([weights, `q16:${weights}`].sort());
  expect(decodeURIComponent(new URL(page.url()).hash)).toMatch(new RegExp(`model=${weights.replace(/[.?]/g, '\\$&')}(&|$)`));
  await page.reload();
  await waitForRender(page);
  await expect(page.locator('#model-status')).toContainText(', q8, ');
});

test('an .arcs file and a checkpoint load from the file picker', async ({ page }) => {
  await openPage(page);
  await page.click('#open-loader');
  await page.setInputFiles('#files', `build/test-fixtures/${FIXTURE_ARCS.split('/').pop()}`);
  await expect(page.locator('#loader')).not.toBeVisible();
  await expectTinyModel(page);
  await page.click('#open-loader');
  await page.setInputFiles('#files', ['build/test-fixtures/tiny-hf/config.json', 'build/test-fixtures/tiny-hf/model.safetensors']);
  await expect(page.locator('#loader')).not.toBeVisible();
  await expectTinyModel(page);
  expect(page.url()).toContain('local%3Amodel.safetensors');
  // A revisit opens the picked file's conversion from the cache, named by the file, not by its cache key.
  await page.reload();
  await expectTinyModel(page);
  await expect(page.locator('#model-status')).toContainText(/^model\.safetensors: /);
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

test('a link to a model that does not load keeps its hash, says why, and offers the default model', async ({ page }) => {
  const errors = watchConsole(page);
  const hash = '#model=/models/missing.arcs';
  await page.goto(`./${hash}`);
  const error = page.locator('#model-error');
  await expect(error).toBeVisible();
  await expect(error).toContainText('Could not load the model /models/missing.arcs');
  await expect(error).toContainText('HTTP 404');
  console.log(`shown: ${await page.locator('#model-error-text').textContent()}`);
  await expect(page.locator('#model-status')).toHaveText('No model loaded: missing.arcs did not open');
  const button = page.locator('#load-default');
  await expect(button).toBeVisible();
  await expect(button).toHaveText('Load the default model');
  await expect(page.locator('#model-error-pick')).toBeHidden();
  // Nothing falls back on its own: the link still names the missing model, even after a while.
  await page.waitForTimeout(1000);
  expect(new URL(page.url()).hash).toBe(hash);
  expect(await drawnArcs(page)).toEqual([]);
  // The rest of the page works meanwhile.
  await expect(page.locator('#qkv-weights .note').first()).toHaveText(/Σ 1\.0000/);
  // The button loads the default model, and from then on the link names it.
  await button.click();
  await waitForRender(page);
  await expect(error).toBeHidden();
  expect((await drawnArcs(page)).length).toBeGreaterThan(0);
  expect(decodeURIComponent(new URL(page.url()).hash)).toContain('model=models/shakespeare-4l.q8.arcs');
  // The missing file's 404 is the browser's own console line; nothing else went wrong.
  expect(errors.filter((e) => !/404|Not Found/.test(e))).toEqual([]);
});

test('a link to a truncated model file names the model once, then the engine\'s words', async ({ page, baseURL }) => {
  await page.goto(`./#model=${encodeURIComponent('/hostile/truncated.arcs')}`);
  const text = page.locator('#model-error-text');
  await expect(text).toContainText('Could not load the model /hostile/truncated.arcs: truncated: ');
  console.log(`shown: ${await text.textContent()}`);
  // The worker's message starts with the absolute URL (for other callers); the page does not say it a second time.
  await expect(text).not.toContainText(new URL('/hostile/truncated.arcs', baseURL).href);
});

test('a link to a model picked from disk elsewhere says the file must be picked again', async ({ page }) => {
  const hash = `#model=${encodeURIComponent('local:model.safetensors:548105171')}`;
  await page.goto(`./${hash}`);
  const error = page.locator('#model-error');
  await expect(error).toBeVisible();
  console.log(`shown: ${await page.locator('#model-error-text').textContent()}`);
  await expect(error).toContainText('This link names model.safetensors (548.1 MB), a model file picked from a disk');
  await expect(error).toContainText('pick the file again');
  expect(new URL(page.url()).hash).toBe(hash);
  await expect(page.locator('#load-default')).toBeVisible();
  await page.locator('#model-error-pick').click();
  await expect(page.locator('#loader')).toBeVisible();
  // Picking it again (here the test's .arcs file) loads it, and the message goes.
  await page.setInputFiles('#files', `build/test-fixtures/${FIXTURE_ARCS.split('/').pop()}`);
  await expect(page.locator('#loader')).not.toBeVisible();
  await expectTinyModel(page);
  await expect(error).toBeHidden();
});

test('the loader lists the GPT-2 family with each download and default format\'s size, picks that format, and says before any download what cannot load here', async ({ page }) => {
  await openPage(page);
  await page.click('#open-loader');
  const options = await page.locator('#src-family option').allTextContents();
  expect(options.slice(0, 5)).toEqual([
    'distilgpt2 (6 layers × 12 heads): 352.8 MB download, 174.2 MB in q16',
    'gpt2 (12 layers × 12 heads): 548.1 MB download, 264.7 MB in q16',
    'gpt2-medium (24 layers × 16 heads): 1.52 GB download, 754.6 MB in q16',
    'gpt2-large (36 layers × 20 heads): 3.25 GB download, 1.65 GB in q16',
    'gpt2-xl (48 layers × 25 heads): 6.43 GB download, 1.76 GB in q8',
  ]);
  await expect(page.locator('#src-family')).toHaveValue('gpt2');
  await expect(page.locator('#src-formats input[value="q16"]')).toBeChecked();
  await expect(page.locator('#src-needs')).toContainText('gpt2: 548.1 MB to download, 264.7 MB once converted to q16.');
  // XL's q16 file would be 3.3 GB: its default is q8, and the radio buttons follow the model until one is picked.
  await page.selectOption('#src-family', 'gpt2-xl');
  await expect(page.locator('#src-formats input[value="q8"]')).toBeChecked();
  await expect(page.locator('#src-weights')).toHaveValue('https://huggingface.co/openai-community/gpt2-xl/resolve/main/model.safetensors');
  await expect(page.locator('#src-config')).toHaveValue('https://huggingface.co/openai-community/gpt2-xl/resolve/main/config.json');
  const needs = page.locator('#src-needs');
  await expect(needs).toContainText('gpt2-xl: 6.43 GB to download, 1.76 GB once converted to q8.');
  // f32 XL would be more than the engine addresses: said, and the button is off until a format that fits is picked.
  await page.check('#src-formats input[value="f32"]');
  await expect(needs).toContainText('Not possible here: gpt2-xl in f32 would be a file of more than the 4.3 GB');
  await expect(page.locator('#load-url')).toBeDisabled();
  await page.check('#src-formats input[value="q16"]');
  await expect(needs).toContainText('3.31 GB once converted to q16');
  await expect(page.locator('#load-url')).toBeEnabled();
  // A URL typed in is "another checkpoint": nothing claimed about it.
  await page.fill('#src-weights', 'https://example.org/some/model.safetensors');
  await expect(page.locator('#src-family')).toHaveValue('');
  await expect(needs).toHaveText('');
});
