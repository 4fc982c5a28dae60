// bench.mjs: the benchmark. arcscope (q8, q16 and f32) against ONNX Runtime Web (its int8 graph, what
// transformers.js runs by default, and fp32) on the same GPT-2-small weights, one thread, in Node 20 and in headless
// Chromium, systems alternating round by round; every run is a fresh process (Node) or a fresh browser (Chromium).
// First the accuracy of each system's logits (accuracy.mjs), then one table per environment with best and median
// and the ratios arcscope q8 / ORT of the best figures. scripts/bench.sh prepares the files and calls this.
//   node scripts/bench/bench.mjs [--rounds 3] [--node-only | --browser-only] [--firefox] [--lean] [--no-accuracy]
//     [--systems q8,ort-int8]
// arcscope q8 runs each wasm build by name: SIMD128 ('q8', 'q8-2t') and relaxed SIMD ('q8-relaxed', 'q8-relaxed-2t';
// browsers only: Node 20's V8 gets its sums wrong); every arcscope run says which module ran. --firefox: also in
// headless Firefox ESR (puppeteer-core, as tests/browsers/firefox.mjs). --lean: every system's lean run (load, prefill
// at T = 64, 256 and 1,024, decode, memory), without the attention capture, the live edits and the sweeps.
// With --sizes small,medium,large,xl it is the benchmark per model size instead: arcscope q8 on each size's weights
// (build/bench/gpt2-<size>.q8.arcs), ONNX Runtime Web int8 beside it for the sizes --ort-sizes lists, lean runs
// (measure.mjs: load, prefill at T = 256, decode, memory), every size and system once a round, each round starting
// elsewhere; one table per size, then one of all sizes. No accuracy check (that is the small model's, above).
//   node scripts/bench/bench.mjs --sizes small,medium,large,xl [--ort-sizes medium] [--rounds 3] [--node-only]
// With --arch smollm2-135m it is the benchmark of another architecture: arcscope q8 and q16 on its weights
// (build/bench/<arch>.{q8,q16}.arcs), GPT-2 small's q8 and q16 beside them, ONNX Runtime Web int8 and fp32 and
// llama.cpp's wasm build (@wllama/wllama, Q8_0 GGUF; Chromium only) on the same weights, lean runs with prefill at
// T = 64 and 256; then the KV cache's bytes against an ungrouped model's, and in Chromium a 4,096-token text analysed
// as the page does (analysis.mjs).
//   node scripts/bench/bench.mjs --arch smollm2-135m [--rounds 3] [--long-text-rounds 1] [--node-only | --browser-only]
//     [--systems q8,wllama]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { kvCacheBytes, liveLengths, prefillLengths } from './measure.mjs';

const root = path.resolve(fileURLToPath(new URL('../../', import.meta.url)));
const argv = process.argv.slice(2);
const rounds = Number(argv[argv.indexOf('--rounds') + 1]) || 3;
const envs = argv.includes('--node-only') ? ['node'] : argv.includes('--browser-only') ? ['chromium'] : ['node', 'chromium'];
if (argv.includes('--firefox')) envs.push('firefox');
const browsers = ['chromium', 'firefox'];
const leanAll = argv.includes('--lean');
const dir = 'build/bench';
const listArg = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1].split(',') : null);
const sizes = listArg('--sizes');
const ortSizes = listArg('--ort-sizes') ?? [];
const arch = argv.includes('--arch') ? argv[argv.indexOf('--arch') + 1] : null;
// The 4,096-token analysis takes about a minute a run: --long-text-rounds N runs it fewer times than --rounds.
const longTextRounds = Number(argv[argv.indexOf('--long-text-rounds') + 1]) || rounds;
// The architectures --arch knows: their files' stem in build/bench and their vocabulary (the bench ids' range).
const archs = { 'smollm2-135m': { label: 'SmolLM2-135M', vocab: 49152 } };
if (arch && !archs[arch]) throw new Error(`--arch: no architecture ${arch}; known: ${Object.keys(archs).join(', ')}`);

// The systems, one column each, in this order. kind 'arcscope': model (.arcs), engine = options for createEngine
// (e.g. {threads: 2}); kind 'ort': model (last-position graph), kvModel (decoder graph), threads. envs limits a
// system to some environments; accuracy: false leaves it out of the accuracy check (same logits as another).
const systems = [
  { key: 'q8', label: 'arcscope q8', kind: 'arcscope', model: `${dir}/gpt2-small.q8.arcs`, engine: { simd: 'simd128' } },
  // The relaxed-SIMD build, forced (createEngine's 'auto' runs it only where the CPU fuses its dot product).
  { key: 'q8-relaxed', label: 'arcscope q8, relaxed SIMD', kind: 'arcscope', model: `${dir}/gpt2-small.q8.arcs`,
    engine: { simd: 'relaxed', threads: 1 }, envs: browsers, accuracy: false },
  { key: 'ort-int8', label: 'ORT-Web int8', kind: 'ort', model: `${dir}/gpt2-small.int8.onnx`,
    kvModel: `${dir}/gpt2-small.kv.int8.onnx` },
  { key: 'ort-fp32', label: 'ORT-Web fp32', kind: 'ort', model: `${dir}/gpt2-small.onnx`,
    kvModel: `${dir}/gpt2-small.kv.onnx` },
  { key: 'q16', label: 'arcscope q16', kind: 'arcscope', model: `${dir}/gpt2-small.q16.arcs` },
  { key: 'f32', label: 'arcscope f32', kind: 'arcscope', model: `${dir}/gpt2-small.f32.arcs` },
  // The f16 KV cache: half the cache's memory (the wasm memory row), the same kernels.
  { key: 'q8-f16kv', label: 'arcscope q8, f16 KV cache', kind: 'arcscope', model: `${dir}/gpt2-small.q8.arcs`,
    engine: { kvCache: 'f16' }, accuracy: false },
  // Threads need SharedArrayBuffer: the bench server is cross-origin isolated, Node is left out.
  { key: 'q8-2t', label: 'arcscope q8, 2 threads', kind: 'arcscope', model: `${dir}/gpt2-small.q8.arcs`,
    engine: { threads: 2, simd: 'simd128' }, threads: 2, envs: browsers, accuracy: false },
  { key: 'q8-relaxed-2t', label: 'arcscope q8, relaxed SIMD, 2 threads', kind: 'arcscope',
    model: `${dir}/gpt2-small.q8.arcs`, engine: { threads: 2, simd: 'relaxed' }, threads: 2, envs: browsers,
    accuracy: false },
  { key: 'ort-int8-2t', label: 'ORT int8, 2 threads', kind: 'ort', model: `${dir}/gpt2-small.int8.onnx`,
    kvModel: `${dir}/gpt2-small.kv.int8.onnx`, threads: 2, envs: browsers, accuracy: false },
];
// The benchmark per size: its systems on one size's files (scripts/bench.sh --sizes writes them).
const sizeSystems = (size) => [
  { key: 'q8', label: 'arcscope q8', kind: 'arcscope', model: `${dir}/gpt2-${size}.q8.arcs` },
  ...(ortSizes.includes(size) ? [{ key: 'ort-int8', label: 'ORT-Web int8', kind: 'ort',
    model: `${dir}/gpt2-${size}.int8.onnx`, kvModel: `${dir}/gpt2-${size}.kv.int8.onnx` }] : []),
];
// The benchmark of an architecture (--arch): its systems, and GPT-2 small's arcscope beside them.
const archPrefill = [64, 256];
const archSystems = (name) => {
  const { label, vocab } = archs[name];
  const lean = { lean: true, prefillAt: archPrefill };
  return [
    { key: 'q8', label: `arcscope q8, ${label}`, kind: 'arcscope', model: `${dir}/${name}.q8.arcs`, vocab, ...lean },
    { key: 'gpt2-q8', label: 'arcscope q8, GPT-2 small', kind: 'arcscope', model: `${dir}/gpt2-small.q8.arcs`, ...lean },
    { key: 'q16', label: `arcscope q16, ${label}`, kind: 'arcscope', model: `${dir}/${name}.q16.arcs`, vocab, ...lean },
    { key: 'gpt2-q16', label: 'arcscope q16, GPT-2 small', kind: 'arcscope', model: `${dir}/gpt2-small.q16.arcs`,
      ...lean },
    { key: 'ort-int8', label: `ORT-Web int8, ${label}`, kind: 'ort', model: `${dir}/${name}.int8.onnx`,
      kvModel: `${dir}/${name}.kv.int8.onnx`, vocab, ...lean },
    { key: 'ort-fp32', label: `ORT-Web fp32, ${label}`, kind: 'ort', model: `${dir}/${name}.onnx`,
      kvModel: `${dir}/${name}.kv.onnx`, vocab, ...lean },
    // Its default build needs wasm memory64 and JSPI, which Node 20 lacks; Chromium has both.
    { key: 'wllama', label: `llama.cpp (wllama) Q8_0, ${label}`, kind: 'wllama', model: `${dir}/${name}.q8_0.gguf`,
      vocab, envs: ['chromium'], ...lean },
  ];
};
// Ratio columns: best of num / best of den, figure by figure.
const ratios = [
  { label: 'q8 ÷ GPT-2 small q8', num: 'q8', den: 'gpt2-q8' },
  { label: 'q16 ÷ GPT-2 small q16', num: 'q16', den: 'gpt2-q16' },
  { label: 'q8 ÷ llama.cpp Q8_0', num: 'q8', den: 'wllama' },
  { label: 'q8 ÷ ORT int8', num: 'q8', den: 'ort-int8' },
  { label: 'relaxed ÷ SIMD128', num: 'q8-relaxed', den: 'q8' },
  { label: 'relaxed ÷ ORT int8', num: 'q8-relaxed', den: 'ort-int8' },
  { label: 'q8 ÷ ORT fp32', num: 'q8', den: 'ort-fp32' },
  { label: 'q16 ÷ q8', num: 'q16', den: 'q8' },
  { label: 'q8 2 threads ÷ 1', num: 'q8-2t', den: 'q8' },
  { label: 'q8 ÷ ORT int8, 2 threads each', num: 'q8-2t', den: 'ort-int8-2t' },
  { label: 'relaxed ÷ SIMD128, 2 threads each', num: 'q8-relaxed-2t', den: 'q8-2t' },
  { label: 'relaxed ÷ ORT int8, 2 threads each', num: 'q8-relaxed-2t', den: 'ort-int8-2t' },
];

function runNode(system) {
  const args = ['scripts/bench/node_run.mjs', '--system', system.kind, '--model', system.model];
  if (system.kvModel) args.push('--kv-model', system.kvModel);
  if (system.threads) args.push('--threads', String(system.threads));
  if (system.engine) args.push('--engine', JSON.stringify(system.engine));
  if (system.lean) args.push('--lean');
  if (system.prefillAt) args.push('--prefill', system.prefillAt.join(','));
  if (system.vocab) args.push('--vocab', String(system.vocab));
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${system.label} (node) failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// A static server for exactly what the page needs, cross-origin isolated so the page can measure its memory and
// ONNX Runtime can start threads.
function serve() {
  const allowed = ['/scripts/bench/', '/build/lib/', '/build/wasm/arcscope_diagnostics', '/node_modules/onnxruntime-web/dist/',
    '/node_modules/@wllama/wllama/esm/', '/build/bench/', '/models/'];
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

// page.html's query for one system's run (page.mjs reads it).
function pageParams(system) {
  const params = new URLSearchParams({ system: system.kind, model: `/${system.model}` });
  if (system.kvModel) params.set('kvModel', `/${system.kvModel}`);
  if (system.threads) params.set('threads', String(system.threads));
  if (system.engine) params.set('engine', JSON.stringify(system.engine));
  if (system.lean) params.set('lean', '1');
  if (system.prefillAt) params.set('prefill', system.prefillAt.join(','));
  if (system.vocab) params.set('vocab', String(system.vocab));
  return params;
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
    await page.goto(`http://127.0.0.1:${port}/scripts/bench/page.html?${pageParams(system)}`);
    await page.waitForFunction(() => window.benchResult, null, { timeout: 15 * 60 * 1000, polling: 500 });
    const result = await page.evaluate(() => window.benchResult);
    if (result.error) throw new Error(`${system.label} (chromium) failed: ${result.error}`);
    if ((system.threads ?? 1) !== (result.threads ?? 1)) throw new Error(`${system.label}: ran ${result.threads} threads`);
    return result;
  } finally {
    await browser.close();
  }
}

// The same run in headless Firefox ESR, a fresh browser and profile each time.
async function runFirefox(system, port) {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true,
    timeout: 180_000, protocolTimeout: 20 * 60 * 1000 });
  try {
    const page = (await browser.pages())[0] ?? await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/scripts/bench/page.html?${pageParams(system)}`);
    await page.waitForFunction(() => window.benchResult, { timeout: 15 * 60 * 1000, polling: 500 });
    const result = await page.evaluate(() => window.benchResult);
    if (result.error) throw new Error(`${system.label} (firefox) failed: ${result.error}`);
    if ((system.threads ?? 1) !== (result.threads ?? 1)) throw new Error(`${system.label}: ran ${result.threads} threads`);
    return result;
  } finally {
    await browser.close();
  }
}

// The table's rows, in order: name -> the figure of one run (ms or MB), undefined where a system has none.
const rows = [
  ['load (ms)', (r) => r.loadMs],
  ['load, decoder graph (ms)', (r) => r.kvLoadMs],
  ...prefillLengths.map((T) => [`prefill T=${T} (ms)`, (r) => r.prefillMs[T]]),
  ...prefillLengths.map((T) => [`prefill T=${T}, llama.cpp's own prompt_ms`, (r) => r.prefillOwnMs?.[T]]),
  ['prefill T=64 + all attention (ms)', (r) => r.prefillAttention64Ms],
  ['decode (ms/token)', (r) => r.decodeMs],
  ['decode bandwidth floor (ms/token)', (r) => r.decodeFloorMs],
  ...liveLengths.flatMap((T) => [
    [`live T=${T}: analysis of the whole text (ms)`, (r) => r.live?.[T]?.fullMs],
    [`live T=${T}: 4 tokens appended (ms)`, (r) => r.live?.[T]?.appendMs],
    [`live T=${T}: a token changed in the middle (ms)`, (r) => r.live?.[T]?.middleMs],
  ]),
  ['pass of a 14-token prompt (ms)', (r) => r.sweeps?.passMs],
  ['patching sweep of it (ms)', (r) => r.sweeps?.patchingMs],
  ['patching sweep (passes of the prompt)', (r) => r.sweeps && r.sweeps.patchingMs / r.sweeps.passMs],
  ['ablation sweep of it (ms)', (r) => r.sweeps?.ablationMs],
  ['ablation sweep (passes of the prompt)', (r) => r.sweeps && r.sweeps.ablationMs / r.sweeps.passMs],
  ['wasm memory (MiB)', (r) => r.wasmMemoryBytes && r.wasmMemoryBytes / 2 ** 20],
  ['process peak RSS (MiB)', (r) => r.peakRssBytes && r.peakRssBytes / 2 ** 20],
  ['page memory (MiB)', (r) => r.pageMemoryBytes != null ? r.pageMemoryBytes / 2 ** 20 : undefined],
];

const best = (v) => Math.min(...v);
const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const fmt = (x) => (x === undefined ? '—' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

const statOf = (list, name) => {
  const figure = rows.find(([n]) => n === name)[1];
  const v = (list ?? []).map(figure).filter((x) => x !== undefined);
  return v.length ? { best: best(v), median: median(v) } : undefined;
};
const roundsSaid = `${rounds} round${rounds === 1 ? '' : 's'}`;
const cell = (s) => (s ? `${fmt(s.best)} / ${fmt(s.median)}` : '—');

// title: the environment (and the size); runs: system key -> its runs.
function table(title, active, runs) {
  const stat = (key, name) => statOf(runs[key], name);
  const names = rows.map(([n]) => n).filter((n) => active.some((s) => stat(s.key, n)));
  const cols = ratios.filter((q) => runs[q.num] && runs[q.den]);
  const threads = active.some((s) => s.threads > 1) ? 'one thread unless a column says otherwise' : 'one thread';
  const lines = [
    `${title}, ${threads}, ${roundsSaid} (best / median)`, '',
    `| figure | ${[...active.map((s) => s.label), ...cols.map((q) => q.label)].join(' | ')} |`,
    `|---|${active.map(() => '---|').join('')}${cols.map(() => '---|').join('')}`];
  for (const name of names) {
    const ratio = (a, b) => (a && b ? (a.best / b.best).toFixed(2) : '—');
    const cells = [...active.map((s) => cell(stat(s.key, name))),
      ...cols.map((q) => ratio(stat(q.num, name), stat(q.den, name)))];
    lines.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  if (active.some((s) => s.kind === 'ort')) {
    lines.push('', 'ORT-Web: prefill runs the last-position graph, decode the decoder graph with past key/values ' +
      '(its own session: "load, decoder graph"), 64 tokens after a 64-token prompt, presents fed back; int8 = ' +
      'DynamicQuantizeLinear + MatMulInteger, weights int8 per tensor (scripts/bench/quantize_onnx.py).');
  }
  // The module each arcscope column ran, and what createEngine's 'auto' would run in this environment.
  const builds = active.filter((s) => runs[s.key]?.[0]?.build).map((s) => `${s.label}: ${runs[s.key][0].build}`);
  if (builds.length) lines.push('', `Builds that ran: ${builds.join('; ')}.`);
  const probe = active.map((s) => runs[s.key]?.[0]?.probe).find(Boolean);
  if (probe) {
    lines.push(`createEngine's 'auto' runs ${probe.fused ? 'relaxed SIMD' : 'SIMD128'} here${probe.why ? ` (${probe.why})` : ''}.`);
  }
  const q = stat('q8', 'decode (ms/token)'), fl = stat('q8', 'decode bandwidth floor (ms/token)');
  const streams = (runs.q8 ?? []).map((r) => r.streamGBs).filter(Boolean);
  if (q && fl) {
    lines.push('', `q8 decode / bandwidth floor: ${(q.best / fl.best).toFixed(2)} (floor = ` +
      `${(runs.q8[0].q8BytesPerToken / 1e6).toFixed(1)} MB of int8 weights per token at ${Math.max(...streams).toFixed(1)} GB/s, the best streaming read of the same module)`);
  }
  // Paired within each run (the two forwards run back to back), then the median over runs.
  const extra = (runs.q8 ?? []).filter((r) => r.prefillPlain64Ms).map((r) => r.prefillAttention64Ms / r.prefillPlain64Ms - 1);
  if (extra.length) {
    lines.push(`attention capture at T=64 adds ${(100 * median(extra)).toFixed(0)}% to q8 prefill (median of ` +
      `${extra.length} paired runs; range ${(100 * best(extra)).toFixed(0)}% to ${(100 * Math.max(...extra)).toFixed(0)}%)`);
  }
  return lines.join('\n');
}

// The sizes side by side: one row per size and system, the figures that scale with the model.
const sizeFigures = ['prefill T=256 (ms)', 'decode (ms/token)', 'decode bandwidth floor (ms/token)', 'load (ms)',
  'load, decoder graph (ms)', 'wasm memory (MiB)', 'process peak RSS (MiB)', 'page memory (MiB)'];
function sizesTable(title, columns, runs) {
  const figures = sizeFigures.filter((name) => columns.some((c) => statOf(runs[c.id], name)));
  const shape = (size) => columns.filter((c) => c.size === size).flatMap((c) => runs[c.id])
    .find((r) => r.shape)?.shape ?? '—';
  const lines = [`${title}, one thread, ${roundsSaid} (best / median)`, '',
    `| size | shape (layers × heads × width) | system | model file (MiB) | ${figures.join(' | ')} |`,
    `|---|---|---|---|${figures.map(() => '---|').join('')}`];
  for (const c of columns) {
    const fileMB = fs.statSync(path.join(root, c.model)).size / 2 ** 20;
    lines.push(`| ${c.size} | ${shape(c.size)} | ${c.label} | ${fmt(fileMB)} | ` +
      `${figures.map((name) => cell(statOf(runs[c.id], name))).join(' | ')} |`);
  }
  return lines.join('\n');
}

// The KV cache at 1,024 positions, f32 (an f16 cache halves each), of each model the runs loaded, against the same
// model with one key/value head per query head. From the config: the JS API has no accessor for the cache's size.
function kvTable(runs) {
  const lines = ['KV cache at 1,024 tokens (f32; computed from the config: 2 × layers × key/value heads × head size ' +
    '× 1,024 × 4 bytes)', '', '| model | layers × heads (key/value heads) × head size | KV cache (MiB) | ' +
    'ungrouped (MiB) | share |', '|---|---|---|---|---|'];
  for (const key of ['q8', 'gpt2-q8']) {
    const r = runs[key]?.[0];
    if (!r?.heads) continue;
    const { n_layer, n_head, n_kv_head, d_head } = r.heads;
    const grouped = kvCacheBytes(r.heads, 1024), ungrouped = kvCacheBytes(r.heads, 1024, { ungrouped: true });
    lines.push(`| ${columns.find((c) => c.id === key).label.replace(/^arcscope q8, /, '')} | ${n_layer} × ${n_head} ` +
      `(${n_kv_head}) × ${d_head} | ${fmt(grouped / 2 ** 20)} | ${fmt(ungrouped / 2 ** 20)} | ` +
      `${(grouped / ungrouped).toFixed(3)} |`);
  }
  return lines.join('\n');
}

// llama.cpp's Q8_0 GGUF against the PyTorch reference: its top 10 log-probabilities after benchIds(64) (all that its
// completion endpoint returns) against the reference's log-softmax of the same tokens.
function wllamaAccuracy(run) {
  const reference = new Float32Array(fs.readFileSync(path.join(root, dir, `${arch}.reference-logits-64.bin`)).buffer.slice(0));
  const top = Math.max(...reference);
  const logSum = top + Math.log(reference.reduce((sum, x) => sum + Math.exp(x - top), 0));
  const got = run.topLogprobs;
  const refTop = [...reference.keys()].sort((a, b) => reference[b] - reference[a]).slice(0, got.length);
  const diff = Math.max(...got.map(([id, lp]) => Math.abs(lp - (reference[id] - logSum))));
  const shared = got.filter(([id]) => refTop.includes(id)).length;
  return `llama.cpp Q8_0 against the PyTorch reference after benchIds(64): the same top token ` +
    `${got[0][0] === refTop[0] ? 'yes' : 'NO'}; ${shared} of its top ${got.length} in the reference's top ` +
    `${got.length}; largest log-probability difference over them ${diff.toPrecision(3)} ` +
    `(reference log-probabilities of those tokens down to ${(reference[refTop.at(-1)] - logSum).toFixed(1)})`;
}

// A 4,096-token text through the architecture in q8 and q16, analysed as the page does (measureLongText), a fresh
// browser per run, the two formats alternating.
async function longText(port) {
  const formats = ['q8', 'q16'], runs = { q8: [], q16: [] };
  for (let round = 0; round < longTextRounds; round++) {
    for (const dtype of round % 2 ? [...formats].reverse() : formats) {
      const r = await runChromium({ kind: 'long-text', label: `long text ${dtype}`, model: `${dir}/${arch}.${dtype}.arcs` }, port);
      runs[dtype].push(r);
      console.error(`[chromium] round ${round + 1}/${longTextRounds} long text ${dtype}: runWithCache ${fmt(r.runWithCacheMs)} ms`);
    }
  }
  const stat = (dtype, f) => { const v = runs[dtype].map(f); return `${fmt(best(v))} / ${fmt(median(v))}`; };
  const MiB = (x) => x / 2 ** 20;
  const figures = [
    ['load (ms)', (r) => r.loadMs],
    ['runWithCache, every layer\'s hook_rot_q and hook_rot_k, T = 4096 (ms)', (r) => r.runWithCacheMs],
    ['attentionPattern of one head, 4096 × 4096 (ms)', (r) => r.attentionPatternMs],
    ['wasm memory after load (MiB)', (r) => MiB(r.wasmBytes.load)],
    ['wasm memory after runWithCache (MiB)', (r) => MiB(r.wasmBytes.runWithCache)],
    ['wasm memory after attentionPattern (MiB)', (r) => MiB(r.wasmBytes.attentionPattern)],
    ['the cache handed to JavaScript (MiB)', (r) => MiB(r.cacheBytes)],
    ['page memory (MiB)', (r) => (r.pageMemoryBytes != null ? MiB(r.pageMemoryBytes) : undefined)],
  ];
  return [`Headless Chromium, a ${runs.q8[0].T}-token text through ${archs[arch].label}'s shape analysed as the page ` +
    `does, one thread, ${longTextRounds} round${longTextRounds === 1 ? '' : 's'} (best / median)`, '',
    '| step | q8 | q16 |', '|---|---|---|',
    ...figures.filter(([, f]) => runs.q8.every((r) => f(r) !== undefined))
      .map(([name, f]) => `| ${name} | ${stat('q8', f)} | ${stat('q16', f)} |`)].join('\n');
}

const started = Date.now();
if (!sizes && !argv.includes('--no-accuracy')) {
  // The systems Node runs, against the PyTorch reference on the same weights (llama.cpp's: its runs' top logprobs).
  const checked = arch ? archSystems(arch).filter((s) => s.vocab && !s.envs) : systems.filter((s) => s.accuracy !== false);
  const reference = arch ? ['--reference', `${dir}/${arch}.reference-logits-64.bin`, '--vocab', String(archs[arch].vocab)] : [];
  const r = spawnSync(process.execPath, ['scripts/bench/accuracy.mjs', '--systems', JSON.stringify(checked), ...reference],
    { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error('accuracy check failed');
  console.log('');
}
// The columns of one run: a system on one size's files (id: the key, and the size where there are several).
const columns = sizes
  ? sizes.flatMap((size) => sizeSystems(size).map((s) => ({ ...s, size, id: `${size}:${s.key}`, lean: true })))
  : arch ? archSystems(arch).map((s) => ({ ...s, size: arch, id: s.key }))
    : systems.map((s) => ({ ...s, size: 'small', id: s.key, ...(leanAll && { lean: true, prefillAt: [64, 256, 1024] }) }));
// --systems KEY,KEY: only those columns (a quicker run while working on one of them)
const only = listArg('--systems');
const keys = [...new Set(columns.map((c) => c.key))];
const unknown = only?.filter((k) => !keys.includes(k)) ?? [];
if (unknown.length) throw new Error(`--systems: no system ${unknown.join(', ')}; the keys are ${keys.join(', ')}`);
const missing = columns.filter((c) => !only || only.includes(c.key)).flatMap((c) => [c.model, c.kvModel])
  .filter((f) => f && !fs.existsSync(path.join(root, f)));
if (missing.length) {
  throw new Error(`missing ${missing.join(', ')}: scripts/bench.sh${sizes ? ` --sizes ${sizes}` : ''}` +
    `${arch ? ` --arch ${arch}` : ''} makes them`);
}
const results = {};
const server = envs.some((env) => browsers.includes(env)) ? await serve() : null;
for (const env of envs) {
  const active = columns.filter((s) => (!s.envs || s.envs.includes(env)) && (!only || only.includes(s.key)));
  const runs = Object.fromEntries(active.map((s) => [s.id, []]));
  const loads = [];  // the machine's 1-minute load average as each run starts: what else was running
  for (let round = 0; round < rounds; round++) {
    // Alternate: each round starts with a different system.
    const order = active.map((_, i) => active[(i + round) % active.length]);
    for (const s of order) {
      loads.push(os.loadavg()[0]);
      const r = env === 'node' ? runNode(s)
        : await (env === 'firefox' ? runFirefox : runChromium)(s, server.address().port);
      runs[s.id].push(r);
      console.error(`[${env}] round ${round + 1}/${rounds} ${sizes ? `${s.size} ` : ''}${s.label}: prefill T=256 ` +
        `${fmt(r.prefillMs[256])} ms, decode ${fmt(r.decodeMs)} ms/token, load ${fmt(r.loadMs)} ms`);
    }
  }
  results[env] = runs;
  const envName = { node: `Node ${process.versions.node}`, chromium: 'headless Chromium', firefox: 'headless Firefox ESR' }[env];
  for (const size of sizes ?? [arch ?? 'small']) {
    const here = active.filter((c) => c.size === size);
    const title = sizes ? `${envName}, GPT-2 ${size}` : arch ? `${envName}, ${archs[arch].label}'s shape` : envName;
    console.log(`\n${table(title, here, Object.fromEntries(here.map((c) => [c.key, runs[c.id]])))}\n`);
  }
  if (sizes) console.log(`${sizesTable(`${envName}, the sizes`, active, runs)}\n`);
  if (arch && env === 'node') console.log(`${kvTable(runs)}\n`);
  if (arch && runs.wllama?.length) console.log(`${wllamaAccuracy(runs.wllama[0])}\n`);
  if (arch && env === 'chromium') console.log(`${await longText(server.address().port)}\n`);
  console.log(`${os.cpus().length} cores; load average (1 min) as the runs started: ${fmt(best(loads))} to ` +
    `${fmt(Math.max(...loads))}, median ${fmt(median(loads))}\n`);
}
server?.close();
const resultsFile = sizes ? 'results-sizes.json' : arch ? `results-${arch}.json` : 'results.json';
fs.writeFileSync(path.join(root, dir, resultsFile), JSON.stringify(results, null, 1));
console.error(`bench: ${((Date.now() - started) / 60000).toFixed(1)} minutes`);
