// worker.js: the Web Worker that hosts the wasm engine, so the page never freezes while a model loads, converts,
// runs or generates. Protocol (see worker-client.js):
//   page -> worker  {id, op, args}
//   worker -> page  {id, progress}            zero or more, while the operation runs
//                   {id, result} | {id, error}  exactly one, at the end
// Typed arrays in results are transferred, not copied.
import { createEngine } from './arcscope.js';
import { spanLabels } from '../js/token-text.js';
import { loadModelBytes, convertToModel, storeModel } from './model-source.js';
import * as demos from './demos.js';

const enginePromise = createEngine();
const models = new Map();   // key (model URL or cache key) -> {model, name, size}, least recently used first
// Models in wasm memory at once: the one on screen and the one before it (switching back is instant). Older ones
// are freed, so trying several GPT-2 checkpoints does not pile up hundreds of MB.
const KEEP_MODELS = 2;
const loading = new Map();    // URL -> Promise of its load, so concurrent requests share one
const prefetched = new Map(); // model URL -> Promise of its bytes, started before the engine is ready

const ops = {
  async init() {
    await enginePromise;
    return { ok: true };
  },

  async tokenize({ text }) {
    const engine = await enginePromise;
    const { ids } = engine.tokenize(text);
    return { ids, labels: labelsFor(engine, ids) };
  },

  // Loads (or reuses) the model behind a URL: an .arcs file, or a cached conversion.
  async loadModel({ url }, progress) {
    if (models.has(url)) return describe(url);
    if (!loading.has(url)) {
      const load = loadFromUrl(url, progress);
      loading.set(url, load);
      load.then(() => loading.delete(url), () => loading.delete(url));
    }
    return loading.get(url);
  },

  // An .arcs file the user picked: loaded directly and cached under key, so a shared link can find it again.
  async loadModelBytes({ bytes, key, name }, progress) {
    const engine = await enginePromise;
    progress({ stage: 'loading into the engine', loaded: bytes.length, total: bytes.length });
    const model = engine.loadModel(bytes);
    await storeModel(key, bytes);
    keep(key, { model, name, size: bytes.length });
    return describe(key);
  },

  // Converts a Hugging Face checkpoint (URLs or Files) in the browser, caches the result, loads it.
  async convertModel({ source, key, name }, progress) {
    const engine = await enginePromise;
    if (models.has(key)) return describe(key);
    const bytes = await convertToModel(engine, source, key, progress);
    progress({ stage: 'loading into the engine', loaded: bytes.length, total: bytes.length });
    const model = engine.loadModel(bytes);
    keep(key, { model, name, size: bytes.length });
    return describe(key);
  },

  // A full forward over text (or ids): tokens, labels, every head's attention, and the next-token top-k.
  async analyze({ model: key, text, ids, topk = 10 }) {
    const engine = await enginePromise;
    const { model } = await use(key);
    if (!ids) ids = model.tokenize(text).ids;
    if (ids.length === 0) throw new Error('type some text first: there are no tokens to look at');
    const n_ctx = model.config.n_ctx;
    if (ids.length > n_ctx) throw new Error(`the text is ${ids.length} tokens long; this model reads at most ${n_ctx}`);
    const out = model.forward(ids, { attention: true });
    return {
      ids,
      labels: labelsFor(engine, ids),
      attention: out.attention,
      shape: out.attentionShape,
      next: model.topk(lastRow(out.logits, out.logitsShape), topk),
    };
  },

  // The models in wasm memory, least recently used first: [{key, name, size, config}].
  async models() {
    return [...models.keys()].map(describe);
  },

  async headScores({ model: key }) {
    return (await use(key)).model.headScores();
  },

  // Generates token by token with the KV cache: each new token arrives as progress with its attention row for
  // every layer and head ([L, H, T]), so the page grows the arcs as it goes. A 'cancel' stops after the current token.
  async generate({ model: key, ids, maxTokens = 20, temperature = 0, topK = 40, topP = 1, seed = 1 }, progress) {
    const engine = await enginePromise;
    const entry = await use(key);
    if (ids.length === 0) throw new Error('generation needs at least one token of text');
    const all = [...ids];
    entry.busy = (entry.busy || 0) + 1; // never freed while it generates
    let result;
    try {
      result = await entry.model.generate({
        ids, maxTokens, temperature, topK, topP, seed, attention: true,
        onToken: async ({ id, attention, attentionShape }) => {
          all.push(id);
          progress({ id, text: engine.decode(all), labels: labelsFor(engine, all), row: attention, rowShape: attentionShape });
          await nextTask(); // lets a 'cancel' message in
          return !progress.cancelled();
        },
      });
    } finally {
      entry.busy -= 1;
    }
    return { ids: all, stop: result.stop };
  },

  async singleHead(args) { return demos.singleHead(await enginePromise, args); },
  async multiHead(args) { return demos.multiHead(await enginePromise, args); },
  async positional(args) { return demos.positional(await enginePromise, args); },
  async costExperiment(args, progress) { return demos.costExperiment(await enginePromise, args, progress); },
};

// The model behind key, loaded again (from the HTTP or Cache Storage copy) if it was freed to make room.
async function use(key) {
  if (!models.has(key)) await ops.loadModel({ url: key }, () => {});
  const entry = models.get(key);
  models.delete(key); // re-insert: most recently used last
  models.set(key, entry);
  return entry;
}

async function loadFromUrl(url, progress) {
  const download = prefetched.get(url) || loadModelBytes(url, progress);
  prefetched.delete(url);
  const engine = await enginePromise;
  const { bytes, name } = await download;
  progress({ stage: 'loading into the engine', loaded: bytes.length, total: bytes.length });
  keep(url, { model: engine.loadModel(bytes), name, size: bytes.length });
  return describe(url);
}

// Makes entry the model for key and frees the least recently used others beyond KEEP_MODELS (never a busy one).
function keep(key, entry) {
  models.get(key)?.model.free();
  models.delete(key);
  models.set(key, entry);
  for (const [old, { model, busy }] of models) {
    if (models.size <= KEEP_MODELS) break;
    if (busy || old === key) continue;
    model.free();
    models.delete(old);
  }
}

function describe(key) {
  const { model, name, size } = models.get(key);
  return { key, name, size, config: model.config };
}

// Display labels; tokenSpans groups tokens that only make whole characters together (e.g. an emoji's bytes).
function labelsFor(engine, ids) {
  return spanLabels(engine.tokenSpans(ids), ids.length);
}

// The last row of logits (rows, n_vocab).
function lastRow(logits, shape) {
  const [rows, n] = shape;
  return logits.subarray((rows - 1) * n, rows * n);
}

// Engine messages are kept; allocation failures get words a reader can act on.
function explain(message) {
  if (/bad_alloc|out of memory|Cannot enlarge memory|Aborted\(OOM\)/i.test(message)) {
    return `out of memory: the browser could not give the engine enough memory (${message}); close other tabs or ` +
      'load a smaller model';
  }
  return message;
}

const nextTask = () => new Promise((ok) => setTimeout(ok, 0));

// Every typed array inside a result travels by transfer.
// (Only arrays that own their whole buffer: a view into wasm memory must never be detached.)
function transferables(value, out = []) {
  if (ArrayBuffer.isView(value)) {
    if (value.byteOffset === 0 && value.byteLength === value.buffer.byteLength && value.buffer instanceof ArrayBuffer) out.push(value.buffer);
  }
  else if (Array.isArray(value)) for (const v of value) transferables(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) transferables(v, out);
  return [...new Set(out)];
}

// One operation at a time: the engine is single-threaded and a KV cache must not be interleaved.
// 'cancel' skips the queue: long loops (generation, the cost experiment) check it between steps.
const cancelled = new Set();
let queue = Promise.resolve();
self.onmessage = ({ data: { id, op, args } }) => {
  if (op === 'cancel') { cancelled.add(args.target); return; }
  if (op === 'prefetch') {
    const download = loadModelBytes(args.url, () => {});
    download.catch(() => {}); // a failure is reported by the loadModel that uses it
    prefetched.set(args.url, download);
    return;
  }
  queue = queue.then(async () => {
    const progress = (p) => self.postMessage({ id, progress: p }, transferables(p));
    progress.cancelled = () => cancelled.has(id);
    try {
      if (!ops[op]) throw new Error(`unknown operation ${op}`);
      const result = await ops[op](args || {}, progress);
      self.postMessage({ id, result }, transferables(result));
    } catch (error) {
      self.postMessage({ id, error: explain(String(error?.message || error)) });
    }
    cancelled.delete(id);
  });
};
