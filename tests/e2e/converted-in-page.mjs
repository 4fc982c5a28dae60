// What the specs that convert a checkpoint in the page share (carried-tokenizer.spec, sharded-checkpoint.spec): the
// text they type, the native engine's answer for it, the loader driven from a URL, and the drawn head against the
// native attention.
import { expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { drawnArcs, openPage, renders, tokenTexts, waitForRender } from './helpers.mjs';

export const FIXTURES = 'build/test-fixtures';
// Prose, digits (split in ones by Qwen, in threes by Llama 3), accents, CJK and an emoji (byte fallback in Llama 2).
export const TEXT = 'The café opened in 2024, où 中文 rocks 🦜!';

// `arcscope run` on the natively converted file: {ids, tokens, attention: [L][H][T][T]}.
export const native = (name, text) => JSON.parse(execFileSync('build/native/arcscope',
  ['run', '--model', `${FIXTURES}/${name}.q16.arcs`, '--text', text, '--no-logits'], { encoding: 'utf8' }));

// Picks value in the select id and waits for the view drawn with it.
export async function choose(page, id, value) {
  const before = await renders(page);
  await page.selectOption(id, String(value));
  await expect.poll(() => renders(page)).toBeGreaterThan(before);
}

// Opens the page (every arc drawn: threshold 0) and converts the fixture name-hf from the URL of its model.safetensors
// in the loader, the config.json beside it filled in by the page; beforeLoad(page) runs with the loader open.
export async function convertFromUrl(page, baseURL, name, beforeLoad = async () => {}) {
  await openPage(page);
  await page.locator('#threshold').fill('0');
  await page.click('#open-loader');
  await beforeLoad(page);
  await page.selectOption('#src-family', '');
  await page.fill('#src-weights', new URL(`/fixtures/${name}-hf/model.safetensors`, baseURL).href);
  await expect(page.locator('#src-config')).toHaveValue(new URL(`/fixtures/${name}-hf/config.json`, baseURL).href);
  await page.click('#load-url');
  await expect(page.locator('#loader')).not.toBeVisible();
  await expect(page.locator('#model-status')).toContainText(`${name}-hf/model.safetensors: 2 layers`);
  await expect(page.locator('#model-status')).toHaveClass(/ok/);
}

// TEXT typed into the explorer of the converted model name and drawn at its last layer's last head, against the
// native engine's answer: {want (native's), shown (the token labels), worst (worstDifference), layer, head}.
export async function typedAndDrawn(page, name) {
  const before = await renders(page);
  await page.fill('#text', TEXT);
  await waitForRender(page, before);
  const want = native(name, TEXT);
  const [layer, head] = [want.attention.length - 1, want.attention[0].length - 1];
  // The tokens shown are the model's own tokenizer's, grouped into whole characters (a byte-fallback emoji's four
  // byte tokens are one label with three continuations).
  const shown = await tokenTexts(page);
  expect(shown).toHaveLength(want.ids.length);
  expect(shown.join('')).toContain('中文');
  await choose(page, '#layer', layer);
  await choose(page, '#head', head);
  return { want, shown, worst: worstDifference(await drawnArcs(page), want.attention, layer, head), layer, head };
}

// The largest difference between the arcs drawn at layer, head and the native attention's (every arc is one of its
// nonzero weights, and every nonzero weight is drawn: the threshold is 0).
export function worstDifference(arcs, attention, layer, head) {
  const pattern = attention[layer][head];
  expect(arcs).toHaveLength(pattern.flat().filter((v) => v > 0).length);
  let worst = 0;
  for (const a of arcs) {
    expect(a.head).toBe(head);
    worst = Math.max(worst, Math.abs(a.weight - pattern[a.from][a.to]));
  }
  return worst;
}
