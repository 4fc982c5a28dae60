// The same model bytes under two file names in one page: the bytes travel once (one payload), and each figure's model
// key (local:NAME:SIZE) is loaded into the worker, so the second figure draws instead of asking for a key nobody
// loaded ("could not reach local:copy.arcs").
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, serveFolder } from '../package/consumer.mjs';
import { watchConsole } from '../e2e/helpers.mjs';
import { jupyterBuild, outputsSettled, venvPython } from './support.mjs';

let server, site, folder;

test.beforeAll(async () => {
  test.setTimeout(360_000);
  if (!existsSync(venvPython)) execFileSync('/usr/bin/python3', [join(repoRoot, 'tests', 'jupyter', 'make_venv.py')], { stdio: 'inherit' });
  folder = join(jupyterBuild, 'same-model');
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const script = `
import shutil, sys, arcscope
folder = sys.argv[1]
copy = shutil.copy(arcscope.files.DEFAULT_MODEL, folder + "/copy.arcs")
arcscope.save_html(folder + "/figures.html", arcscope.show("To be, or not to be"),
                   arcscope.show("that is the question", model=copy), arcscope.show("Whether tis nobler", model=copy))
`;
  execFileSync(venvPython, ['-c', script, folder], { stdio: 'inherit' });
  writeFileSync(join(folder, 'favicon.ico'), '');
  ({ server, url: site } = await serveFolder(folder));
});
test.afterAll(() => server?.close());

test('figures of the same model bytes under two file names each draw, the bytes carried once', async ({ page }) => {
  const html = readFileSync(join(folder, 'figures.html'), 'utf8');
  expect([...html.matchAll(/data-arcscope-payload="(model-[0-9a-f]+)"/g)].length).toBe(1);
  const errors = watchConsole(page);
  await page.goto(`${site}figures.html`);
  const outputs = await outputsSettled(page);
  console.log(outputs.map((o) => `${o.state}: ${o.error || o.text}`).join('\n'));
  expect(outputs.map((o) => o.state)).toEqual(['drawn', 'drawn', 'drawn']);
  const captions = await page.locator('.arcscope-output arc-scope').evaluateAll((els) =>
    els.map((el) => el.shadowRoot.querySelector('[part="caption"]').textContent));
  expect(captions[0]).toContain('shakespeare-4l.q8.arcs');
  expect(captions[1]).toContain('copy.arcs');
  expect(captions[2]).toContain('copy.arcs');
  expect(errors).toEqual([]);
});
