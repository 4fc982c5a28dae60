// bench_page.mjs: how fast the page is, in headless Chromium (a benchmark, not a test: nothing is asserted).
//   node scripts/bench_page.mjs [--runs 5]
// Measures: (1) page interactive with the default model (navigation start -> first arcs drawn), cold and warm;
// (2) switching layer/head at 64 tokens (the DOM update, and until two animation frames have passed, which
//     includes waiting for vsync);
// (3) 512 tokens with the top-k filter, one head and all 12 heads. (3) needs n_ctx >= 512, which the default model
// lacks, so it uses a random 12-head model made under build/bench-fixtures (drawing cost depends on tokens and
// heads, not on the weights).
import { chromium } from '@playwright/test';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { encode, decode } from 'gpt-3-encoder';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const FIX = 'build/bench-fixtures';

function makeFixture() {
  mkdirSync(FIX, { recursive: true });
  if (!existsSync(`${FIX}/wide-hf/model.safetensors`)) {
    execFileSync('/usr/bin/python3', ['scripts/make_checkpoint.py', '--out', `${FIX}/wide-hf`, '--n-layer', '2', '--n-head', '12',
      '--n-embd', '96', '--n-ctx', '1024', '--vocab', '50257', '--seed', '5'], { stdio: 'inherit' });
  }
  if (!existsSync(`${FIX}/wide.q8.arcs`)) {
    execFileSync('build/native/arcscope', ['convert', '--in', `${FIX}/wide-hf`, '--out', `${FIX}/wide.q8.arcs`, '--dtype', 'q8'], { stdio: 'inherit' });
  }
}

const freePort = () => new Promise((ok) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
});

// Exactly n GPT-2 tokens of English prose.
function textOf(n) {
  const prose = 'The trophy didn\'t fit in the bag because it was too big. So she took out the books, folded the ' +
    'coat twice, and tried again; this time the zipper closed, though the bag now looked like a loaf of bread. ';
  const ids = encode(prose.repeat(Math.ceil(n / 40) + 1)).slice(0, n);
  return decode(ids);
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { best: s[0], median: s[Math.floor(s.length / 2)] };
};
const fmt = ({ best, median }) => `best ${best.toFixed(1)} ms, median ${median.toFixed(1)} ms`;

makeFixture();
const port = await freePort();
const server = spawn('node', ['scripts/serve.mjs', '--port', String(port), '--fixtures', FIX], { stdio: 'ignore' });
await new Promise((ok) => setTimeout(ok, 500));
const base = `http://127.0.0.1:${port}/`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });

try {
  // (1) interactive: a fresh context each run is a cold visit; a second load in the same context is warm.
  const cold = [], warm = [];
  for (let r = 0; r < runs; r++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    for (const list of [cold, warm]) {
      await page.goto(base);
      await page.waitForFunction(() => performance.getEntriesByName('arcscope-first-render').length > 0, null, { timeout: 60_000 });
      list.push(await page.evaluate(() => performance.getEntriesByName('arcscope-first-render')[0].startTime));
    }
    await context.close();
  }
  console.log(`page interactive with the default model (navigation -> first arcs), ${runs} runs:`);
  console.log(`  cold visit: ${fmt(stats(cold))}`);
  console.log(`  warm visit: ${fmt(stats(warm))}`);

  // Switch timing in the page: the synchronous update, then until two animation frames have passed (painted).
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const measureSwitches = async (hash, switches) => {
    await page.goto(`${base}#${hash}`);
    await page.waitForFunction(() => Number(document.getElementById('view').dataset.renders) > 0, null, { timeout: 60_000 });
    return page.evaluate(async (switches) => {
      const { explorer } = window.arcscopePage;
      const frame = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
      const update = [], painted = [];
      for (const patch of switches) {
        await frame();
        const t0 = performance.now();
        explorer.set(patch);
        update.push(performance.now() - t0);
        await frame();
        painted.push(performance.now() - t0);
      }
      return { update, painted, arcs: document.querySelectorAll('#view path[data-from]').length, tokens: explorer.result.labels.length };
    }, switches);
  };
  const cycle = (L, H, n) => Array.from({ length: n }, (_, k) => ({ layer: k % L, head: (k * 5) % H }));

  const t64 = encodeURIComponent(textOf(64));
  const r64 = await measureSwitches(`text=${t64}&threshold=0&topk=0`, cycle(4, 4, 4 * runs));
  console.log(`layer/head switch at ${r64.tokens} tokens, default model, all arcs (${r64.arcs} paths):`);
  console.log(`  DOM update: ${fmt(stats(r64.update))}; to next painted frame: ${fmt(stats(r64.painted))}`);

  const d64 = await measureSwitches(`text=${t64}`, cycle(4, 4, 4 * runs));
  console.log(`layer/head switch at 64 tokens, the page's default filter (weight >= 0.02, ${d64.arcs} paths):`);
  console.log(`  DOM update: ${fmt(stats(d64.update))}; to next painted frame: ${fmt(stats(d64.painted))}`);

  const model = encodeURIComponent(`/fixtures/wide.q8.arcs`);
  const t512 = encodeURIComponent(textOf(512));
  const r512 = await measureSwitches(`model=${model}&text=${t512}&topk=3&threshold=0`, cycle(2, 12, 4 * runs));
  console.log(`512 tokens, top-3 filter, one head (${r512.tokens} tokens, ${r512.arcs} paths):`);
  console.log(`  DOM update: ${fmt(stats(r512.update))}; to next painted frame: ${fmt(stats(r512.painted))}`);
  const all = await measureSwitches(`model=${model}&text=${t512}&topk=3&threshold=0&head=all`,
    Array.from({ length: 2 * runs }, (_, k) => ({ layer: k % 2, head: 'all' })));
  console.log(`512 tokens, top-3 filter, all 12 heads (${all.arcs} paths):`);
  console.log(`  DOM update: ${fmt(stats(all.update))}; to next painted frame: ${fmt(stats(all.painted))}`);
} finally {
  await browser.close();
  server.kill();
}
