// embed.mjs: the embed page in one engine: its two <arc-scope> examples draw the engine's attention (the arcs with
// topk="2", the matrix cell by cell), typing a layer into its field redraws the first, the page names the engine's
// build, the elements fire their events, and nothing reports an error.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot } from '../package/consumer.mjs';
import { engineAttention, expectedArcs } from './reference.mjs';
import { DEFAULT_MODEL_FILE } from './sites.mjs';
import { arcsEqual, noConsoleErrors, pageWatch, retype, until } from './steps.mjs';

// The element's default model: lib/models/ beside the library, served from the staged build/lib/.
const MODEL = join(repoRoot, 'build', 'lib', 'models', DEFAULT_MODEL_FILE);

export async function checkEmbed(browser, { repo }, { text }) {
  await browser.open(`${repo}embed.html`);
  const reference = await engineAttention(MODEL, text);
  const [L, H, T] = reference.shape;
  const arcs = await arcsEqual(browser, '#example-arcs', '#example-arcs',
    expectedArcs(reference, { layer: L - 1, head: 'all', topk: 2, threshold: 0.02 }));

  // The matrix of layer 0, head 0: one cell per query and key, each the engine's weight.
  const cells = await until(browser, "#example-matrix's cells", (c) => c.length === T * T, () =>
    [...document.getElementById('example-matrix').shadowRoot.querySelectorAll('rect[data-weight]')]
      .map((r) => [+r.dataset.from, +r.dataset.to, +r.dataset.weight]));
  let matrixLargest = 0;
  for (const [i, j, w] of cells) matrixLargest = Math.max(matrixLargest, Math.abs(w - reference.attention[i * T + j]));
  assert.ok(matrixLargest <= 1e-5, `${browser.name}: the matrix differs from the engine's by ${matrixLargest}`);

  // The events: each example was ready on the default model, then rendered what its attributes ask for.
  const { events } = await browser.run(pageWatch);
  const of = (id, type) => events.filter((e) => e.id === id && e.type === type).map((e) => e.detail);
  for (const id of ['example-arcs', 'example-matrix']) {
    assert.deepEqual(of(id, 'arcscope-ready').map(({ model, layers, heads }) => ({ model, layers, heads })),
      [{ model: DEFAULT_MODEL_FILE, layers: L, heads: H }], `${browser.name}: ${id}'s arcscope-ready`);
    assert.deepEqual(of(id, 'arcscope-error'), [], `${browser.name}: ${id}'s arcscope-error`);
  }
  assert.deepEqual(of('example-arcs', 'arcscope-rendered')[0], { tokens: T, layer: L - 1, head: 'all', mode: 'arcs' });
  assert.deepEqual(of('example-matrix', 'arcscope-rendered')[0], { tokens: T, layer: 0, head: 0, mode: 'matrix' });
  const firstArcs = events.find((e) => e.id === 'example-arcs' && e.type === 'arcscope-rendered').at;

  // The page says which build runs.
  const build = await until(browser, "the engine's build on the embed page", (t) => t !== '',
    () => document.getElementById('engine-build').textContent);
  assert.match(build, /^The examples run on the engine's (SIMD128|relaxed SIMD)\b.*, one thread: this page is not cross-origin isolated \(COOP and COEP headers\), which threads need/);

  // Typing layer 1 into the page's field redraws the first example at that layer.
  await retype(browser, '#example-layer', '1');
  const retyped = await arcsEqual(browser, '#example-arcs at layer 1', '#example-arcs',
    expectedArcs(reference, { layer: 1, head: 'all', topk: 2, threshold: 0.02 }));
  await noConsoleErrors(browser, 'the embed page');
  return { firstArcs, arcs: [arcs, retyped], matrixLargest, build };
}
