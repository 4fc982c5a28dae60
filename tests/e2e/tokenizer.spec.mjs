// The wasm tokenizer in Chromium (its own TextEncoder/TextDecoder, fetch of the tokenizer file) against
// gpt-3-encoder run in Node on the same seeded strings.
import { test, expect } from '@playwright/test';
import { createRequire } from 'node:module';
import { buildCorpus } from '../js/tokenizer-corpus.mjs';

const require = createRequire(import.meta.url);
const gpt3 = require('gpt-3-encoder');

test('engine.tokenize in the browser matches gpt-3-encoder', async ({ page }) => {
  const texts = buildCorpus({ count: 600 }).map((c) => c.text).filter((t) => t.length < 4000);
  const expected = texts.map((t) => gpt3.encode(t));
  await page.goto('./lib/arcscope.js');  // any page of the site: the module is imported below
  const result = await page.evaluate(async (texts) => {
    const { createEngine } = await import('/lib/arcscope.js');
    const engine = await createEngine();
    const ids = texts.map((t) => engine.tokenize(t).ids);
    const roundTrips = texts.filter((t) => t.isWellFormed() && engine.decode(engine.tokenize(t).ids) !== t).length;
    return { ids, roundTrips };
  }, texts);
  const differences = texts.filter((_, i) => result.ids[i].join() !== expected[i].join()).length;
  console.log(`browser tokenizer: ${texts.length} strings, ${differences} differences, ${result.roundTrips} round-trip failures`);
  expect(differences).toBe(0);
  expect(result.roundTrips).toBe(0);
});
