// engine.js: the JavaScript face of the engine, for Node 20 and browsers (ES module, no dependencies).
//
//   import { createEngine } from './lib/engine.js';
//   const engine = await createEngine();
//   engine.tokenize('Hello world')            // {ids: [15496, 995], tokens: ['Hello', ' world']}
//   const attn = engine.singleHeadAttention(64, 16, {seed: 42});
//   attn.forward(x, [2, 8, 64], {mask: engine.causalMask(8)})   // {out, weights, q, k, v, scores}, each {data, shape}
//
// Everything returned is a plain object or typed array owned by JavaScript; C++ errors arrive as Errors with the
// same message. Objects backed by wasm memory have free(); a FinalizationRegistry frees forgotten ones too.
import createArcscopeCore from './wasm/arcscope_core.js';
import { assets } from './assets.js';
import { probeRelaxedSimd } from './engine/relaxed-simd.js';
import { createHfTokenizer, createTokenizer } from './engine/tokenizer.js';
import { articleBlocks } from './engine/article.js';
import { loadModel } from './engine/model.js';
import { loadModelStream } from './engine/load-stream.js';
import { convertCheckpoint, convertToModel, defaultDtype } from './engine/convert.js';

// Node is reached through globalThis.process only: this file runs in pages and workers too.
const isNode = !!globalThis.process?.versions?.node && typeof window === 'undefined';

// The wasm, the tokenizer file and the default model, beside this file.
export { assets as defaultAssets };
// The package's version, e.g. '0.2.0' (version.js is written when the library is staged).
export { version } from './version.js';

// Node's fs/promises, for file: URLs. Taken from process.getBuiltinModule (Node 20.16 and up) rather than imported, so
// that a bundler building for the browser finds no import of a Node module in this file (Vite would externalize it
// and warn); older Node gets it by an import whose specifier bundlers do not follow.
const NODE_FS = 'node:fs/promises';
async function nodeFs() {
  return globalThis.process?.getBuiltinModule?.(NODE_FS) ?? import(/* @vite-ignore */ /* webpackIgnore: true */ NODE_FS);
}

// Bytes of a URL (http(s) via fetch, file: via fs in Node).
export async function readBytes(url) {
  url = url instanceof URL ? url : new URL(url, isNode ? `file://${globalThis.process.cwd()}/` : globalThis.location?.href);
  if (url.protocol === 'file:') {
    const { readFile } = await nodeFs();
    return new Uint8Array(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${url.href}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// tokenizer.json (and tokenizer_config.json, where there is one beside it) from engine.loadTokenizer's source.
async function tokenizerFiles(source) {
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) return { json: source, config: null };
  if (source && typeof source === 'object' && !(source instanceof URL)) {
    if (source.json === undefined || source.json === null) throw new TypeError('loadTokenizer: {json} is missing');
    return { json: source.json, config: source.config ?? null };
  }
  if (typeof source !== 'string' && !(source instanceof URL)) {
    throw new TypeError('loadTokenizer: give the URL of tokenizer.json or of its folder, or {json, config}');
  }
  const base = isNode && typeof source === 'string' && !/^[a-z][a-z0-9+.-]*:/i.test(source)
    ? new URL(source, `file://${globalThis.process.cwd()}/`) : new URL(source, globalThis.location?.href);
  const file = base.href.endsWith('/') ? new URL('tokenizer.json', base) : base;
  const [json, config] = await Promise.all([
    readBytes(file),
    readBytes(new URL('tokenizer_config.json', file)).catch(() => null),  // optional: Hugging Face's folders have it
  ]);
  return { json, config };
}

// Emscripten module options. Browsers compile the module while it downloads (instantiateStreaming); Node gets the
// bytes. We fetch it ourselves so that a missing or wrong file is an error naming its URL and status, not a compile
// error about the bytes of a 404 page. failed(error) reports a compile error (Emscripten would wait forever).
// Chromium refuses wasm under a policy with a message that names 'unsafe-eval', which would allow far more than the
// engine needs: name the source that allows WebAssembly alone.
function explainCompileError(e) {
  if (!/unsafe-eval/.test(e?.message ?? '')) return e;
  return new Error("the page's Content-Security-Policy does not allow WebAssembly: add 'wasm-unsafe-eval' to its " +
    `script-src (not 'unsafe-eval', which also allows eval) (${e.message})`, { cause: e });
}

async function coreOptions({ wasmBinary, wasmUrl }, failed) {
  if (wasmBinary) return { wasmBinary };
  if (isNode) return { wasmBinary: await readBytes(wasmUrl) };
  const url = new URL(wasmUrl, globalThis.location?.href);
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new Error(`could not load the engine's wasm ${url.href}: ${e.message} (offline, or another origin without CORS?)`,
      { cause: e });
  }
  if (!response.ok) throw new Error(`could not load the engine's wasm ${url.href}: HTTP ${response.status}`);
  const streaming = /^application\/wasm\b/.test(response.headers.get('Content-Type') || '');
  return {
    instantiateWasm(imports, done) {
      const compiled = streaming ? WebAssembly.instantiateStreaming(response, imports)
        : response.arrayBuffer().then((bytes) => WebAssembly.instantiate(bytes, imports));
      compiled.then((r) => done(r.instance, r.module), (e) => failed(explainCompileError(e)));
      return {};
    },
  };
}

// How many threads the engine can use here: the threaded module needs SharedArrayBuffer, which browsers give only to
// cross-origin isolated pages, and its workers must start from this page's origin; Node runs the plain module.
const hardwareThreads = Math.min(4, globalThis.navigator?.hardwareConcurrency || 1); // threads.h's kMaxThreads
export function threadsAvailable() {
  return oneThreadReason() ? 1 : hardwareThreads;
}

// Why this page can have only one thread, or null when it can have hardwareThreads.
function oneThreadReason() {
  if (isNode) return 'Node runs the one-thread module';
  if (!globalThis.crossOriginIsolated) return 'this page is not cross-origin isolated (COOP and COEP headers), which threads need';
  if (typeof SharedArrayBuffer !== 'function') return 'this browser gives the page no SharedArrayBuffer, which threads need';
  if (new URL(assets.wasmThreads).origin !== globalThis.origin) {
    return "the library is on another origin than the page, and the threads' workers must start from the page's";
  }
  return hardwareThreads > 1 ? null : 'the device reports one core';
}

// Which build's q8 kernel to run: 'relaxed' (relaxed SIMD's 8-bit dot product on 7-bit activation parts, the same
// bits) where this engine runs it right and the CPU fuses it, else 'simd128'; options.simd forces one. Only the chosen
// module is fetched. simdWhy: why not relaxed SIMD, when not.
function chooseSimd({ simd = 'auto', wasmBinary, wasmUrl }) {
  if (!['auto', 'relaxed', 'simd128'].includes(simd)) throw new Error(`simd must be 'auto', 'relaxed' or 'simd128', got '${simd}'`);
  if (simd === 'simd128') return { simd, simdWhy: 'createEngine was asked for SIMD128' };
  if (wasmBinary || wasmUrl) {
    if (simd === 'relaxed') throw new Error("simd: 'relaxed' cannot run the wasm handed to createEngine (the SIMD128 module's)");
    return { simd: 'simd128', simdWhy: "the wasm handed to createEngine is the SIMD128 module's" };
  }
  const probe = probeRelaxedSimd();
  if (simd === 'relaxed' && !probe.runs) throw new Error(`simd: 'relaxed' cannot run here: ${probe.why}`);
  if (simd === 'relaxed' || probe.fused) return { simd: 'relaxed', simdWhy: null };
  return { simd: 'simd128', simdWhy: probe.why };
}

// The module to run: the threaded one when more than one thread is asked for (default: every core, up to 4) and
// available; the plain one otherwise, and whenever the caller hands in its own wasm (it is the plain module's).
// Each in its SIMD128 and its relaxed-SIMD build (chooseSimd). why: the reason for one thread, when it is one.
async function coreFactory(options) {
  const { threads = hardwareThreads, wasmBinary, wasmUrl } = options;
  if (!Number.isInteger(threads) || threads < 1) throw new Error(`threads must be a whole number from 1 up, got ${threads}`);
  const { simd, simdWhy } = chooseSimd(options);
  const why = threads === 1 ? 'createEngine was asked for one'
    : wasmBinary || wasmUrl ? "the wasm handed to createEngine is the one-thread module's" : oneThreadReason();
  const relaxed = simd === 'relaxed';
  if (!why) {
    const { default: create } = relaxed ? await import('./wasm/arcscope_core_relaxed_threads.js')
      : await import('./wasm/arcscope_core_threads.js');
    return { create, wasmUrl: relaxed ? assets.wasmRelaxedThreads : assets.wasmThreads,
      threads: Math.min(threads, hardwareThreads), simd, simdWhy };
  }
  const create = relaxed ? (await import('./wasm/arcscope_core_relaxed.js')).default : createArcscopeCore;
  return { create, wasmUrl: wasmUrl ?? (relaxed ? assets.wasmRelaxed : assets.wasm), threads: 1, why, simd, simdWhy };
}

// A build's name as pages say it.
const simdName = (simd) => (simd === 'relaxed' ? 'relaxed SIMD' : 'SIMD128');

// Which build runs, in words for a page's status line: relaxed SIMD or SIMD128, on one thread (and why) or several.
function buildSummary({ simd, threads, why }) {
  const name = simdName(simd);
  return threads > 1 ? `${name}, ${threads} threads (the page is cross-origin isolated)` : `${name}, one thread: ${why}`;
}

export async function createEngine(options = {}) {
  // The tokenizer downloads while the module compiles.
  const tokenizerBytes = options.tokenizerBytes ?? readBytes(options.tokenizerUrl ?? assets.tokenizer);
  tokenizerBytes.catch?.(() => {}); // its failure is reported where it is awaited, below
  const module = await coreFactory(options);
  const core = await new Promise((ok, fail) => {
    coreOptions({ ...options, wasmUrl: module.wasmUrl }, fail).then((o) => module.create(o)).then(ok, fail);
  });
  // Worker threads share the matrix products; results are the same bits on any number (threads.h).
  const engine = { core, threads: core.setThreads(module.threads) };
  // 'relaxed' | 'simd128': the build whose q8 kernel runs (the same bits either way).
  engine.simd = module.simd;
  // {simd, threads, summary, simdWhy}: the module that runs, for pages to say (the worker's init returns it);
  // simdWhy says why SIMD128 runs and not relaxed SIMD (null when relaxed SIMD runs).
  engine.build = { simd: simdName(module.simd), threads: engine.threads,
    summary: buildSummary({ ...module, threads: engine.threads }), simdWhy: module.simdWhy };

  // The article's attention blocks and its cost experiment (engine/article.js).
  Object.assign(engine, articleBlocks(core));

  // The tokenizer: engine.tokenize(text), engine.decode(ids).
  // GPT-2's tokenizer; options.tokenizerBytes (the file's bytes) or options.tokenizerUrl, else models/ beside us.
  const tokenizer = createTokenizer(core, await tokenizerBytes);
  engine.tokenizer = tokenizer;
  engine.tokenize = (text) => tokenizer.tokenize(text);   // {ids: number[], tokens: string[]}
  engine.encode = (text) => tokenizer.encode(text);       // Int32Array of ids
  engine.decode = (ids) => tokenizer.decode(ids);         // string
  engine.tokenText = (id) => tokenizer.tokenText(id);
  engine.tokenSpans = (ids) => tokenizer.tokenSpans(ids); // [{first, count, text}]
  // Another model's tokenizer, from Hugging Face's tokenizer.json (and tokenizer_config.json): a URL of the file or
  // of its folder (ending in '/'), or {json, config} (texts, parsed objects or bytes). Free it when done.
  engine.loadTokenizer = async (source) => createHfTokenizer(core, await tokenizerFiles(source));

  // Models (engine/model.js, load-stream.js, convert.js): loadModel(bytes) -> Model; loadModelStream({chunks,
  // totalBytes}) -> Promise<Model>, the file written into the engine as it arrives; convertCheckpoint({config, chunks,
  // dtype, totalBytes, onProgress}, or index and shards for a sharded checkpoint) -> .arcs bytes; convertToModel(the
  // same) -> Promise<Model>, run where the converter wrote it.
  engine.loadModel = (bytes, options) => loadModel(core, bytes, tokenizer, options);
  engine.loadModelStream = (options) => loadModelStream(core, options, tokenizer);
  engine.convertCheckpoint = (options) => convertCheckpoint(core, options);
  // config.json (an object or its text) -> the dtype a conversion without one gets: 'q16', or 'q8' where q16's file
  // would pass 2 GiB (GPT-2 XL).
  engine.defaultDtype = (config) => defaultDtype(core, config);
  engine.convertToModel = (options) => convertToModel(core, options, tokenizer);

  return engine;
}
