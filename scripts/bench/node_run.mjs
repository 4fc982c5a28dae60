// node_run.mjs: one system's benchmark run in a fresh Node process; prints one JSON line.
//   node scripts/bench/node_run.mjs --system arcscope --model build/bench/gpt2-small.q8.arcs
//   node scripts/bench/node_run.mjs --system ort --model build/bench/gpt2-small.onnx
import fs from 'node:fs';
import { measureArcscope, measureOrt } from './measure.mjs';

const arg = (name) => process.argv[process.argv.indexOf(`--${name}`) + 1];
const system = arg('system');
const bytes = new Uint8Array(fs.readFileSync(arg('model')));
let result;
if (system === 'arcscope') {
  const { createEngine } = await import('../../build/lib/arcscope.js');
  const { default: createArcscopeDiagnostics } = await import('../../build/wasm/arcscope_diagnostics.js');
  const diagnostics = await createArcscopeDiagnostics({
    wasmBinary: fs.readFileSync(new URL('../../build/wasm/arcscope_diagnostics.wasm', import.meta.url)),
  });
  result = await measureArcscope(await createEngine(), diagnostics, bytes);
} else if (system === 'ort') {
  const ort = await import('onnxruntime-web');
  result = await measureOrt(ort.default ?? ort, bytes);
} else {
  throw new Error(`--system must be arcscope or ort, got ${system}`);
}
result.peakRssBytes = process.resourceUsage().maxRSS * 1024;
console.log(JSON.stringify(result));
