// page.mjs: one system's benchmark run in the browser (scripts/bench/bench.mjs opens
// page.html?system=...&model=...[&kvModel=...][&threads=N][&engine={json}][&lean=1][&prefill=64,256][&vocab=N];
// lean: measure.mjs's lean run, prefill its lengths; vocab: the model's, the ids' range). system: arcscope, ort, wllama,
// or long-text (measureLongText: a text of T=4096 ids analysed as the page does).
// The models' bytes are fetched before the clock starts; the result lands in window.benchResult.
import { measureArcscope, measureLongText, measureOrt, measureWllama } from './measure.mjs';

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
  // A lean run's prefill lengths (prefill=64,256) and the model's vocabulary (the ids' range).
  const prefillAt = params.has('prefill') ? params.get('prefill').split(',').map(Number) : undefined;
  const vocab = params.has('vocab') ? Number(params.get('vocab')) : undefined;
  const modelBytes = await bytesOf(params.get('model'));
  let result;
  if (system === 'arcscope' || system === 'long-text') {
    const { createEngine } = await import('/build/lib/engine.js');
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
    // Another wasm, more than one thread (the library then picks its threaded module) or the relaxed-SIMD build: not
    // the plain SIMD128 bytes.
    if (engineOptions.wasmUrl || engineOptions.threads > 1 || engineOptions.simd === 'relaxed') delete engineOptions.wasmBinary;
    result = system === 'long-text'
      ? await measureLongText({ createEngine, engineOptions, modelBytes, T: Number(params.get('T') ?? 4096), memory: pageMemory })
      : await measureArcscope({ createEngine, engineOptions, diagnostics, modelBytes, memory: pageMemory, lean, prefillAt });
  } else if (system === 'ort') {
    const ort = await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
    ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
    result = await measureOrt({ ort, modelBytes, kvModelBytes: await bytesOf(params.get('kvModel')),
      threads: Number(params.get('threads') ?? 1), memory: pageMemory, lean, prefillAt, vocab });
  } else if (system === 'wllama') {
    const { Wllama } = await import('/node_modules/@wllama/wllama/esm/index.js');
    result = await measureWllama({ Wllama, pathConfig: { default: '/node_modules/@wllama/wllama/esm/wasm/wllama.wasm' },
      modelBytes, memory: pageMemory, lean, prefillAt, vocab });
  } else {
    throw new Error(`unknown system ${system}`);
  }
  result.crossOriginIsolated = globalThis.crossOriginIsolated;
  // What createEngine's 'auto' would run in this browser, and why not relaxed SIMD when not.
  result.probe = (await import('/build/lib/engine/relaxed-simd.js')).probeRelaxedSimd();
  return result;
}

run().then(
  (result) => { window.benchResult = result; document.getElementById('status').textContent = 'done'; },
  (error) => { window.benchResult = { error: String(error && error.stack || error) }; });
