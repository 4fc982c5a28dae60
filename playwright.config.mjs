// Playwright: the page and <arc-scope> in Debian's Chromium (Playwright cannot download browsers here).
// Three servers, started by Playwright itself on free ports: the plain one, one sending the strict CSP, and one
// cross-origin isolated (COOP/COEP) under the strict CSP, where the engine runs its threaded module.
// Test checkpoints are made once by tests/e2e/global-setup.mjs under build/test-fixtures and served at /fixtures/;
// --test-routes adds the misbehaving servers of /hostile/ (scripts/serve.mjs).
import { defineConfig } from '@playwright/test';
import { createServer } from 'node:net';

const freePort = () => new Promise((ok, fail) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
  s.on('error', fail);
});
// The config is evaluated again in each worker process: the ports chosen first travel in the environment.
process.env.ARCSCOPE_PORT ??= String(await freePort());
process.env.ARCSCOPE_CSP_PORT ??= String(await freePort());
process.env.ARCSCOPE_ISOLATED_PORT ??= String(await freePort());
const port = Number(process.env.ARCSCOPE_PORT), cspPort = Number(process.env.ARCSCOPE_CSP_PORT);
const isolatedPort = Number(process.env.ARCSCOPE_ISOLATED_PORT);
const serve = (p, extra = '') => ({
  command: `node scripts/serve.mjs --port ${p} --fixtures build/test-fixtures --test-routes ${extra}`,
  url: `http://127.0.0.1:${p}/`,
  reuseExistingServer: false,
  timeout: 30_000,
});

export default defineConfig({
  // The browser suites: tests/e2e, the installed package's browser checks beside its other tests, and the notebooks'
  // (tests/jupyter: the executed example's HTML, a live Notebook server).
  testDir: 'tests',
  testMatch: /(e2e|package|jupyter)\/[^/]+\.spec\.mjs$/,
  globalSetup: './tests/e2e/global-setup.mjs',
  outputDir: 'build/test-results',
  // Generous: a test fails because the code is wrong, not because the shared machine is busy (a hang still ends).
  // Waits for whole analyses use helpers.mjs's COMPUTE_TIMEOUT.
  timeout: 240_000,
  expect: { timeout: 60_000 },
  fullyParallel: false,
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}/`,
    browserName: 'chromium',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    },
    viewport: { width: 1280, height: 900 },
    trace: 'off',
  },
  projects: [
    { name: 'page', testIgnore: /(csp|threads)\.spec/ },
    { name: 'csp', testMatch: /csp\.spec\.mjs/, use: { baseURL: `http://127.0.0.1:${cspPort}/` } },
    { name: 'isolated', testMatch: /threads\.spec\.mjs/, use: { baseURL: `http://127.0.0.1:${isolatedPort}/` } },
  ],
  webServer: [serve(port), serve(cspPort, '--csp'), serve(isolatedPort, '--isolate --csp')],
});
