// A sharded checkpoint in the page: global-setup.mjs's SHARDED_FIXTURE (a Llama of 9 query heads over 3 key/value
// heads with Llama 3's tokenizer files, in three shards and model.safetensors.index.json, as Hugging Face serves a
// larger model) is converted in the page's worker from the URL the loader is given (model.safetensors, which is not
// there: the worker reads the index beside it, then each shard in turn) and from picked files. The status names each
// shard as it is read, and the head drawn is the native engine's attention on `arcscope convert`'s file of the same
// folder (`arcscope run`: the same ids, the same weights within 1e-6, as carried-tokenizer.spec checks).
import { test, expect } from '@playwright/test';
import { SHARDED_FIXTURE } from './global-setup.mjs';
import { openPage, watchConsole } from './helpers.mjs';
import { FIXTURES, convertFromUrl, typedAndDrawn } from './converted-in-page.mjs';

const { name } = SHARDED_FIXTURE;
const DIR = `${FIXTURES}/${name}-hf`;
const SHARDS = [1, 2, 3].map((i) => `model-0000${i}-of-00003.safetensors`);  // make_checkpoint.py --shards 3

// Every text the loader's progress line shows, kept in the page as it changes.
const recordProgress = (page) => page.evaluate(() => {
  window.progressTexts = [];
  const line = document.getElementById('progress-text');
  new MutationObserver(() => window.progressTexts.push(line.textContent))
    .observe(line, { childList: true, characterData: true, subtree: true });
});

test('a sharded checkpoint converts in the page from its URL, shard after shard, and draws the native engine\'s head', async ({ page, baseURL }) => {
  const errors = watchConsole(page);
  await convertFromUrl(page, baseURL, name, recordProgress);
  await expect(page.locator('#model-status')).not.toContainText('carries no tokenizer');

  const said = await page.evaluate(() => window.progressTexts);
  expect(said.some((t) => t.startsWith('downloading model.safetensors.index.json'))).toBe(true);
  SHARDS.forEach((shard, i) => {
    const line = `shard ${i + 1} of ${SHARDS.length}, downloading ${shard} and converting to q16: `;
    expect(said.some((t) => t.startsWith(line)), `"${line}" among ${JSON.stringify(said)}`).toBe(true);
  });
  const { want, worst, layer, head } = await typedAndDrawn(page, name);
  console.log(`${name} from its URL (${SHARDS.length} shards): ${want.ids.length} tokens; layer ${layer}, head ${head}: largest ` +
    `difference from the native engine ${worst.toExponential(2)}\nthe progress line said: ${[...new Set(said.map(
      (t) => t.replace(/:.*/, '')))].join('; ')}`);
  expect(worst).toBeLessThanOrEqual(1e-6);
  expect(errors).toEqual([]);
});

test('a sharded checkpoint\'s picked files (the index, its shards, config.json and the tokenizer files) convert as well', async ({ page }) => {
  const errors = watchConsole(page);
  await openPage(page);
  await page.locator('#threshold').fill('0');
  await page.click('#open-loader');
  await recordProgress(page);
  await page.setInputFiles('#files', ['model.safetensors.index.json', ...SHARDS, 'config.json', 'tokenizer.json',
    'tokenizer_config.json'].map((f) => `${DIR}/${f}`));
  await expect(page.locator('#loader')).not.toBeVisible();
  await expect(page.locator('#model-status')).toContainText('model.safetensors.index.json: 2 layers');
  await expect(page.locator('#model-status')).toHaveClass(/ok/);
  const said = await page.evaluate(() => window.progressTexts);
  expect(said.some((t) => t.startsWith(`shard 2 of 3, reading ${SHARDS[1]} and converting to q16: `))).toBe(true);
  const { worst } = await typedAndDrawn(page, name);
  expect(worst).toBeLessThanOrEqual(1e-6);
  expect(errors).toEqual([]);
});
