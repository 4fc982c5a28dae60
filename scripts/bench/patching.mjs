// patching.mjs: the sweep benchmark. A patching sweep over every head's z of a GPT-2-small-shaped model at
// T = 16 (144 heads; then every (layer, position) of the residual stream), arcscope q8 in headless Chromium and in
// Node, one thread, against the same sweep in PyTorch with TransformerLens-style hooks (patching_torch.py: a full
// forward pass per patch, as a Python notebook runs it), in alternating rounds. Two corruptions: at position 1 (the
// sweep must rerun almost every position) and at position 10 (it reruns from there).
//   node scripts/bench/patching.mjs [--rounds 3]      (scripts/bench_patching.sh prepares the model)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(fileURLToPath(new URL('../../', import.meta.url)));
const argv = process.argv.slice(2);
const rounds = Number(argv[argv.indexOf('--rounds') + 1]) || 3;
const model = 'build/bench/gpt2-small.q8.arcs';
const T = 16;
const clean = Array.from({ length: T }, (_, i) => (i * 7919 + 101) % 50000);
const corruptions = { 'corrupted at 1': 1, 'corrupted at 10': 10 };
const prompts = Object.fromEntries(Object.entries(corruptions).map(([name, at]) => {
  const corrupted = clean.slice();
  corrupted[at] = (corrupted[at] + 17) % 50000;
  return [name, corrupted];
}));

// In whatever JS environment: load, then time the head sweep and the whole sweep (heads and residual stream).
const sweep = async (createEngine, bytes, clean, prompts) => {
  const engine = await createEngine();
  const m = engine.loadModel(bytes);
  const out = {};
  for (const [name, corrupted] of Object.entries(prompts)) {
    const t0 = performance.now();
    const r = m.patchingSweep({ clean, corrupted, answer: 1000, wrong: 2000 });
    out[name] = { ms: performance.now() - t0, heads: r.heads.data.length, firstDifference: r.firstDifference };
  }
  return out;
};

function node() {
  const script = `
    import { readFileSync } from 'node:fs';
    import { createEngine } from '${root}/build/lib/engine.js';
    const sweep = ${sweep.toString()};
    console.log(JSON.stringify(await sweep(createEngine, readFileSync('${root}/${model}'), ${JSON.stringify(clean)}, ${JSON.stringify(prompts)})));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

async function chromium(server) {
  const { chromium: browserType } = await import('@playwright/test');
  const browser = await browserType.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/build/lib/version.js`);
    return await page.evaluate(async ({ sweepText, model, clean, prompts }) => {
      const { createEngine } = await import('/build/lib/engine.js');
      const sweep = (0, eval)(`(${sweepText})`);
      const bytes = new Uint8Array(await (await fetch(`/${model}`)).arrayBuffer());
      return sweep(createEngine, bytes, clean, prompts);
    }, { sweepText: sweep.toString(), model, clean, prompts });
  } finally {
    await browser.close();
  }
}

function torch(threads) {
  const r = spawnSync('/usr/bin/python3', ['scripts/bench/patching_torch.py', '--model', 'build/bench/gpt2-small',
    '--threads', String(threads), '--clean', clean.join(','), ...Object.values(prompts).flatMap((p) => ['--corrupted', p.join(',')])],
  { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24, env: { ...process.env, PYTHONPYCACHEPREFIX: `${root}/build/pycache` } });
  if (r.status !== 0) throw new Error(r.stderr);
  const ms = JSON.parse(r.stdout.trim().split('\n').pop());
  return Object.fromEntries(Object.keys(prompts).map((name, i) => [name, { ms: ms[i] }]));
}

const types = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.bin': 'application/octet-stream' };
const server = http.createServer((req, res) => {
  const file = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  if (!file.startsWith(path.join(root, 'build')) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));

const results = { 'arcscope q8, Chromium': [], 'arcscope q8, Node': [], 'PyTorch f32 hooks, 1 thread': [] };
for (let round = 0; round < rounds; round++) {
  results['arcscope q8, Chromium'].push(await chromium(server));
  results['arcscope q8, Node'].push(node());
  results['PyTorch f32 hooks, 1 thread'].push(torch(1));
  console.error(`round ${round + 1} of ${rounds} done`);
}
server.close();

const median = (v) => v.slice().sort((a, b) => a - b)[v.length >> 1];
console.log(`\nPatching sweep, GPT-2-small-shaped weights, T = ${T}: 144 heads (hook_z) + 12 x ${T} residual positions.` +
  ` Best / median of ${rounds} rounds, ms.`);
console.log(`| system | ${Object.keys(prompts).join(' | ')} |`);
console.log(`|---|${Object.keys(prompts).map(() => '---').join('|')}|`);
for (const [system, runs] of Object.entries(results)) {
  const cells = Object.keys(prompts).map((name) => {
    const v = runs.map((r) => r[name].ms);
    return `${Math.round(Math.min(...v))} / ${Math.round(median(v))}`;
  });
  console.log(`| ${system} | ${cells.join(' | ')} |`);
}
