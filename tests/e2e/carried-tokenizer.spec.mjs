// Models that carry their tokenizer, in the page and in <arc-scope>. For each architecture (gpt_neox, llama, qwen2,
// qwen3) a small checkpoint beside a real tokenizer's files (Llama 2's, Llama 3's, Qwen 3's: global-setup.mjs's
// CARRIED_TOKENIZER_FIXTURES) is converted in the page's worker from the URLs the test serves; text typed into the
// explorer is read with that tokenizer, and the head drawn is the native engine's attention (`arcscope run` on the
// natively converted file: the same ids, the same weights within 1e-6). Then an <arc-scope model=…> draws a file that
// carries its tokenizer.
import { test, expect } from '@playwright/test';
import { CARRIED_TOKENIZER_FIXTURES } from './global-setup.mjs';
import { addElement, drawnArcs, engineCall, openPage, renders, tokenTexts, waitForRender, watchConsole } from './helpers.mjs';
import { FIXTURES, TEXT, convertFromUrl, native, typedAndDrawn, worstDifference } from './converted-in-page.mjs';

for (const { name, tokenizer } of CARRIED_TOKENIZER_FIXTURES) {
  test(`${name}: converted in the page from URLs with ${tokenizer}'s tokenizer files, typed text is read with them and drawn as the native engine computes it`, async ({ page, baseURL }) => {
    const errors = watchConsole(page);
    await convertFromUrl(page, baseURL, name);
    const { want, shown, worst, layer, head } = await typedAndDrawn(page, name);
    // The worker's tokenize op splits text by the model's tokenizer when given the model.
    const { key } = (await engineCall(page, 'models')).find((m) => m.name.startsWith(`${name}-hf/`));
    expect((await engineCall(page, 'tokenize', { model: key, text: TEXT, labels: false })).ids).toEqual(want.ids);
    expect(shown.join('')).toContain('🦜');
    console.log(`${name} (${tokenizer}'s tokenizer): ${want.ids.length} tokens, ids ${want.ids.join(',')}; layer ` +
      `${layer}, head ${head}: largest difference from the native engine ${worst.toExponential(2)}`);
    expect(worst).toBeLessThanOrEqual(1e-6);
    expect(errors).toEqual([]);
  });
}

test('<arc-scope model=…> draws a model that carries its tokenizer, with its tokens and the native engine\'s weights', async ({ page }) => {
  const errors = watchConsole(page);
  const { name } = CARRIED_TOKENIZER_FIXTURES.find((f) => f.name === 'llama-llama3');
  await page.goto('./embed.html');
  const r = await addElement(page, { text: TEXT, model: `/fixtures/${name}.q16.arcs`, layer: '1', head: '4',
    threshold: '0' });
  const want = native(name, TEXT);
  expect(r.tokens).toHaveLength(want.ids.length);
  expect(r.shape).toEqual([2, 9, want.ids.length, want.ids.length]);
  const ids = await page.locator('#added-2').evaluate((el) => [...el.result.ids]);
  expect(ids).toEqual(want.ids);
  const worst = worstDifference(await drawnArcs(page, '#added-2'), want.attention, 1, 4);
  console.log(`<arc-scope> on ${name}: ${want.ids.length} tokens (${r.tokens.join('|')}); layer 1, head 4: largest ` +
    `difference from the native engine ${worst.toExponential(2)}`);
  expect(worst).toBeLessThanOrEqual(1e-6);
  expect(errors).toEqual([]);
});

test('the loader lists the other decoders beside the GPT-2 family, with their sizes, formats and what stands in the way', async ({ page }) => {
  await openPage(page);
  await page.click('#open-loader');
  const options = await page.locator('#src-family optgroup').nth(1).locator('option').allTextContents();
  expect(options).toEqual([
    'SmolLM2-135M (30 layers × 9 heads, llama): about 269.0 MB download, 285.9 MB in q16',
    'SmolLM2-360M (32 layers × 15 heads, llama): about 723.7 MB download, 769.0 MB in q16',
    'pythia-70m (6 layers × 8 heads, gpt_neox): about 140.9 MB download, 149.7 MB in q16',
    'pythia-160m (12 layers × 12 heads, gpt_neox): about 324.7 MB download, 345.2 MB in q16',
    'pythia-410m (24 layers × 16 heads, gpt_neox): about 810.7 MB download, 862.0 MB in q16',
    'Qwen2.5-0.5B (24 layers × 14 heads, qwen2): about 988.1 MB download, 1.05 GB in q16',
    'Qwen3-0.6B (28 layers × 16 heads, qwen3): about 1.19 GB download, 1.27 GB in q16',
    'TinyLlama-1.1B (22 layers × 32 heads, llama): about 2.20 GB download, 1.24 GB in q8',
    'Llama-3.2-1B (16 layers × 32 heads, llama): about 2.47 GB download, 1.39 GB in q8',
  ]);
  const needs = page.locator('#src-needs');
  await page.selectOption('#src-family', 'SmolLM2-135M');
  await expect(page.locator('#src-weights')).toHaveValue('https://huggingface.co/HuggingFaceTB/SmolLM2-135M/resolve/main/model.safetensors');
  await expect(page.locator('#src-config')).toHaveValue('https://huggingface.co/HuggingFaceTB/SmolLM2-135M/resolve/main/config.json');
  await expect(needs).toContainText('SmolLM2-135M: about 269.0 MB to download, 285.9 MB once converted to q16, and its ' +
    'tokenizer files.');
  await page.selectOption('#src-family', 'Llama-3.2-1B');
  await expect(page.locator('#src-formats input[value="q8"]')).toBeChecked();
  await expect(needs).toContainText('meta-llama/Llama-3.2-1B is gated');
  await page.check('#src-formats input[value="f32"]');
  await expect(needs).toContainText('Not possible here: Llama-3.2-1B in f32 would be a file of more than the 4.3 GB');
  await expect(page.locator('#load-url')).toBeDisabled();
});

test('picked files bring their tokenizer too, and the model kept in the browser\'s cache still reads text with it', async ({ page }) => {
  const errors = watchConsole(page);
  const name = 'neox-llama2', dir = `${FIXTURES}/${name}-hf`;
  await openPage(page);
  await page.click('#open-loader');
  await page.setInputFiles('#files', ['model.safetensors', 'config.json', 'tokenizer.json', 'tokenizer_config.json']
    .map((f) => `${dir}/${f}`));
  await expect(page.locator('#loader')).not.toBeVisible();
  await expect(page.locator('#model-status')).toContainText('2 layers');
  await expect(page.locator('#model-status')).not.toContainText('carries no tokenizer');
  const want = native(name, TEXT);
  const typed = async () => {
    const before = await renders(page);
    await page.fill('#text', TEXT);
    await waitForRender(page, before);
    return tokenTexts(page);
  };
  const shown = await typed();
  expect(shown).toHaveLength(want.ids.length);
  expect(shown.join('')).toContain('🦜');
  // The shared link names the picked file's key; the reload finds its conversion in Cache Storage, tokenizer inside.
  await page.reload();
  await waitForRender(page);
  await expect(page.locator('#model-status')).toContainText('2 layers');
  expect(await typed()).toEqual(shown);
  expect(errors).toEqual([]);
});

test('a checkpoint without tokenizer files converts to a model that says it carries none, and why text is refused', async ({ page, baseURL }) => {
  await openPage(page);
  await page.click('#open-loader');
  await page.selectOption('#src-family', '');
  await page.fill('#src-weights', new URL('/fixtures/llama-4x8/model.safetensors', baseURL).href);
  await page.click('#load-url');
  await expect(page.locator('#loader')).not.toBeVisible();
  await expect(page.locator('#model-status')).toContainText('no tokenizer.json beside config.json: the model carries ' +
    'no tokenizer, so it takes token ids rather than text');
  // Typed text: the explorer says why it cannot read it, and what would.
  await page.fill('#text', 'Hello there');
  await expect(page.locator('[role=alert]:visible')).toContainText('this llama model carries no tokenizer: give token ' +
    'ids, or convert it again with its tokenizer\'s files');
});
