// The example notebook executed by nbclient and exported by nbconvert (tests/jupyter/execute_example.py), opened in
// Chromium as a person would open the file: served alone by a static server, nothing else beside it. Its live
// figures run the model in the page and must draw the engine's numbers (the engine module run here in Node); its
// precomputed figure must draw the pattern the notebook gave. The notebook carries each payload once.
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveFolder } from '../package/consumer.mjs';
import { watchConsole } from '../e2e/helpers.mjs';
import { drawnArcs, engineAttention, example, jupyterBuild, largestArcDifference, outputsSettled, prepareExample,
  venvPython } from './support.mjs';

let given, site, server, alone;

test.beforeAll(async () => {
  test.setTimeout(360_000);
  given = prepareExample();
  alone = join(jupyterBuild, 'served');
  rmSync(alone, { recursive: true, force: true });
  mkdirSync(alone, { recursive: true });
  for (const file of ['arcscope.html', 'arcscope-figures.html']) cpSync(join(example, file), join(alone, file));
  writeFileSync(join(alone, 'favicon.ico'), ''); // what the browser asks every site for
  ({ server, url: site } = await serveFolder(alone));
});
test.afterAll(() => server?.close());

test('the exported notebook carries the library and the model once each', () => {
  const html = readFileSync(join(example, 'arcscope.html'), 'utf8');
  const payloads = [...html.matchAll(/<script type="application\/json" data-arcscope-payload="([^"]+)">/g)].map((m) => m[1]);
  expect(payloads.sort()).toEqual([expect.stringMatching(/^arcscope-\d+\.\d+\.\d+-[0-9a-f]{16}$/),
    expect.stringMatching(/^model-[0-9a-f]{16}$/)]);
});

test('the nbconvert HTML, served alone, draws the engine\'s attention live and the given pattern', async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto(`${site}arcscope.html`);
  const outputs = await outputsSettled(page);
  expect(outputs.map((o) => o.state), JSON.stringify(outputs)).toEqual(['drawn', 'drawn', 'drawn']);
  console.log(`cold time to first arcs, from the output's script to arcscope-rendered: ${outputs.map((o) => `${o.ms} ms`).join(', ')}`);
  const locators = page.locator('.arcscope-output');

  // Cell 1: arcs of layer 1 head 0, from the model run in the page, against the engine run in Node.
  const induction = await locators.nth(0).locator('arc-scope').evaluate((el) => ({
    layer: el.result.layer, head: el.result.head, shape: el.result.shape, tokens: el.result.tokens, sink: el.result.sink,
    caption: el.shadowRoot.querySelector('[part="caption"]').textContent }));
  expect(induction).toMatchObject({ layer: 1, head: 0 });
  expect(induction.caption).toContain('shakespeare-4l.q8.arcs');
  const reference = await engineAttention(outputs[0].text);
  expect(induction.shape).toEqual(reference.shape);
  const arcs = await drawnArcs(locators.nth(0));
  expect(arcs.length).toBeGreaterThan(induction.tokens.length / 2);
  expect(new Set(arcs.map((a) => a.head))).toEqual(new Set([0]));
  const difference = largestArcDifference(arcs, reference.attention, reference.shape, 1, induction.sink);
  console.log(`cell 1: ${arcs.length} arcs (first token ${induction.sink}), largest difference from the engine in ` +
    `Node ${difference}`);
  expect(difference).toBeLessThan(1e-6);
  // An induction head: on the repeat, " lazy" looks at what followed its first occurrence (" dog").
  const lazy = induction.tokens.lastIndexOf('·lazy');
  const strongest = arcs.filter((a) => a.from === lazy).sort((a, b) => b.weight - a.weight)[0];
  expect(induction.tokens[strongest.to]).toBe('·dog');

  // Cell 2: the matrix of layer 0 head 0 in dark: every cell against the engine.
  const matrix = await locators.nth(1).locator('arc-scope').evaluate((el) => ({
    mode: el.result.mode, theme: el.getAttribute('theme'), shape: el.result.shape,
    cells: [...el.shadowRoot.querySelectorAll('rect[data-from]')].map((r) => [+r.dataset.from, +r.dataset.to, +r.dataset.weight]) }));
  expect(matrix).toMatchObject({ mode: 'matrix', theme: 'dark' });
  const ref2 = await engineAttention(outputs[1].text);
  const T = ref2.shape[2];
  expect(matrix.cells.length).toBe(T * T);
  const cellDifference = Math.max(...matrix.cells.map(([i, j, w]) => Math.abs(w - ref2.attention[i * T + j])));
  expect(cellDifference).toBeLessThan(1e-6);

  // Cell 3: the pattern the notebook gave, layer 1 head 2, as drawn arcs.
  const precomputed = locators.nth(2).locator('arc-scope');
  expect(await precomputed.evaluate((el) => [el.result.shape, el.result.layer, el.result.head]))
    .toEqual([[2, 3, 14, 14], 1, 2]);
  const givenArcs = await drawnArcs(locators.nth(2));
  const flat = given.pattern.flat(3);
  expect(givenArcs.length).toBeGreaterThan(0);
  const givenDifference = largestArcDifference(givenArcs, flat, [2, 3, 14, 14], 1);
  expect(givenDifference).toBeLessThan(1e-6); // float64 given, float32 drawn
  // Every weight of that head above the threshold is drawn, and nothing else.
  const above = flat.slice((1 * 3 + 2) * 196, (1 * 3 + 3) * 196).filter((w) => w >= 0.02).length;
  expect(givenArcs.length).toBe(above);
  // Debian's nbconvert template links require.js and MathJax as file: URLs of its own packages, which no served page
  // may load: the page's own messages, not arcscope's.
  expect(errors.filter((e) => !/Not allowed to load local resource: file:.*\/(requirejs|mathjax)\//.test(e))).toEqual([]);
});

test('save_html\'s page, served alone, draws its figures', async ({ page }) => {
  await page.goto(`${site}arcscope-figures.html`);
  const outputs = await outputsSettled(page);
  expect(outputs.map((o) => o.state), JSON.stringify(outputs)).toEqual(['drawn', 'drawn']);
  expect(await drawnArcs(page.locator('.arcscope-output').nth(0))).not.toHaveLength(0);
});

test('an output before the one carrying the payloads (cells run out of order, then saved) draws', async ({ page }) => {
  // Cell 2 ran first and carried the payloads; cell 1 ran after it and carried none; the page lists cell 1 first.
  const code = 'import sys, arcscope\n' +
    'first = arcscope.show("To be, or not to be", layer=0)\n' +
    'carrier = arcscope.show("that is the question")\n' +
    'body = first.html() + carrier.html(carrier.payloads())\n' +
    'open(sys.argv[1], "w").write("<!doctype html><meta charset=utf-8><body>" + body)\n';
  execFileSync(venvPython, ['-c', code, join(alone, 'out-of-order.html')]);
  await page.goto(`${site}out-of-order.html`);
  const outputs = await outputsSettled(page);
  expect(outputs.map((o) => o.state), JSON.stringify(outputs)).toEqual(['drawn', 'drawn']);
  expect(await drawnArcs(page.locator('.arcscope-output').nth(0))).not.toHaveLength(0);
});

test('opened from a file, the precomputed figure draws and the live ones say why they cannot', async ({ page }) => {
  await page.goto(`file://${join(example, 'arcscope.html')}`);
  const outputs = await outputsSettled(page);
  expect(outputs.map((o) => o.state)).toEqual(['error', 'error', 'drawn']);
  // The true cause first, as a sentence, then what the browser said.
  for (const live of outputs.slice(0, 2)) {
    expect(live.error).toMatch(/^arcscope: this page was opened from a file, where the browser does not start the engine's worker: serve its folder \(python3 -m http\.server\) and open it from there\. What failed: .+\.$/);
  }
});
