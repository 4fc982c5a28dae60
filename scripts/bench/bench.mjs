// bench.mjs: issue 6's benchmark. arcscope (q8 and f32) against ONNX Runtime Web (fp32) on the same GPT-2-small
// weights, one thread, in Node 20 and in headless Chromium, systems alternating round by round; every run is a fresh
// process (Node) or a fresh browser (Chromium). Prints one table per environment with best and median and the
// ratio arcscope / ONNX Runtime Web of the best times. scripts/bench.sh prepares the files and calls this.
//   node scripts/bench/bench.mjs [--rounds 3] [--node-only | --browser-only]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prefillLengths } from './measure.mjs';

const root = path.resolve(fileURLToPath(new URL('../../', import.meta.url)));
const argv = process.argv.slice(2);
const rounds = Number(argv[argv.indexOf('--rounds') + 1]) || 3;
const envs = argv.includes('--node-only') ? ['node'] : argv.includes('--browser-only') ? ['chromium'] : ['node', 'chromium'];
const dir = 'build/bench';
const systems = [
  { key: 'q8', label: 'arcscope q8', kind: 'arcscope', model: `${dir}/gpt2-small.q8.arcs` },
  { key: 'ort', label: 'ONNX Runtime Web fp32', kind: 'ort', model: `${dir}/gpt2-small.onnx` },
  { key: 'f32', label: 'arcscope f32', kind: 'arcscope', model: `${dir}/gpt2-small.f32.arcs` },
];

function runNode(system) {
  const r = spawnSync(process.execPath, ['scripts/bench/node_run.mjs', '--system', system.kind, '--model', system.model],
    { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${system.label} (node) failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// A static server for exactly what the page needs, cross-origin isolated so the page can measure its memory.
function serve() {
  const allowed = ['/scripts/bench/', '/build/lib/', '/build/wasm/arcscope_diagnostics', '/node_modules/onnxruntime-web/dist/', '/build/bench/', '/models/'];
  const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.join(root, url);
    if (!allowed.some((p) => url.startsWith(p)) || !file.startsWith(root) || !fs.existsSync(file) ||
        !fs.statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'Content-Type': types[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': fs.statSync(file).size,
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function runChromium(system, port) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--enable-blink-features=ForceEagerMeasureMemory'],
  });
  try {
    const page = await browser.newPage();
    const url = `http://127.0.0.1:${port}/scripts/bench/page.html?system=${system.kind}&model=/${system.model}`;
    await page.goto(url);
    await page.waitForFunction(() => window.benchResult, null, { timeout: 15 * 60 * 1000, polling: 500 });
    const result = await page.evaluate(() => window.benchResult);
    if (result.error) throw new Error(`${system.label} (chromium) failed: ${result.error}`);
    return result;
  } finally {
    await browser.close();
  }
}

// The figures of one run, flattened: name -> number (ms or bytes).
function figures(r) {
  const f = { 'load (ms)': r.loadMs };
  for (const T of prefillLengths) f[`prefill T=${T} (ms)`] = r.prefillMs[T];
  if (r.prefillAttention64Ms !== undefined) f['prefill T=64 + all attention (ms)'] = r.prefillAttention64Ms;
  f['decode (ms/token)'] = r.decodeMs;
  if (r.decodeFloorMs !== undefined) f['decode bandwidth floor (ms/token)'] = r.decodeFloorMs;
  if (r.wasmMemoryBytes !== undefined) f['wasm memory (MB)'] = r.wasmMemoryBytes / 2 ** 20;
  if (r.peakRssBytes !== undefined) f['process peak RSS (MB)'] = r.peakRssBytes / 2 ** 20;
  if (r.pageMemoryBytes != null) f['page memory (MB)'] = r.pageMemoryBytes / 2 ** 20;
  return f;
}

const best = (v) => Math.min(...v);
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const fmt = (x) => (x === undefined ? '—' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

function table(env, runs) {
  const names = [];
  for (const s of systems) for (const r of runs[s.key]) for (const k of Object.keys(figures(r))) if (!names.includes(k)) names.push(k);
  const stat = (key, name) => {
    const v = runs[key].map((r) => figures(r)[name]).filter((x) => x !== undefined);
    return v.length ? { best: best(v), median: median(v) } : undefined;
  };
  const lines = [
    `${env}, one thread, ${rounds} rounds (best / median)`, '',
    '| figure | arcscope q8 | ONNX Runtime Web fp32 | q8 / ORT | arcscope f32 | f32 / ORT |',
    '|---|---|---|---|---|---|'];
  for (const name of names) {
    const q = stat('q8', name), o = stat('ort', name), f = stat('f32', name);
    const cell = (s) => (s ? `${fmt(s.best)} / ${fmt(s.median)}` : '—');
    const ratio = (a, b) => (a && b ? (a.best / b.best).toFixed(2) : '—');
    lines.push(`| ${name} | ${cell(q)} | ${cell(o)} | ${ratio(q, o)} | ${cell(f)} | ${ratio(f, o)} |`);
  }
  const q = stat('q8', 'decode (ms/token)'), fl = stat('q8', 'decode bandwidth floor (ms/token)');
  const streams = runs.q8.map((r) => r.streamGBs).filter(Boolean);
  if (q && fl) {
    lines.push('', `q8 decode / bandwidth floor: ${(q.best / fl.best).toFixed(2)} (floor = ` +
      `${(runs.q8[0].q8BytesPerToken / 1e6).toFixed(1)} MB of int8 weights per token at ${Math.max(...streams).toFixed(1)} GB/s, the best streaming read of the same module)`);
  }
  // Paired within each run (the two forwards run back to back), then the median over runs.
  const extra = runs.q8.filter((r) => r.prefillPlain64Ms).map((r) => r.prefillAttention64Ms / r.prefillPlain64Ms - 1);
  if (extra.length) {
    lines.push(`attention capture at T=64 adds ${(100 * median(extra)).toFixed(0)}% to q8 prefill (median of ` +
      `${extra.length} paired runs; range ${(100 * best(extra)).toFixed(0)}% to ${(100 * Math.max(...extra)).toFixed(0)}%)`);
  }
  return lines.join('\n');
}

const results = {};
const server = envs.includes('chromium') ? await serve() : null;
for (const env of envs) {
  const runs = Object.fromEntries(systems.map((s) => [s.key, []]));
  for (let round = 0; round < rounds; round++) {
    // Alternate: each round starts with a different system.
    const order = systems.map((_, i) => systems[(i + round) % systems.length]);
    for (const s of order) {
      const r = env === 'node' ? runNode(s) : await runChromium(s, server.address().port);
      runs[s.key].push(r);
      console.error(`[${env}] round ${round + 1}/${rounds} ${s.label}: prefill T=64 ${fmt(r.prefillMs[64])} ms, ` +
        `decode ${fmt(r.decodeMs)} ms/token, load ${fmt(r.loadMs)} ms`);
    }
  }
  results[env] = runs;
  console.log(`\n${table(env === 'node' ? `Node ${process.versions.node}` : 'headless Chromium', runs)}\n`);
}
server?.close();
fs.writeFileSync(path.join(root, dir, 'results.json'), JSON.stringify(results, null, 1));
