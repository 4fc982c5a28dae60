// A live classic Jupyter Notebook (Debian's jupyter-notebook) started from the venv that has the wheel, driven as a
// person drives it: run a cell with Shift+Enter, see <arc-scope> draw the engine's numbers, change an attribute in
// the Python call and run the cell again, run another cell, then Restart & Run All and save, and find each payload
// once in the saved file.
import { test, expect } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { COMPUTE_TIMEOUT, watchConsole } from '../e2e/helpers.mjs';
import { drawnArcs, engineAttention, jupyterBuild, largestArcDifference, prepareExample, venvPython } from './support.mjs';

const TEXT = ' the quick brown fox jumps over the lazy dog. the quick brown fox jumps over the lazy';
const cell = (source) => ({ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source });
const notebook = {
  cells: [cell(`import arcscope\narcscope.show(${JSON.stringify(TEXT)}, layer=0, head=0)`),
    cell('arcscope.attention(["a", " b", " c"], [[1, 0, 0], [0.25, 0.75, 0], [0.1, 0.3, 0.6]])')],
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
  nbformat: 4, nbformat_minor: 4,
};
const dir = join(jupyterBuild, 'live');
let server, base;

const freePort = () => new Promise((ok) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
});

test.beforeAll(async () => {
  test.setTimeout(360_000);
  prepareExample();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'notebooks'), { recursive: true });
  writeFileSync(join(dir, 'notebooks', 'live.ipynb'), JSON.stringify(notebook));
  const port = await freePort();
  base = `http://127.0.0.1:${port}/`;
  // Its own config and runtime folders, so that no user setting changes what runs.
  const env = { ...process.env, JUPYTER_CONFIG_DIR: join(dir, 'config'), JUPYTER_RUNTIME_DIR: join(dir, 'runtime'),
    JUPYTER_DATA_DIR: join(dir, 'data'), PYDEVD_DISABLE_FILE_VALIDATION: '1' };
  // --allow-root: CI and this project's machines run as root, which the server otherwise refuses
  server = spawn(venvPython, ['-m', 'notebook', '--no-browser', '--allow-root', `--port=${port}`, '--ip=127.0.0.1',
    '--NotebookApp.token=', '--NotebookApp.password=', `--notebook-dir=${join(dir, 'notebooks')}`],
  { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr.on('data', (d) => { log += d; });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}api`)).ok) break;
    } catch { /* not up yet */ }
    if (i > 100 || server.exitCode !== null) throw new Error(`the Notebook server did not start:\n${log}`);
    await new Promise((ok) => setTimeout(ok, 200));
  }
});
test.afterAll(() => { server?.kill(); });

// Runs the notebook's cell i with Shift+Enter and waits for its arcscope output; -> its state and the result.
async function runCell(page, i) {
  const area = page.locator('.cell').nth(i);
  await area.locator('.CodeMirror').click();
  await page.keyboard.press('Shift+Enter');
  const output = area.locator('.arcscope-output');
  await expect(output).toHaveAttribute('data-arcscope', /drawn|error/, { timeout: COMPUTE_TIMEOUT });
  return output;
}
const resultOf = (output) => output.locator('arc-scope').evaluate((el) => ({ layer: el.result.layer, head: el.result.head,
  shape: el.result.shape, tokens: el.result.tokens, sink: el.result.sink, theme: el.getAttribute('theme') }));

test('a classic Notebook draws live arcs, an attribute changed from Python, and several cells', async ({ page }) => {
  test.setTimeout(360_000);
  const errors = watchConsole(page);
  await page.goto(`${base}notebooks/live.ipynb`);
  await page.waitForFunction(() => window.Jupyter?.notebook?.kernel?.is_connected(), null, { timeout: COMPUTE_TIMEOUT });

  let output = await runCell(page, 0);
  await expect(output).toHaveAttribute('data-arcscope', 'drawn');
  console.log(`live Notebook, cold time to first arcs: ${await output.getAttribute('data-arcscope-ms')} ms`);
  const first = await resultOf(output);
  expect(first).toMatchObject({ layer: 0, head: 0 });
  const payloads = (i) => page.locator('.cell').nth(i).locator('script[data-arcscope-payload]');
  await expect(payloads(0)).toHaveCount(2); // the library and the model, in the page
  const reference = await engineAttention(TEXT);
  const arcs = await drawnArcs(output);
  expect(arcs.length).toBeGreaterThan(0);
  expect(largestArcDifference(arcs, reference.attention, reference.shape, 0, first.sink)).toBeLessThan(1e-6);
  // Layer 0 head 0 looks at the previous token (the first token, having none, at itself).
  expect(arcs.filter((a) => a.from > 0 && a.weight > 0.5).every((a) => a.to === a.from - 1)).toBe(true);

  // The same call with another layer and the dark theme, run again in the same cell.
  await page.evaluate((text) => window.Jupyter.notebook.get_cell(0)
    .set_text(`import arcscope\narcscope.show(${JSON.stringify(text)}, layer=1, head=0, theme="dark")`), TEXT);
  output = await runCell(page, 0);
  await expect(output).toHaveAttribute('data-arcscope', 'drawn');
  const second = await resultOf(output);
  expect(second).toMatchObject({ layer: 1, head: 0, theme: 'dark' });
  expect(largestArcDifference(await drawnArcs(output), reference.attention, reference.shape, 1, second.sink))
    .toBeLessThan(1e-6);
  // The classic Notebook sends no cell id, and the cell's code changed: the kernel cannot know that this output
  // replaced the one that carried the payloads, so it does not carry them, and the page draws from what it decoded.
  await expect(payloads(0)).toHaveCount(0);

  // Another cell, precomputed attention.
  const precomputed = await runCell(page, 1);
  await expect(precomputed).toHaveAttribute('data-arcscope', 'drawn');
  expect((await drawnArcs(precomputed)).find((a) => a.from === 2 && a.to === 1).weight).toBeCloseTo(0.3, 6);

  // Kernel > Restart & Run All, the remedy the guide gives before saving: the first output carries them again.
  // (Shift+Enter on the last cell added an empty third.)
  await page.evaluate(() => window.Jupyter.notebook.restart_run_all({ confirm: false }));
  await expect.poll(() => page.evaluate(() => window.Jupyter.notebook.get_cells().slice(0, 2).map((c) => c.input_prompt_number).join()),
    { timeout: COMPUTE_TIMEOUT }).toBe('1,2');
  for (const i of [0, 1]) {
    await expect(page.locator('.cell').nth(i).locator('.arcscope-output')).toHaveAttribute('data-arcscope', 'drawn',
      { timeout: COMPUTE_TIMEOUT });
  }
  await expect(payloads(0)).toHaveCount(2);
  await expect(payloads(1)).toHaveCount(0);

  // Saved, the notebook holds each payload once.
  await page.evaluate(() => window.Jupyter.notebook.save_notebook());
  await expect.poll(() => {
    const saved = readFileSync(join(dir, 'notebooks', 'live.ipynb'), 'utf8');
    return [...saved.matchAll(/data-arcscope-payload=\\"([a-z]+)-/g)].map((m) => m[1]).sort().join(' ');
  }, { timeout: 15_000 }).toBe('arcscope model');

  // Opened anew (a fresh page, no cell run): the saved outputs draw, from the payloads in the first.
  await page.reload();
  for (const i of [0, 1]) {
    await expect(page.locator('.cell').nth(i).locator('.arcscope-output')).toHaveAttribute('data-arcscope', 'drawn',
      { timeout: COMPUTE_TIMEOUT });
  }
  expect(errors).toEqual([]);
});
