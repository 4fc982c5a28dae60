// assets.js: where the library's files are, all beside this module, so a copy of the folder works at any path and
// from any origin (scripts/stage.mjs lays them out so; the package ships them so).
export const assets = {
  wasm: new URL('./wasm/arcscope_core.wasm', import.meta.url),
  // the same engine with worker threads (SharedArrayBuffer): cross-origin isolated pages only
  wasmThreads: new URL('./wasm/arcscope_core_threads.wasm', import.meta.url),
  // both again with the relaxed-SIMD q8 kernel, where the browser fuses its 8-bit dot product (engine/relaxed-simd.js)
  wasmRelaxed: new URL('./wasm/arcscope_core_relaxed.wasm', import.meta.url),
  wasmRelaxedThreads: new URL('./wasm/arcscope_core_relaxed_threads.wasm', import.meta.url),
  tokenizer: new URL('./models/gpt2-tokenizer.bin', import.meta.url),
  model: new URL('./models/shakespeare-4l.q8.arcs', import.meta.url),
};

// The default model's file name, as the element's caption and arcscope-ready name it. Not read from assets.model: a
// bundler renames the files it copies (Vite: shakespeare-4l.q8-<hash>.arcs).
export const DEFAULT_MODEL_NAME = 'shakespeare-4l.q8.arcs';
