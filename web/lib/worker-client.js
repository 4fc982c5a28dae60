// worker-client.js: the page side of worker.js. One shared worker per page: the tutorial and every <arc-scope>
// element call the same engine, and a model URL is loaded once however many elements ask for it.
//   const worker = sharedEngine();
//   const model = await worker.loadModel(url);                 // {key, name, size, config}
//   const r = await worker.call('analyze', {model: model.key, text});
import { convertedKey } from './shared/model-cache.js';

const WORKER = './worker/worker.js'; // a variable, so bundlers treat only the literal below as the worker
const START_SECONDS = 20; // the worker posts once its script and imports have loaded (not the wasm: that is init)

// A module worker running the script at url (default: the library's worker.js). A page may not start a worker from
// another origin's script (the library on an asset host, with CORS), so then a same-origin blob: script imports it
// by its absolute URL; the worker's own import.meta.url stays that URL, so its assets resolve beside it as usual.
function startWorker(url) {
  const sameOrigin = (u) => new URL(u, document.baseURI).origin === location.origin;
  if (!url && sameOrigin(import.meta.url)) {
    // Written out in full so that bundlers (Vite, webpack 5) see the worker and bundle it with its imports.
    return new Worker(new URL('./worker/worker.js', import.meta.url), { type: 'module' });
  }
  url = new URL(url ?? WORKER, url ? document.baseURI : import.meta.url);
  if (sameOrigin(url)) return new Worker(url, { type: 'module' });
  const shim = URL.createObjectURL(new Blob([`import ${JSON.stringify(url.href)};\n`], { type: 'text/javascript' }));
  try {
    return new Worker(shim, { type: 'module' });
  } finally {
    setTimeout(() => URL.revokeObjectURL(shim), 60_000); // the worker has fetched it by then
  }
}

// The first of urls the server does not have ({url, status}), or null (all there, or the server cannot be asked).
async function missingFile(urls) {
  for (const url of urls) {
    try {
      const r = await fetch(url, { method: 'HEAD', cache: 'no-store' });
      if (r.status === 404 || r.status === 410) return { url, status: r.status };
    } catch {
      return null;  // another origin without CORS, or offline: the general message stands
    }
  }
  return null;
}

export class EngineClient {
  constructor(workerUrl) {
    this.nextId = 1;
    this.pending = new Map();
    this.models = new Map(); // url -> Promise<model info>
    this.broken = null;      // why the worker cannot answer any more: later calls fail at once instead of waiting
    this.started = false;
    this.workerUrl = (workerUrl ? new URL(workerUrl, document.baseURI) : new URL(WORKER, import.meta.url)).href;
    try {
      this.worker = startWorker(workerUrl);
    } catch (e) { // a Content-Security-Policy without worker-src for it, or a browser without module workers
      this.worker = null;
      this.broken = `the engine worker could not start from ${this.workerUrl}: ${e.message}`;
    }
    if (this.worker) {
      // A worker whose imports a policy blocks may neither run nor fire error: give up after a while, saying why.
      const startTimer = setTimeout(() => {
        if (this.started || this.broken) return;
        this.broken = `the engine worker did not start within ${START_SECONDS} s from ${this.workerUrl}: its script ` +
          'or an import did not load (from another origin, the Content-Security-Policy needs worker-src for that origin)';
        this.failAll(this.broken);
      }, START_SECONDS * 1000);
      this.worker.onmessage = ({ data }) => { this.started = true; clearTimeout(startTimer); this.receive(data); };
      this.worker.onerror = (e) => {
        this.broken = this.started ? `the engine worker stopped: ${e.message || 'an unknown error'}`
          : `the engine worker failed to start from ${this.workerUrl}: ${e.message ||
            'its script could not be loaded (a 404, another origin without CORS, or a Content-Security-Policy without worker-src for it)'}`;
        if (this.started || e.message) { this.failAll(this.broken); return; }
        // The browser does not say which file failed: ask for the worker's script and the engine's glue, and name a
        // missing one (a folder copied without lib/wasm).
        missingFile([this.workerUrl, new URL('./wasm/arcscope_core.js', import.meta.url).href]).then((missing) => {
          if (missing) {
            this.broken = `the engine worker failed to start: ${missing.url} answers HTTP ${missing.status}; copy the ` +
              'whole lib/ folder, lib/wasm/ included';
          }
          this.failAll(this.broken);
        });
      };
    }
    this.ready = this.call('init');
    this.ready.catch(() => {}); // reported by whoever awaits it; never an unhandled rejection
  }

  receive({ id, progress, result, error }) {
    const p = this.pending.get(id);
    if (!p) return;
    if (progress !== undefined) { p.onProgress?.(progress); return; }
    this.pending.delete(id);
    if (error !== undefined) p.reject(new Error(error)); else p.resolve(result);
  }

  failAll(message) {
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
  }

  // Runs op in the worker. onProgress receives intermediate reports; the returned promise has .id for cancel().
  // Every failure is a rejection, never a synchronous throw: arguments the browser cannot send to a worker (a
  // function, a DOM node) reject naming the operation.
  call(op, args = {}, { onProgress, transfer = [] } = {}) {
    const id = this.nextId++;
    if (this.broken) return Object.assign(Promise.reject(new Error(this.broken)), { id });
    const promise = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, onProgress }));
    try {
      this.worker.postMessage({ id, op, args }, transfer);
    } catch (e) {
      this.pending.get(id).reject(new Error(`${op}: its arguments cannot be sent to the engine's worker (${e.message})`,
        { cause: e }));
      this.pending.delete(id);
    }
    promise.id = id;
    return promise;
  }

  cancel(promise) {
    if (promise?.id && !this.broken) this.worker.postMessage({ id: 0, op: 'cancel', args: { target: promise.id } });
  }

  // Starts loading a model in the worker while the engine starts (a loadModel for the same URL joins it).
  prefetch(url) {
    if (!this.broken) this.worker.postMessage({ id: 0, op: 'prefetch', args: { url: new URL(url, document.baseURI).href } });
  }

  // Absolute URL -> the loaded model's info; concurrent and repeated requests share one load.
  loadModel(url, onProgress) {
    let key;
    try {
      key = new URL(url, document.baseURI).href;
    } catch (e) {
      return Promise.reject(new Error(`the model URL ${JSON.stringify(String(url))} is not a URL (${e.message})`));
    }
    if (!this.models.has(key)) {
      const loading = this.call('loadModel', { url: key }, { onProgress });
      loading.catch(() => this.models.delete(key));
      this.models.set(key, loading);
    }
    return this.models.get(key);
  }

  // A checkpoint (URLs or Files) converted in the worker to dtype ('q16', 'q8' or 'f32'; without one, the engine's
  // default for its shape: q16, or q8 past 2 GiB); the model's key (in the cache and in shared links) is key with the
  // format before it unless q8 (shared/model-cache.js's convertedKey), and the result's info.key.
  convertModel(source, key, name, onProgress, { dtype } = {}) {
    const call = this.call('convertModel', { source, key, name, dtype }, { onProgress });
    if (dtype === undefined) return call.then((info) => (this.models.set(info.key, call), info));
    let modelKey;
    try { modelKey = convertedKey(key, dtype); } catch { return call; } // not a format: the worker says so
    return this.track(modelKey, call);
  }

  // An .arcs file (from a picker or a drop): the File itself, which the worker reads as it loads, or its bytes,
  // which are transferred to the worker.
  loadModelBytes(bytes, key, name, onProgress) {
    const transfer = ArrayBuffer.isView(bytes) ? [bytes.buffer] : [];  // anything else the worker refuses in words
    return this.track(key, this.call('loadModelBytes', { bytes, key, name }, { onProgress, transfer }));
  }

  track(key, promise) {
    const previous = this.models.get(key);
    this.models.set(key, promise);
    promise.catch(() => { if (this.models.get(key) === promise) previous ? this.models.set(key, previous) : this.models.delete(key); });
    return promise;
  }
}

// The page's one worker. The first call decides which worker script runs: the library's own, or a page's worker
// that adds operations to it (the tutorial passes web/tutorial/worker/tutorial-worker.js); later calls share that one.
let shared = null;
export function sharedEngine(workerUrl) {
  shared ??= new EngineClient(workerUrl);
  return shared;
}
