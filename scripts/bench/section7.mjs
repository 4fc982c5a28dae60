// section7.mjs: how long the tutorial's section 7 takes to run the indirect-object preset (patching, ablation,
// attention, logit lens, attribution) on GPT-2-small-shaped weights in headless Chromium, on 1 thread and, cross-origin
// isolated, on 2; rounds alternate. A benchmark, not a test: nothing is asserted. build/bench/gpt2-small.q8.arcs comes
// from scripts/bench.sh.
//   node scripts/bench/section7.mjs [--rounds 3]
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 3;
const freePort = () => new Promise((ok) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
});

async function serve(isolate) {
  const port = await freePort();
  const args = ['scripts/serve.mjs', '--port', String(port), '--fixtures', 'build/bench', ...(isolate ? ['--isolate'] : [])];
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    try { await fetch(`http://127.0.0.1:${port}/`); return { port, child }; } catch { await new Promise((ok) => setTimeout(ok, 100)); }
  }
  throw new Error('the page server did not start');
}

// One run in a fresh browser: the page opens with the model and the preset, and section 7 runs on its own.
// -> seconds, as the page reports them ("5 steps in 4.2 s on ...")
async function run(port) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/#model=${encodeURIComponent('/fixtures/gpt2-small.q8.arcs')}&hm=ioi`);
    const status = page.locator('#hm-status');
    await status.waitFor({ state: 'attached' });
    await page.waitForFunction(() => document.getElementById('hm-status')?.dataset.state === 'done', null, { timeout: 300_000 });
    const text = await status.textContent();
    return Number(/in ([\d.]+) s/.exec(text)[1]);
  } finally {
    await browser.close();
  }
}

const servers = { '1 thread': await serve(false), '2 threads (cross-origin isolated)': await serve(true) };
const times = Object.fromEntries(Object.keys(servers).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, { port }] of Object.entries(servers)) times[name].push(await run(port));
  console.error(`round ${r + 1} of ${rounds} done`);
}
for (const { child } of Object.values(servers)) child.kill();
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
console.log(`Section 7, the indirect-object preset on GPT-2-small-shaped q8 weights, best / median of ${rounds} (s):`);
for (const [name, v] of Object.entries(times)) console.log(`  ${name}: ${Math.min(...v).toFixed(1)} / ${median(v).toFixed(1)}`);
