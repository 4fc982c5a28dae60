// page.mjs: one system's benchmark run in the browser (scripts/bench/bench.mjs opens
// page.html?system=...&model=...[&kvModel=...][&threads=N][&engine={json}][&lean=1]; lean: measure.mjs's lean run).
// The models' bytes are fetched before the clock starts; the result lands in window.benchResult.
import { measureArcscope, measureOrt } from './measure.mjs';

async function bytesOf(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// Memory the page uses (JS heap, wasm memories, buffers), taken with the model still loaded; needs the
// cross-origin isolation the server grants.
async function pageMemory() {
  if (!globalThis.crossOriginIsolated || !performance.measureUserAgentSpecificMemory) return null;
  return (await performance.measureUserAgentSpecificMemory()).bytes;
}

async function run() {
  const params = new URLSearchParams(location.search);
  const system = params.get('system');
  const lean = params.has('lean');
  const modelBytes = await bytesOf(params.get('model'));
  let result;
  if (system === 'arcscope') {
    const { createEngine } = await import('/build/lib/arcscope.js');
    const { default: createArcscopeDiagnostics } = await import('/build/wasm/arcscope_diagnostics.js');
    const diagnostics = await createArcscopeDiagnostics({
      wasmBinary: await bytesOf('/build/wasm/arcscope_diagnostics.wasm'),
    });
    // The system's own options (bench.mjs's `engine` entry) come last: one naming another wasm wins over the default.
    const engineOptions = {
      wasmBinary: await bytesOf('/build/lib/wasm/arcscope_core.wasm'),
      tokenizerBytes: await bytesOf('/build/lib/models/gpt2-tokenizer.bin'),
      ...JSON.parse(params.get('engine') ?? '{}'),
    };
    // Another wasm, or more than one thread (the library then picks its threaded module): not the plain bytes.
    if (engineOptions.wasmUrl || engineOptions.threads > 1) delete engineOptions.wasmBinary;
    result = await measureArcscope({ createEngine, engineOptions, diagnostics, modelBytes, memory: pageMemory, lean });
  } else if (system === 'ort') {
    const ort = await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
    ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
    result = await measureOrt({ ort, modelBytes, kvModelBytes: await bytesOf(params.get('kvModel')),
      threads: Number(params.get('threads') ?? 1), memory: pageMemory, lean });
  } else {
    throw new Error(`unknown system ${system}`);
  }
  result.crossOriginIsolated = globalThis.crossOriginIsolated;
  return result;
}

run().then(
  (result) => { window.benchResult = result; document.getElementById('status').textContent = 'done'; },
  (error) => { window.benchResult = { error: String(error && error.stack || error) }; });
