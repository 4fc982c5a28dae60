// node_run.mjs: one system's benchmark run in a fresh Node process; prints one JSON line.
//   node scripts/bench/node_run.mjs --system arcscope --model build/bench/gpt2-small.q8.arcs [--engine '{"threads":2}']
//   node scripts/bench/node_run.mjs --system ort --model build/bench/gpt2-small.int8.onnx \
//     --kv-model build/bench/gpt2-small.kv.int8.onnx [--threads 1]
// --lean: measure.mjs's lean run (load, prefill at T = 256 or at --prefill 64,256, decode, memory); --vocab N: the
// model's vocabulary (the ids' range).
import fs from 'node:fs';
import { measureArcscope, measureOrt } from './measure.mjs';

const arg = (name, fallback) => (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : fallback);
const system = arg('system');
const read = (file) => new Uint8Array(fs.readFileSync(file));
const lean = process.argv.includes('--lean');
const prefillAt = arg('prefill')?.split(',').map(Number);
const vocab = arg('vocab') ? Number(arg('vocab')) : undefined;
const peakRss = () => process.resourceUsage().maxRSS * 1024;
let result;
if (system === 'arcscope') {
  const { createEngine } = await import('../../build/lib/engine.js');
  const { default: createArcscopeDiagnostics } = await import('../../build/wasm/arcscope_diagnostics.js');
  const diagnostics = await createArcscopeDiagnostics({
    wasmBinary: fs.readFileSync(new URL('../../build/wasm/arcscope_diagnostics.wasm', import.meta.url)),
  });
  result = await measureArcscope({ createEngine, engineOptions: JSON.parse(arg('engine', '{}')), diagnostics,
    modelBytes: read(arg('model')), peakRss, lean, prefillAt });
} else if (system === 'ort') {
  const ort = await import('onnxruntime-web');
  result = await measureOrt({ ort: ort.default ?? ort, modelBytes: read(arg('model')),
    kvModelBytes: read(arg('kv-model')), threads: Number(arg('threads', 1)), lean, prefillAt, vocab });
  result.peakRssBytes = peakRss();
} else {
  throw new Error(`--system must be arcscope or ort, got ${system}`);
}
console.log(JSON.stringify(result));
