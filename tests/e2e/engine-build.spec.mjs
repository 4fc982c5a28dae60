// Both pages say which build of the engine runs: the SIMD128 module, on one thread here (a page that is not
// cross-origin isolated) and why. threads.spec.mjs checks the same lines on an isolated page, where threads run.
import { test, expect } from '@playwright/test';
import { watchConsole } from './helpers.mjs';

const NOT_ISOLATED = 'one thread: this page is not cross-origin isolated (COOP and COEP headers), which threads need';
// The build 'auto' picks here: relaxed SIMD where the CPU fuses its dot product, else SIMD128 (and why not relaxed).
const probe = (page) => page.evaluate(async () => (await import('/lib/engine/relaxed-simd.js')).probeRelaxedSimd());
const simdName = (p) => (p.fused ? 'relaxed SIMD' : 'SIMD128');

test('the tutorial\'s model bar and the embed page name the build on one thread, and why', async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto('./');
  const p = await probe(page);
  const ONE_THREAD = `${simdName(p)}, ${NOT_ISOLATED}`;
  await expect(page.locator('#engine-build')).toHaveText(`Engine: ${ONE_THREAD}`);
  expect(await page.evaluate(() => window.arcscopePage.worker.ready.then((r) => r.build))).toEqual(
    { simd: simdName(p), threads: 1, summary: ONE_THREAD, simdWhy: p.why });
  await page.goto('./embed.html');
  await expect(page.locator('#engine-build')).toHaveText(`The examples run on the engine's ${ONE_THREAD}.`);
  expect(errors).toEqual([]);
});

test('createEngine says why it runs one thread when asked for one or handed its wasm', async ({ page }) => {
  await page.goto('./embed.html');
  const summaries = await page.evaluate(async () => {
    const { createEngine, defaultAssets } = await import('/lib/arcscope.js');
    const asked = await createEngine({ threads: 1 });
    const handed = await createEngine({ wasmUrl: defaultAssets.wasm });
    const plain = await createEngine();
    return [asked.build.summary, handed.build.summary, plain.build.summary];
  });
  const name = simdName(await probe(page));
  expect(summaries).toEqual([`${name}, one thread: createEngine was asked for one`,
    "SIMD128, one thread: the wasm handed to createEngine is the one-thread module's", `${name}, ${NOT_ISOLATED}`]);
});

test('<arc-scope>\'s arcscope-ready says which build of the engine draws it', async ({ page }) => {
  await page.goto('./embed.html');
  const name = simdName(await probe(page));
  const detail = await page.evaluate(() => new Promise((resolve, reject) => {
    const el = Object.assign(document.createElement('arc-scope'), { text: 'To be, or not to be' });
    el.addEventListener('arcscope-ready', (e) => resolve(e.detail), { once: true });
    el.addEventListener('arcscope-error', (e) => reject(new Error(e.detail.message)), { once: true });
    document.body.append(el);
  }));
  expect(detail.build).toEqual({ simd: name, threads: 1, summary: `${name}, ${NOT_ISOLATED}`,
    simdWhy: detail.build.simd === 'SIMD128' ? expect.any(String) : null });
  expect(detail.layers).toBe(4);
});
