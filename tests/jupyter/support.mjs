// What the Jupyter browser specs share: the venv and the executed example (made by the jupyter suite, or here when
// a spec runs alone), the engine's own attention in Node to check drawings against, and the outputs' state.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../package/consumer.mjs';
import { createEngine, defaultAssets, readBytes } from '../../build/lib/engine.js';

export const jupyterBuild = join(repoRoot, 'build', 'jupyter');
export const venvPython = join(jupyterBuild, 'venv', 'bin', 'python');
export const example = join(jupyterBuild, 'example');

// The venv with the wheel and the executed example notebook, made unless they are there.
export function prepareExample() {
  if (!existsSync(venvPython)) execFileSync('/usr/bin/python3', [join(repoRoot, 'tests', 'jupyter', 'make_venv.py')], { stdio: 'inherit' });
  if (!existsSync(join(example, 'arcscope.html'))) {
    execFileSync(venvPython, [join(repoRoot, 'tests', 'jupyter', 'execute_example.py')], { stdio: 'inherit' });
  }
  return JSON.parse(readFileSync(join(example, 'given.json'), 'utf8'));
}

// [L, H, T, T] attention of the default model on text, by the engine module in Node (not the page's worker).
let engine = null;
export async function engineAttention(text) {
  engine ??= await createEngine();
  const model = engine.loadModel(await readBytes(defaultAssets.model));
  const { ids } = model.tokenize(text);
  const { attention, attentionShape } = model.forward(ids, { attention: true });
  model.free();
  return { attention, shape: attentionShape };
}

// Waits until every arcscope output of the page has drawn or failed; [{state, ms, text, error}] in page order.
export async function outputsSettled(page, timeout = 60_000) {
  await page.waitForFunction(() => [...document.querySelectorAll('.arcscope-output')]
    .every((o) => o.dataset.arcscope === 'drawn' || o.dataset.arcscope === 'error'), null, { timeout });
  return page.evaluate(() => [...document.querySelectorAll('.arcscope-output')].map((o) => {
    const el = o.querySelector('arc-scope');
    return { state: o.dataset.arcscope, ms: Number(o.dataset.arcscopeMs), text: el?.getAttribute('text') ?? null,
      error: el ? el.shadowRoot.querySelector('[part="error"]').textContent : o.textContent };
  }));
}

// The arcs one output's <arc-scope> drew, from its SVG paths: [{from (query), to (key), head, weight}].
export const drawnArcs = (output) => output.locator('path[data-from]').evaluateAll((paths) => paths
  .filter((p) => getComputedStyle(p).display !== 'none')
  .map((p) => ({ from: +p.dataset.from, to: +p.dataset.to, head: +p.dataset.head, weight: +p.dataset.weight })));

// The largest difference between each drawn arc's weight and attention[layer][arc.head][from][to] (flat [L, H, T, T]).
// sink: what the element drew (its result.sink): 'hidden' rows leave out token 0 and are rescaled to sum to 1, as the
// embedding guide says, so each weight is compared with the row's weight over the rest of that row.
export function largestArcDifference(arcs, attention, [, H, T], layer, sink = 'shown') {
  const at = (head, from, to) => attention[((layer * H + head) * T + from) * T + to];
  const expected = ({ from, to, head }) => {
    if (sink !== 'hidden') return at(head, from, to);
    let rest = 0;
    for (let j = 1; j <= from; j++) rest += at(head, from, j);
    return to === 0 || rest === 0 ? 0 : at(head, from, to) / rest;
  };
  return Math.max(...arcs.map((arc) => Math.abs(arc.weight - expected(arc))));
}
