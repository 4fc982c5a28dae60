// time_model_wasm.mjs: the wasm engine's load time, memory and forward/decode timings for one model file (Node 20).
// Usage: node scripts/time_model_wasm.mjs MODEL.arcs [T=64]   (the native counterpart: arcscope time --model FILE)
import { readFileSync } from 'node:fs';
import { createEngine } from '../build/lib/engine.js';

const [file, tArg] = process.argv.slice(2);
if (!file) { console.error('usage: node scripts/time_model_wasm.mjs MODEL.arcs [T]'); process.exit(1); }
const T = Number(tArg ?? 64);
const engine = await createEngine();
const memory = () => engine.core.HEAPU8.buffer.byteLength;
const report = {};
const bytes = new Uint8Array(readFileSync(file));
let t0 = performance.now();
const model = engine.loadModel(bytes);
report.load_ms = +(performance.now() - t0).toFixed(1);
report.file_bytes = bytes.length;
report.wasm_memory_after_load = memory();
const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % model.config.n_vocab);
model.forward(ids, { attention: true });  // warm-up
const plain = [], withAttention = [];
for (let r = 0; r < 5; r++) {  // alternate, so machine noise hits both alike
  t0 = performance.now(); model.forward(ids, { attention: false }); plain.push(performance.now() - t0);
  t0 = performance.now(); model.forward(ids, { attention: true }); withAttention.push(performance.now() - t0);
}
const best = (a) => +Math.min(...a).toFixed(1), median = (a) => +[...a].sort((x, y) => x - y)[a.length >> 1].toFixed(1);
Object.assign(report, { tokens: T, forward_ms_best: best(plain), forward_ms_median: median(plain),
  forward_attention_ms_best: best(withAttention), forward_attention_ms_median: median(withAttention) });
model.forward(ids, { attention: false });
const N = Math.min(32, model.config.n_ctx - T);
t0 = performance.now();
for (let i = 0; i < N; i++) model.append((i * 31 + 7) % model.config.n_vocab, { attention: false });
report.decode_ms_per_token = N ? +((performance.now() - t0) / N).toFixed(2) : null;
model.forward(Array.from({ length: model.config.n_ctx }, (_, i) => i % model.config.n_vocab), { attention: false });
report.wasm_memory_after_full_context = memory();
console.log(JSON.stringify(report));
