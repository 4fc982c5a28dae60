// worker.js: the Web Worker that hosts the wasm engine, so the page never freezes while a model loads, converts,
// runs or generates. Protocol (see worker-client.js and web/README.md):
//   page -> worker  {id, op, args}
//   worker -> page  {id, progress}            zero or more, while the operation runs
//                   {id, result} | {id, error}  exactly one, at the end
// Typed arrays in results are transferred, not copied.
//
// Requests run side by side and only their engine parts take turns (withEngine), so a slow or stalled download
// never holds up another request. A wasm trap throws the engine away: a fresh one starts, and each model loads
// again from its URL or its Cache Storage copy when it is next used.
import { createEngine } from '../arcscope.js';
import { spanLabels } from '../shared/token-text.js';
import { checkpointConfig, convertToModel, keepModel, openModelFile } from './model-source.js';
import { setStallTimeout } from '../shared/downloads.js';
import { convertedKey, cachedModel } from '../shared/model-cache.js';
import { kvCacheFor } from '../shared/model-memory.js';
import { closestKept, keepQueries, keptLayers, queryKeyHooks } from './kept-queries.js';
import { viewMatrix } from '../shared/attention-math.js';
import { LruMap } from '../shared/lru-map.js';

let engine = createEngine();  // Promise of the live engine; replaced after a crash
// Models in wasm memory at once: the one on screen and the one before it (switching back is instant), while the two
// hold at most MODELS_BYTES; a bigger model stays alone (so one of over a gigabyte is never resident beside
// another). The older ones are freed before a new model's bytes arrive, so that it reuses their memory: wasm memory
// never shrinks, and a 1.76 GB GPT-2 XL beside a 0.87 GB large would leave little of the 4 GB the engine can have.
const KEEP_MODELS = 2;
const MODELS_BYTES = 1.25e9;
// key (model URL or cache key) -> {model, name, size, notes, users}, least recently used first; one replaced or
// evicted is freed. A model in use outside the engine's turns (users > 0: its file being copied to Cache Storage) is
// never freed under its user: eviction passes over it, and one replaced meanwhile is freed when its last user lets
// go (release), which also frees whatever it kept over the bounds.
const models = new LruMap({ maxEntries: KEEP_MODELS, budget: MODELS_BYTES, removable: (entry) => entry.users === 0,
  onEvict: (entry) => { if (entry.users > 0) entry.freeOnRelease = true; else entry.model.free(); } });
const loading = new Map();    // key -> Promise of its load (or a pick's), so concurrent requests share one
const sources = new Map();    // key -> (key, ctx) => {bytes, name}, for keys that are not an .arcs URL

// The operations, by name. A page may add its own before it sends its first message (the tutorial's demos do,
// in web/tutorial/worker/tutorial-worker.js); each runs its wasm work through withEngine.
export const ops = {
  // -> {ok, build}: the engine's build (arcscope.js: SIMD128, and how many threads and why), for the page to say.
  async init() {
    return { ok: true, build: (await engine).build };
  },

  // Downloads give up after this many seconds without data (tests shorten it).
  async configure({ stallSeconds }) {
    if (stallSeconds !== undefined) setStallTimeout(stallSeconds);
    return { ok: true };
  },

  // Starts loading a model before anyone asks for it; a failure is reported to the loadModel that follows.
  async prefetch({ url }) {
    load(url, {}).catch(() => {});
  },

  async tokenize({ text, labels = true }) {
    return withEngine('splitting the text into tokens', (e) => {
      const { ids } = e.tokenize(text);
      return labels ? { ids, labels: labelsFor(e, ids) } : { ids }; // (labels of 1,000 tokens take some 10 ms)
    });
  },

  // Loads (or reuses) the model behind a URL: an .arcs file, or a model cached under that key.
  async loadModel({ url }, ctx) {
    return withModel(url, ctx, 'loading a model', () => describe(url));
  },

  // An .arcs file the user picked (its bytes, or the File itself, read as it loads): loaded and cached under key, so
  // a shared link (or the engine after a crash) can find it again.
  // Requests for key meanwhile wait for it, and the model is held (not freed to make room for another) until its file
  // is in Cache Storage.
  async loadModelBytes({ bytes, key, name }, ctx) {
    if (!(bytes instanceof Blob || bytes instanceof Uint8Array || bytes instanceof ArrayBuffer)) {
      throw new Error(`loadModelBytes takes the .arcs file as a File (or Blob) or its bytes (a Uint8Array), got ${
        bytes === null ? 'null' : typeof bytes}`);
    }
    if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
    const file = bytes instanceof Blob ? { chunks: bytes.stream(), totalBytes: bytes.size, name }
      : { chunks: bytes, totalBytes: bytes?.length, name };
    const picked = (async () => {
      const entry = await loadStream(file, ctx, 'loading into the engine');
      entry.users++;
      await withEngine(`keeping ${name}`, () => keep(key, entry));
      sources.set(key, async (_, c) => {
        const cached = await cachedModel(key);
        if (!cached) throw new Error(`${name} is no longer in memory or in the browser's cache: open the file again`);
        return loadStream({ ...cached, name }, c, 'loading from the browser cache');
      });
      return entry;
    })();
    track(key, picked);
    const entry = await picked;
    try {
      if (!await keepModel(key, entry.model, ctx.progress)) entry.notes.push(notKept());
      return describe(key, entry);
    } finally {
      await release(entry);
    }
  },

  // Converts a Hugging Face checkpoint (URLs or Files) in the browser to dtype ('q16', 'q8' or 'f32'; without one,
  // the engine's default for its config.json: q16, or q8 past 2 GiB), caches the result, loads it. The model's key
  // is convertedKey(key, dtype): the result's key says the format.
  async convertModel({ source, key, name, dtype }, ctx) {
    if (dtype === undefined) {
      source = { ...source, configText: await checkpointConfig(source, ctx) };  // read once: the conversion reuses it
      dtype = await withEngine('reading config.json', (e) => e.defaultDtype(source.configText));
    }
    key = convertedKey(key, dtype);
    sources.set(key, (_, c) => convert(source, key, name, dtype, c));
    return withModel(key, ctx, `loading ${name}`, () => describe(key));
  },

  // A forward pass over text (or ids): tokens, labels, the attention's shape [L, H, T, T], the next-token top-k, and
  // how many leading positions were not run again (reused: an edit of a kept analysis runs from its first change).
  // The attention itself stays here, as every layer's queries and keys (kept-queries.js): the attention and
  // attentionThumbnails ops compute the heads a view shows from them.
  async analyze({ model: key, text, ids, topk = 10 }, ctx) {
    let doing = 'splitting the text into tokens';
    return withModel(key, ctx, () => doing, ({ model }, e) => {
      if (!ids) ids = model.tokenize(text).ids;
      if (ids.length === 0) throw new Error('type some text first: there are no tokens to look at');
      const { n_ctx, n_layer: L, n_head: H } = model.config;
      if (ids.length > n_ctx) throw new Error(`the text is ${ids.length} tokens long; this model reads at most ${n_ctx}`);
      doing = `running the model on ${ids.length} tokens`;
      const { logits, first } = runKeepingQueries(model, key, ids);
      return { ids, labels: labelsFor(e, ids), shape: [L, H, ids.length, ids.length], next: model.topk(logits, topk),
        reused: first };
    });
  },

  // One (T, T) attention matrix of analysed ids, the engine's own numbers: layer an index or 'mean' / 'max' over
  // layers, head an index or 'mean' / 'max' over heads (attention-math.js's viewMatrix, layers first).
  // -> {data: Float32Array (T * T), shape: [T, T]}
  async attention({ model: key, ids, layer, head }, ctx) {
    return withModel(key, ctx, `computing attention on ${ids.length} tokens`, ({ model }) => {
      const { n_layer: L, n_head: H } = model.config;
      checkChoice('layer', layer, L, ['mean', 'max']);
      checkChoice('head', head, H, ['mean', 'max']);
      const layers = queriesAndKeys(model, key, ids);
      const data = viewMatrix((l, h) => model.attentionPattern(layers[l].q, layers[l].k, h), [L, H], layer, head);
      return { data, shape: [ids.length, ids.length] };
    });
  },

  // Every head of every layer of analysed ids, [L, H, T, T] flat, as forward({attention: true}) captures it: for
  // short texts only (GPT-2 small on 1,024 tokens would be 604 MB). -> {data, shape}
  async attentionTensor({ model: key, ids }, ctx) {
    return withModel(key, ctx, `computing attention on ${ids.length} tokens`, ({ model }) => {
      const { n_layer: L, n_head: H } = model.config, T = ids.length;
      const layers = queriesAndKeys(model, key, ids), data = new Float32Array(L * H * T * T);
      layers.forEach(({ q, k }, l) => data.set(model.attentionPattern(q, k), l * H * T * T));
      return { data, shape: [L, H, T, T] };
    });
  },

  // Every head's attention on analysed ids max-pooled to at most size x size, for thumbnails: one layer at a time as
  // progress {layer, size, data: Float32Array (H * size * size)}. Each head is one turn of the engine, so a view
  // asked for meanwhile waits for one head, not for all of them; a 'cancel' stops it. -> {shape: [L, H, size, size]}
  async attentionThumbnails({ model: key, ids, size = 64 }, ctx) {
    const T = ids.length, s = Math.min(size, T);
    const { n_layer: L, n_head: H } = await withModel(key, ctx, 'drawing thumbnails', ({ model }) => model.config);
    for (let l = 0; l < L; l++) {
      const data = new Float32Array(H * s * s);
      for (let h = 0; h < H; h++) {
        await nextMessage(); // the turns alone chain as microtasks: a request posted meanwhile would wait for them all
        await withModel(key, ctx, `drawing thumbnails of ${T} tokens`, ({ model }) => {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          const { q, k } = queriesAndKeys(model, key, ids)[l];
          data.set(model.attentionThumbnail(q, k, h, s), h * s * s);
        });
      }
      ctx.progress({ layer: l, size: s, data });
    }
    return { shape: [L, H, s, s] };
  },

  // model.runWithCache in the worker: the activations named (TransformerLens hook names, an array), for ids or for a
  // text tokenized as TransformerLens's to_tokens does (<|endoftext|> first unless prependBos is false).
  // -> {ids, tokens (each token's text), logits (the last position's), cache: {name: {data, shape}}}
  async runWithCache({ model: key, ids, text, prependBos = true, names }, ctx) {
    return withModel(key, ctx, 'running the model with a cache', ({ model }) => {
      ids ??= model.toTokens(text, { prependBos });
      const { logits, cache } = model.runWithCache(ids, { names, allLogits: false });
      return { ids, tokens: model.toStrToks(ids), logits, cache };
    });
  },

  // The models in wasm memory, least recently used first: [{key, name, size, config, notes}].
  async models() {
    return [...models.keys()].map((key) => describe(key));
  },

  // The engine's memory: {wasmBytes (it grows and never shrinks: the peak so far), modelBytes (the models in it)}.
  async memory() {
    const e = await engine;
    return { wasmBytes: e.core.HEAP8.buffer.byteLength, modelBytes: models.bytes };
  },

  async headScores({ model: key }, ctx) {
    return withModel(key, ctx, 'scoring the heads', ({ model }) => model.headScores());
  },

  // model.ablationSweep on a text (or ids): the metric logit(answer) - logit(wrong) at the last position with each
  // head ablated alone ('zero', or 'mean' over the positions); answer and wrong are one token each, as text or id.
  // A batch of variants at a time: progress {layersDone, layers} after each, and a 'cancel' stops it between two.
  // -> {ids, labels, baseline, heads: {data (L * H), shape: [L, H]}}
  async ablationSweep({ model: key, text, ids, answer, wrong, kind = 'zero' }, ctx) {
    return withModel(key, ctx, 'ablating heads', async ({ model }, e) => {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      ids ??= model.tokenize(text).ids;
      const { baseline, heads } = await model.ablationSweepInSteps({ input: ids, answer, wrong, kind }, betweenSteps(ctx));
      return { ids, labels: labelsFor(e, ids), baseline, heads };
    });
  },

  // Generates token by token with the KV cache: each new token arrives as progress with its attention row for
  // every layer and head ([L, H, T]), so the page grows the arcs as it goes. A 'cancel' stops after the current token.
  // The whole generation is one turn: nothing else may touch the model's KV cache meanwhile.
  async generate({ model: key, ids, maxTokens = 20, temperature = 0, topK = 40, topP = 1, seed = 1 }, ctx) {
    if (ids.length === 0) throw new Error('generation needs at least one token of text');
    return withModel(key, ctx, 'generating text', async ({ model }, e) => {
      const all = [...ids];
      const result = await model.generate({
        ids, maxTokens, temperature, topK, topP, seed, attention: true,
        onToken: async ({ id, attention, attentionShape }) => {
          all.push(id);
          ctx.progress({ id, text: e.decode(all), labels: labelsFor(e, all), row: attention, rowShape: attentionShape });
          await nextTask(); // lets a 'cancel' message in
          return !ctx.signal.aborted;
        },
      });
      return { ids: all, stop: result.stop };
    });
  },
};

// The engine's turns: wasm runs for one request at a time, in arrival order (one engine holds one KV cache and one
// conversion at a time, and its threaded build still runs one call at a time: they must not be interleaved). Resolves with the function that ends the turn.
let lastTurn = Promise.resolve();
function turn() {
  let end;
  const held = new Promise((ok) => { end = ok; });
  const mine = lastTurn.then(() => end);
  lastTurn = lastTurn.then(() => held);
  return mine;
}

// Runs work(engine, pause) in a turn. `await pause(promise)` gives the turn away while promise settles (a
// download) and takes it back. `what` (text, or a function giving it) says what the engine was doing if it crashes.
export async function withEngine(what, work) {
  let end = await turn();
  const live = engine;
  const doing = () => (typeof what === 'function' ? what() : what);
  const pause = async (promise) => {
    end();
    const settled = await Promise.resolve(promise).then((value) => ({ value }), (error) => ({ error }));
    end = await turn();
    // A restart while we waited outranks the download's own outcome: this engine's state is gone.
    if (live !== engine) throw new Error(`the engine was restarted after a crash while ${doing()}: try again`);
    if ('error' in settled) throw settled.error;
    return settled.value;
  };
  try {
    return await work(await live, pause);
  } catch (error) {
    throw crashed(error, live, doing());
  } finally {
    end();
  }
}

// Runs work(entry, engine) on the model behind key in a turn, loading the model first if it is not in memory
// (never loaded, freed to make room, or lost in a crash). entry.model is the Model (model.js). A page's own
// operations use it as the library's do.
export async function withModel(key, ctx, what, work) {
  for (;;) {
    await unlessCancelled(load(key, ctx), ctx.signal);
    const done = await withEngine(what, async (e) => models.has(key) && { value: await work(touch(key), e) });
    if (done) return done.value; // else it was freed while this request waited for its turn: load it again
  }
}

// Puts the model behind key in memory (one load per key however many ask): its source (an .arcs URL's unless the
// key has its own) brings it into the engine, room made for it first, its bytes written in as they arrive.
function load(key, ctx) {
  if (models.has(key)) return Promise.resolve();
  if (!loading.has(key)) {
    const job = (async () => {
      const entry = await (sources.get(key) ?? loadUrl)(key, ctx);
      await withEngine(`keeping ${entry.name}`, () => keep(key, entry));
    })();
    track(key, job);
  }
  return loading.get(key);
}

// Makes job the load of key that requests for key wait for, until it settles.
function track(key, job) {
  loading.set(key, job);
  job.finally(() => { if (loading.get(key) === job) loading.delete(key); }).catch(() => {});
}

// Lets go of a model held for a use outside the engine's turns (entry.users); the last user's release frees it if it
// was replaced meanwhile, and frees what is over the bounds now that it may go. In a turn, as every free is.
async function release(entry) {
  if (--entry.users > 0) return;
  await withEngine('freeing models', () => {
    if (entry.freeOnRelease && entry.model.live) entry.model.free();
    models.trim();
  });
}

async function loadUrl(url, ctx) {
  const file = await openModelFile(url, ctx);
  // The engine's words on the file (truncated, not an .arcs file, a bad checksum) do not know which URL it came from.
  return loadStream(file, ctx, file.cached ? 'loading from the browser cache' : null).catch((e) => {
    throw e?.message?.includes(url) ? e : new Error(`${url}: ${e?.message ?? e}`, { cause: e });
  });
}

// An .arcs file ({chunks, totalBytes, name}) written into the engine as it arrives, in the engine's turns, after
// room is made for it. stage: what the progress calls it (null when its download reports its own). -> an entry
async function loadStream({ chunks, totalBytes, name }, ctx, stage) {
  return withEngine(`loading ${name} into memory`, async (e, pause) => {
    makeRoom(totalBytes);
    let last = 0;
    const onProgress = stage && (({ bytesDone }) => {
      if (bytesDone - last < 4 << 20 && bytesDone < totalBytes) return;  // a report every 4 MB is plenty
      last = bytesDone;
      ctx.progress?.({ stage, loaded: bytesDone, total: totalBytes });
    });
    const model = await e.loadModelStream({ chunks: inTurns(chunks, pause), totalBytes, onProgress });
    return entryFor(model, name);
  });
}

// A checkpoint converted in dtype's format in the engine's turns (the download streams in between them) into a model
// that runs where the converter wrote it, and kept in Cache Storage; a conversion kept there is loaded instead.
async function convert(source, key, name, dtype, ctx) {
  let entry;
  await convertToModel({
    convert: (options) => withEngine(`converting ${name}`, async (e, pause) => {
      entry = entryFor(await e.convertToModel({ ...options, chunks: inTurns(options.chunks, pause) }), name);
      return entry.model;
    }),
    load: async (file) => (entry = await loadStream({ ...file, name }, ctx, 'loading from the browser cache')).model,
    makeRoom,
    stored: (kept) => { if (!kept) entry.notes.push(notKept()); },
  }, source, key, { dtype, progress: ctx.progress, signal: ctx.signal });
  return entry;
}

// What a model's notes say where the browser would not keep it: the page has no Cache Storage at all (browsers give it
// only to https pages and localhost: WebKit and Firefox over plain http), or its storage is full or a private window's.
const notKept = () => (typeof caches === 'undefined'
  ? 'not kept: this page has no Cache Storage, which browsers give only to https pages and localhost, so the next ' +
    'visit loads it again'
  : 'the browser would not keep it in its storage (full, or a private window\'s): the next visit loads it again');

// Frees the least recently used models until one of `bytes` fits beside the rest (KEEP_MODELS, MODELS_BYTES). Runs in
// a turn, before the new model's memory is taken.
const makeRoom = (bytes) => models.makeRoom(bytes);

// A loaded model as the worker keeps it, its KV cache in f16 where f32 would not fit (model-memory.js).
function entryFor(model, name) {
  const kv = kvCacheFor(model.config, model.fileBytes, self.navigator?.deviceMemory);
  if (kv.format !== model.config.kvCache) model.setKVCache(kv.format);
  return { model, name, size: model.fileBytes, notes: kv.why ? [kv.why] : [], users: 0 };
}

// The chunks of a stream (a download or a File's), each awaited with the engine's turn given away; bytes as they are.
async function* inTurns(chunks, pause) {
  if (chunks instanceof Uint8Array) { yield chunks; return; }
  const reader = chunks.getReader?.();
  const it = reader ? { next: () => reader.read() } : chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      const { done, value } = await pause(it.next());
      if (done) return;
      yield value;
    }
  } finally {
    reader ? reader.cancel().catch(() => {}) : it.return?.();
  }
}

// A trap (WebAssembly.RuntimeError) leaves wasm memory in an unknown state: that engine is dropped, models and all
// (nothing in it can be trusted, not even to free), and a fresh one starts. So does a full memory (wasm memory never
// shrinks, and the models in it are what filled it): the next request starts from an empty engine.
// The engine API names a trap itself and keeps the RuntimeError as the cause; the worker says it in its own words.
function crashed(error, live, what) {
  const isTrap = (e) => e instanceof WebAssembly.RuntimeError || e?.name === 'RuntimeError';
  const trap = isTrap(error) ? error : isTrap(error?.cause) ? error.cause : null;
  const full = !trap && /^the engine's memory is full/.test(error?.message ?? '');
  if ((trap || full) && live === engine) {
    models.clear();
    engine = createEngine();
  }
  return explain(trap ?? error, what, !!(trap || full));
}

// Engine messages are kept; a crash or an allocation failure gets words a reader can act on.
function explain(error, what, restarted) {
  const message = String(error?.message || error).replace(/\. Build with -s ASSERTIONS=1 for more info\.$/, '');
  const oom = /bad_alloc|out of memory|Cannot enlarge memory|Aborted\(OOM\)/i.test(message);
  if (!oom && !restarted) return error;
  if (/^the engine's memory is full/.test(message)) {  // wasm's 4 GB, filled by the models in it
    return new Error(`the engine's memory was full while ${what}: it has been restarted with no model in it, and ` +
      `your models load again when next used (${message})`);
  }
  const after = restarted ? '; it has been restarted, and your models load again when next used' : '';
  return new Error(oom
    ? `out of memory while ${what}: the browser could not give the engine enough memory (${message})${after}; ` +
      'close other tabs or load a smaller model'
    : `the engine crashed while ${what} (${message})${after}`);
}

// Resolves as promise does, or rejects when signal aborts (the work behind promise goes on for others waiting).
function unlessCancelled(promise, signal) {
  if (!signal) return promise;
  return Promise.race([promise, new Promise((_, fail) => {
    if (signal.aborted) fail(signal.reason);
    signal.addEventListener('abort', () => fail(signal.reason), { once: true });
  })]);
}

// Makes entry the model for key and frees the one it replaces and the least recently used others beyond
// KEEP_MODELS. Runs in a turn, so nothing is using the ones it frees.
const keep = (key, entry) => models.set(key, entry, entry.size);

// The entry for key, marked most recently used.
const touch = (key) => models.get(key);

function describe(key, { model, name, size, notes } = models.peek(key)) {
  return { key, name, size, config: model.config, notes };
}

// Display labels; tokenSpans groups tokens that only make whole characters together (e.g. an emoji's bytes).
function labelsFor(engine, ids) {
  return spanLabels(engine.tokenSpans(ids), ids.length);
}

// One pass over ids that keeps every layer's queries and keys for the attention ops. An edit of a kept analysis
// resumes from it: the positions before the first changed token are taken from the model's KV cache where it still
// holds them (runWithCache's reuse) and from the kept queries and keys, so typing at the end of a long text runs only
// the new tokens. The result is the same bits as a pass over the whole text. -> {logits (the last position's),
// layers, first (the positions not run again)}
function runKeepingQueries(model, key, ids) {
  const { n_layer: L } = model.config;
  const earlier = closestKept(key, ids);
  const { logits, cache, first } = model.runWithCache(ids, { names: queryKeyHooks(L), allLogits: false,
    reuse: earlier?.shared ?? 0 });
  return { logits, first, layers: keepQueries(key, ids, cache, L, { first, earlier }) };
}

// The queries and keys of analysed ids: kept, or computed again (they were evicted, or the worker restarted).
const queriesAndKeys = (model, key, ids) => keptLayers(key, ids) ?? runKeepingQueries(model, key, ids).layers;

// A layer or head as the attention op takes it: an index below n or one of words.
function checkChoice(name, value, n, words) {
  if (words.includes(value) || (Number.isInteger(value) && value >= 0 && value < n)) return;
  throw new Error(`${name} must be an integer from 0 to ${n - 1}, ${words.map((w) => `'${w}'`).join(' or ')}; got ${JSON.stringify(value)}`);
}

const nextTask = () => new Promise((ok) => setTimeout(ok, 0));

// The onStep of a sweep in steps (model.js) in a request: reports how far it got, then lets a 'cancel' in.
export const betweenSteps = (ctx) => async (progress) => {
  ctx.progress?.(progress);
  await nextTask();
  if (ctx.signal?.aborted) throw ctx.signal.reason;
};

// Lets the messages already posted to the worker in first, without setTimeout's 4 ms clamp on chained timers.
function nextMessage() {
  const { port1, port2 } = new MessageChannel();
  return new Promise((ok) => { port1.onmessage = () => { port1.close(); ok(); }; port2.postMessage(0); });
}

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

// A crashed engine's objects are dropped unfreed; if a finalizer still tries on the broken memory and traps, that is
// expected and must not reach the page as a failure of the worker.
self.addEventListener('error', (e) => {
  if (e.error instanceof WebAssembly.RuntimeError) e.preventDefault();
});

// Every request starts at once; 'cancel' aborts a running one (its downloads, its wait for a model, a generation
// or the cost experiment after the current step).
const running = new Map(); // id -> AbortController
self.onmessage = async ({ data: { id, op, args } }) => {
  if (op === 'cancel') { running.get(args.target)?.abort(new Error('cancelled')); return; }
  const controller = new AbortController();
  running.set(id, controller);
  const progress = (p) => self.postMessage({ id, progress: p }, transferables(p));
  progress.cancelled = () => controller.signal.aborted;
  try {
    if (!Object.hasOwn(ops, op)) throw new Error(`unknown operation ${op}`);
    const result = await ops[op](args || {}, { progress, signal: controller.signal });
    self.postMessage({ id, result }, transferables(result));
  } catch (error) {
    self.postMessage({ id, error: String(error?.message || error) });
  } finally {
    if (running.get(id) === controller) running.delete(id);
  }
};

// The script and its imports have loaded: the page stops waiting for the worker to start (worker-client.js).
self.postMessage({ id: 0, started: true });
