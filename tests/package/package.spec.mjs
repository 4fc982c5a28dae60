// The package as people use it (tests/package/consumer.mjs installs the packed tarball into a fresh project):
// - the self-host folder on another origin (CORS on), loaded by a plain page, draws arcs;
// - the same folder copied under a sub-path of the page's own site draws arcs;
// - a Vite build of a page that imports 'arcscope/element' from the installed package builds without a warning (no
//   Node module externalized), and draws arcs under the strict policy (no style-src data:: its stylesheets stay
//   files), naming the default model by its own file name, not the hashed copy's;
// - a folder whose wasm is missing shows the error inside the element and fires arcscope-error;
// - docs/embedding.md's policies, snippets and theming CSS, taken from the guide itself, work as written; its
//   cross-origin policy keeps the blog's own stylesheet and src files, and a src file a policy blocks is reported
//   naming connect-src.
import { test, expect } from '@playwright/test';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeBlocks } from './code-blocks.mjs';
import { installedConsumer, repoRoot, selfHostFolder, serveFolder } from './consumer.mjs';
import { STRICT_CSP, startServer } from '../../scripts/serve.mjs';
import { ARTICLE_TEXT, watchConsole } from '../e2e/helpers.mjs';

const servers = [];
let assets, site, bundled, guideServer, guideSite, viteOutput;
// The guide's code blocks: its two policies and its isolation headers (http), its snippets (html) and its theming
// (css) are what these pages use.
const guide = codeBlocks(join(repoRoot, 'docs', 'embedding.md'));
const policies = guide.filter((b) => b.lang === 'http' && b.code.startsWith('Content-Security-Policy:'))
  .map((b) => b.code.replace(/^Content-Security-Policy:\s*/, '').replace(/\s*\n\s*/g, ' ').trim());
const isolation = guide.filter((b) => b.lang === 'http' && b.code.startsWith('Cross-Origin-'));
const crossOriginPolicy = () => policies.find((p) => p.includes('assets.example'))
  .replaceAll('https://assets.example', new URL(assets.url).origin);

const page = (scriptSrc, attrs = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>a blog post</title></head>
<body><h1>A post</h1><arc-scope text="${ARTICLE_TEXT.replace(/'/g, '&#39;')}" ${attrs}></arc-scope>
<script type="module" src="${scriptSrc}"></script></body></html>
`;

test.beforeAll(async () => {
  test.setTimeout(360_000);
  const consumer = installedConsumer();
  // The site of the post: its pages, and copies of the folder at a sub-path and (broken) without its wasm.
  const siteDir = join(consumer, 'site');
  rmSync(siteDir, { recursive: true, force: true });
  cpSync(selfHostFolder, join(siteDir, 'blog', 'assets', 'arcscope'), { recursive: true });
  cpSync(selfHostFolder, join(siteDir, 'broken'), { recursive: true });
  writeFileSync(join(siteDir, 'favicon.ico'), ''); // what the browser asks every site for
  rmSync(join(siteDir, 'broken', 'lib', 'wasm', 'arcscope_core.wasm'));
  cpSync(selfHostFolder, join(siteDir, 'no-wasm-dir'), { recursive: true });
  rmSync(join(siteDir, 'no-wasm-dir', 'lib', 'wasm'), { recursive: true });
  // The asset host: the folder as it is, on another port (another origin), with CORS.
  assets = await serveFolder(selfHostFolder, { cors: true });
  // Pages named csp-*.html get the policy the guide documents for the library on another origin.
  // blocked-*.html get it without 'self' in connect-src, as the guide once printed it.
  const policyFor = (path) => (/\/csp-[^/]*\.html$/.test(path) ? crossOriginPolicy()
    : /\/blocked-[^/]*\.html$/.test(path) ? crossOriginPolicy().replace("connect-src 'self' ", 'connect-src ')
    : /\/nowasm-[^/]*\.html$/.test(path) ? crossOriginPolicy().replace(" 'wasm-unsafe-eval'", '') : null);
  site = await serveFolder(siteDir, { headers: (path) => (policyFor(path) ? { 'Content-Security-Policy': policyFor(path) } : {}) });
  servers.push(assets.server, site.server);
  writeFileSync(join(siteDir, 'cross-origin.html'), page(`${assets.url}lib/arc-scope.js`));
  writeFileSync(join(siteDir, 'csp-cross-origin.html'), page(`${assets.url}lib/arc-scope.js`));
  // A blog with its own stylesheet and its own precomputed attention, under the same policy.
  writeFileSync(join(siteDir, 'blog.css'), 'h1 { color: rgb(1, 2, 3); }\n');
  execFileSync(join(repoRoot, 'build', 'native', 'arcscope'), ['run', '--model', join(repoRoot, 'models', 'shakespeare-4l.q8.arcs'),
    '--no-logits', '--text', 'To be, or not to be', '--out', join(siteDir, 'attention.json')]);
  writeFileSync(join(siteDir, 'csp-own-files.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>a blog post</title><link rel="stylesheet" href="/blog.css"></head>
<body><h1>A post</h1><arc-scope src="/attention.json"></arc-scope>
<script type="module" src="${assets.url}lib/arc-scope.js"></script></body></html>
`);
  cpSync(join(siteDir, 'csp-own-files.html'), join(siteDir, 'blocked-src.html'));
  writeFileSync(join(siteDir, 'nowasm-post.html'), page(`${assets.url}lib/arc-scope.js`));
  writeFileSync(join(siteDir, 'sub-path.html'), page('/blog/assets/arcscope/lib/arc-scope.js'));
  writeFileSync(join(siteDir, 'broken.html'), page('/broken/lib/arc-scope.js'));
  writeFileSync(join(siteDir, 'no-wasm-dir.html'), page('/no-wasm-dir/lib/arc-scope.js'));
  writeFileSync(join(siteDir, 'wrong-path.html'), page('/no/such/folder/lib/arc-scope.js'));

  // The guide's snippets, on a site with the folder at /arcscope/ as the guide says.
  guideSite = join(consumer, 'guide-site');
  rmSync(guideSite, { recursive: true, force: true });
  cpSync(selfHostFolder, join(guideSite, 'arcscope'), { recursive: true });
  guideServer = await serveFolder(guideSite);
  servers.push(guideServer.server);

  // A bundled app: index.html + main.js importing the element from the installed package, built by Vite.
  const app = join(consumer, 'vite-app');
  rmSync(app, { recursive: true, force: true });
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'index.html'), page('./main.js'));
  writeFileSync(join(app, 'main.js'), "import 'arcscope/element';\n");
  const vite = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel',
    'warn'], { cwd: app, encoding: 'utf8' });
  viteOutput = `${vite.stdout}${vite.stderr}`; // with --logLevel warn: the warnings and errors only
  if (vite.status !== 0) throw new Error(`vite build failed (${vite.status}): ${viteOutput}`);
  writeFileSync(join(app, 'dist', 'favicon.ico'), '');
  // Under the strict policy the guide gives for the same origin: no style-src, so no data: stylesheet.
  bundled = await serveFolder(join(app, 'dist'), { headers: () => ({ 'Content-Security-Policy': policies[0] }) });
  servers.push(bundled.server);
});

test.afterAll(() => { for (const s of servers) s.close(); });

// The first arcscope-error message of the page at url, listened for from before its scripts run (capture: the event
// does not bubble).
async function firstError(browserPage, url) {
  await browserPage.addInitScript(() => {
    window.arcscopeErrors = [];
    document.addEventListener('arcscope-error', (e) => window.arcscopeErrors.push(e.detail.message), true);
  });
  await browserPage.goto(url);
  await expect.poll(() => browserPage.evaluate(() => window.arcscopeErrors.length), { timeout: 30_000 }).toBeGreaterThan(0);
  return browserPage.evaluate(() => window.arcscopeErrors[0]);
}

// Waits for the element's first drawing; -> {arcs, ms from navigation to the rendered event}
async function firstArcs(browserPage, url) {
  await browserPage.goto(url);
  await browserPage.evaluate(() => new Promise((ok, fail) => {
    const el = document.querySelector('arc-scope');
    if (el.result) ok();
    el.addEventListener('arcscope-rendered', () => ok(), { once: true });
    el.addEventListener('arcscope-error', (e) => fail(new Error(e.detail.message)), { once: true });
  }));
  return browserPage.evaluate(() => ({
    arcs: document.querySelector('arc-scope').shadowRoot.querySelectorAll('path[data-from]').length,
    ms: Math.round(performance.now()),
  }));
}

test('the self-host folder on another origin (CORS) draws arcs in a plain page', async ({ page: p }) => {
  const errors = watchConsole(p);
  const { arcs, ms } = await firstArcs(p, `${site.url}cross-origin.html`);
  expect(arcs).toBeGreaterThan(0);
  expect(new URL(assets.url).origin).not.toBe(new URL(site.url).origin);
  console.log(`cross-origin page, cold: first arcs ${ms} ms after navigation (${arcs} arcs)`);
  expect(errors).toEqual([]);
});

test('on another origin under the Content-Security-Policy the guide gives, with no console errors', async ({ page: p }) => {
  const errors = watchConsole(p);
  const { arcs } = await firstArcs(p, `${site.url}csp-cross-origin.html`);
  expect(arcs).toBeGreaterThan(0);
  expect(errors).toEqual([]);
});

test("the guide's cross-origin policy keeps the blog's own stylesheet and its own src files", async ({ page: p }) => {
  const errors = watchConsole(p);
  const { arcs } = await firstArcs(p, `${site.url}csp-own-files.html`);
  expect(arcs).toBeGreaterThan(0);
  expect(await p.evaluate(() => getComputedStyle(document.querySelector('h1')).color)).toBe('rgb(1, 2, 3)');
  expect(errors).toEqual([]);
});

test('a src file the policy blocks: the element names connect-src', async ({ page: p }) => {
  const message = await firstError(p, `${site.url}blocked-src.html`);
  expect(message).toMatch(/could not load .*attention\.json \(.*Content-Security-Policy: its connect-src must allow this URL/);
});

test("a policy without 'wasm-unsafe-eval': the element names that source, not 'unsafe-eval'", async ({ page: p }) => {
  const message = await firstError(p, `${site.url}nowasm-post.html`);
  expect(message).toContain("the page's Content-Security-Policy does not allow WebAssembly: add 'wasm-unsafe-eval' " +
    "to its script-src (not 'unsafe-eval', which also allows eval)");
});

test("the guide's same-origin policy is the strict one the tutorial runs under", () => {
  expect(policies).toHaveLength(2);
  expect(policies[0]).toBe(STRICT_CSP);
});

test("the guide's isolation headers are those the threaded module is tested under (serve.mjs --isolate)", async () => {
  expect(isolation).toHaveLength(1);
  const server = await startServer({ port: 0, isolate: true });
  try {
    const { headers } = await fetch(`http://127.0.0.1:${server.address().port}/`);
    for (const line of isolation[0].code.trim().split('\n')) {
      const [name, value] = line.split(/:\s*/);
      expect(headers.get(name), name).toBe(value);
    }
  } finally {
    server.close();
  }
});

test("the guide's HTML and CSS blocks work as written, with the folder at /arcscope/", async ({ page: p }) => {
  const blocks = guide.filter((b) => b.lang === 'html' && !b.skip);
  // A block without the module's script tag is a fragment for a page that has one: the snippet's.
  const script = blocks.map((b) => b.code.match(/<script[^>]*><\/script>/)?.[0]).find(Boolean);
  const css = guide.filter((b) => b.lang === 'css' && !b.skip).map((b) => b.code).join('\n');
  expect(blocks.length).toBeGreaterThan(0);
  for (const block of blocks) {
    const file = `guide-${block.line}.html`;
    writeFileSync(join(guideSite, file), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>guide</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="guide.css"></head><body>${block.code}${
      block.code.includes('<script') ? '' : script}</body></html>`);
    writeFileSync(join(guideSite, 'guide.css'), css);
    await p.goto(`${guideServer.url}${file}`);
    const detail = await p.locator('arc-scope').first().evaluate((el) => new Promise((ok, fail) => {
      if (el.result) ok(el.result.tokens.length);
      el.addEventListener('arcscope-rendered', (e) => ok(e.detail.tokens), { once: true });
      el.addEventListener('arcscope-error', (e) => fail(new Error(e.detail.message)), { once: true });
    }));
    expect(detail, `docs/embedding.md:${block.line}`).toBe(13);
    // the theming block's ::part rule reached into the shadow root
    const border = await p.locator('arc-scope').first().evaluate((el) =>
      getComputedStyle(el.shadowRoot.querySelector('[part="frame"]')).borderTopWidth);
    expect(border).toBe('2px');
  }
});

test('the folder under a sub-path of the site draws arcs', async ({ page: p }) => {
  const errors = watchConsole(p);
  const { arcs } = await firstArcs(p, `${site.url}sub-path.html`);
  expect(arcs).toBeGreaterThan(0);
  expect(errors).toEqual([]);
});

test("a Vite build of a page importing 'arcscope/element' draws arcs under the strict policy", async ({ page: p }) => {
  const errors = watchConsole(p);
  const { arcs } = await firstArcs(p, bundled.url);
  expect(arcs).toBeGreaterThan(0);
  expect(policies[0]).not.toContain('data:');
  // The element's stylesheets are files the policy allows, not data: URLs it would block, and they apply.
  const styles = await p.locator('arc-scope').evaluate((el) => ({
    links: [...el.shadowRoot.querySelectorAll('link[rel=stylesheet]')].map((l) => new URL(l.href).protocol),
    radius: getComputedStyle(el.shadowRoot.querySelector('[part="frame"]')).borderTopLeftRadius,
  }));
  expect(styles).toEqual({ links: ['http:', 'http:'], radius: '8px' });
  // The caption names the default model by its file name, not by the bundle's hashed copy of it.
  await expect(p.locator('arc-scope').locator('[part="caption"]')).toHaveText('layer 3 · all heads · shakespeare-4l.q8.arcs');
  expect(errors).toEqual([]);
});

test("the Vite build of 'arcscope/element' gives no warning: no Node module is externalized for the browser", () => {
  expect(viteOutput).not.toMatch(/node:|externalized/);
  expect(viteOutput.trim()).toBe('');
});

test('a folder whose wasm is missing: the element says so inside itself and fires arcscope-error', async ({ page: p }) => {
  const message = await firstError(p, `${site.url}broken.html`);
  console.log(`missing wasm: ${message}`);
  expect(message).toMatch(/could not load the engine's wasm http:.*arcscope_core\.wasm: HTTP 404/);
  const shown = p.locator('arc-scope').locator('[role=alert]');
  await expect(shown).toBeVisible();
  await expect(shown).toContainText('arcscope_core.wasm');
});

test('a folder copied without lib/wasm: the element names the missing file, not worker.js', async ({ page: p }) => {
  const message = await firstError(p, `${site.url}no-wasm-dir.html`);
  expect(message).toMatch(/the engine worker failed to start: http:.*\/no-wasm-dir\/lib\/wasm\/arcscope_core\.js answers HTTP 404; copy the whole lib\/ folder, lib\/wasm\/ included/);
});

// The guide's drawn() helper as it prints it, taken from its testing block.
function guideDrawn() {
  const block = guide.find((b) => b.lang === 'js' && b.code.includes('const drawn = '));
  const source = block.code.slice(block.code.indexOf('(element) =>'), block.code.indexOf('}));') + 3);
  return new Function(`return ${source}`)();
}

test("the guide's drawn() helper says the element never loaded when its script path is wrong", async ({ page: p }) => {
  const drawn = guideDrawn();
  await p.goto(`${site.url}wrong-path.html`);
  await expect(drawn(p.locator('arc-scope').first())).rejects.toThrow(/<arc-scope> never loaded: lib\/element\.js did not run/);
});

test("the guide's drawn() helper rejects with the same message whether the error came before or after it", async ({ page: p }) => {
  const drawn = guideDrawn();
  // Lazy, below the fold: nothing loads until it is scrolled to, so the helper is waiting when the error arrives.
  writeFileSync(join(guideSite, 'missing-model.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>guide</title><link rel="icon" href="data:,"></head><body><div style="height: 3000px"></div>
<arc-scope loading="lazy" text="hello" model="/arcscope/no-such-model.arcs"></arc-scope>
<script type="module" src="/arcscope/lib/arc-scope.js"></script></body></html>`);
  await p.goto(`${guideServer.url}missing-model.html`);
  const figure = p.locator('arc-scope');
  await p.waitForFunction(() => customElements.get('arc-scope'));
  const message = (e) => e.message.split('\n')[0];  // (its stack in the page follows)
  const waiting = drawn(figure).then(() => 'drawn?', message);
  await figure.scrollIntoViewIfNeeded();
  const after = await waiting;
  await expect(figure.getByRole('alert')).toBeVisible();
  const before = await drawn(figure).then(() => 'drawn?', message);  // the error is already shown
  console.log(`drawn() rejected with: ${after}`);
  // (Playwright puts its own "locator....: Error: " before the page's message.)
  expect(after).toMatch(/Error: could not download http:.*\/arcscope\/no-such-model\.arcs: HTTP 404/);
  expect(before).toBe(after);
});
