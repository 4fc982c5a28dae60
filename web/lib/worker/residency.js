// residency.js: which models the worker's engine holds. Each is loaded once however many requests ask (from an .arcs
// URL, a picked file, a conversion, or Cache Storage), kept while the bounds allow, freed least recently used first
// to make room before a new one's bytes arrive, and loaded again when next used after that or after a crash.
import { checkpointConfig, convertAndKeep, keepModel, openModelFile } from './model-source.js';
import { asChunks } from '../engine/chunks.js';
import { convertedKey, cachedModel } from '../shared/model-cache.js';
import { kvCacheFor } from '../shared/model-memory.js';
import { LruMap } from '../shared/lru-map.js';
import { throttledProgress } from '../shared/progress.js';
import { forgetModel } from './kept-queries.js';
import { onEngineRestart, withEngine } from './turns.js';

// Models in wasm memory at once: the one on screen and the one before it (switching back is instant), while the two
// hold at most MODELS_BYTES; a bigger model stays alone (so one of over a gigabyte is never resident beside
// another). The older ones are freed before a new model's bytes arrive, so that it reuses their memory: wasm memory
// never shrinks, and a 1.76 GB GPT-2 XL beside a 0.87 GB large would leave little of the 4 GB the engine can have.
const KEEP_MODELS = 2;
const MODELS_BYTES = 1.25e9;
// key (model URL or cache key) -> {model, name, size, notes, users}, least recently used first; one replaced or
// evicted is freed. A model in use outside the engine's turns (users > 0: its file being copied to Cache Storage) is
// never freed under its user: eviction passes over it, and one replaced meanwhile is freed when its last user lets
// go (release), which also frees whatever it kept over the bounds. The analyses kept for a key (kept-queries.js) go
// with its model.
const models = new LruMap({ maxEntries: KEEP_MODELS, budget: MODELS_BYTES, removable: (entry) => entry.users === 0,
  onEvict: (entry, key) => {
    forgetModel(key);
    if (entry.users > 0) entry.freeOnRelease = true; else entry.model.free();
  } });
const loading = new Map();    // key -> Promise of its load (or a pick's), so concurrent requests share one
const sources = new Map();    // key -> (key, ctx) => {bytes, name}, for keys that are not an .arcs URL

// A crash drops the engine's models with it, unfreed: nothing in its memory can be trusted, not even to free.
onEngineRestart(() => models.clear());

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

// Starts loading the model behind a URL before anyone asks for it; a failure is reported to the request that follows.
export function prefetch(url) {
  load(url, {}).catch(() => {});
}

// An .arcs file the user picked (its bytes, or the File itself, read as it loads): loaded and cached under key, so
// a shared link (or the engine after a crash) can find it again.
// Requests for key meanwhile wait for it, and the model is held (not freed to make room for another) until its file
// is in Cache Storage.
export async function loadPicked({ bytes, key, name }, ctx) {
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
}

// Converts a Hugging Face checkpoint (URLs or Files) in the browser to dtype ('q16', 'q8' or 'f32'; without one,
// the engine's default for its config.json: q16, or q8 past 2 GiB), caches the result, loads it. The model's key
// is convertedKey(key, dtype): the result's key says the format.
export async function loadConverted({ source, key, name, dtype }, ctx) {
  if (dtype === undefined) {
    source = { ...source, configText: await checkpointConfig(source, ctx) };  // read once: the conversion reuses it
    dtype = await withEngine('reading config.json', (e) => e.defaultDtype(source.configText));
  }
  key = convertedKey(key, dtype);
  sources.set(key, (_, c) => convert(source, key, name, dtype, c));
  return withModel(key, ctx, `loading ${name}`, () => describe(key));
}

// The models in memory, least recently used first: [{key, name, size, config, notes}].
export const residentModels = () => [...models.keys()].map((key) => describe(key));

// The bytes of the models in memory.
export const residentBytes = () => models.bytes;

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
    const report = throttledProgress(ctx.progress, 4 << 20);
    const onProgress = stage && (({ bytesDone }) => report({ stage, loaded: bytesDone, total: totalBytes }));
    const inTurns = asChunks(chunks, 'the .arcs file', pause);
    const model = await e.loadModelStream({ chunks: inTurns, totalBytes, onProgress });
    return entryFor(model, name);
  });
}

// A checkpoint converted in dtype's format in the engine's turns (the download streams in between them) into a model
// that runs where the converter wrote it, and kept in Cache Storage; a conversion kept there is loaded instead.
async function convert(source, key, name, dtype, ctx) {
  let entry;
  await convertAndKeep({
    convert: (options) => withEngine(`converting ${name}`, async (e, pause) => {
      entry = entryFor(await e.convertToModel(pausing(options, pause)), name);
      return entry.model;
    }),
    load: async (file) => (entry = await loadStream({ ...file, name }, ctx, 'loading from the browser cache')).model,
    makeRoom,
    noted: (text) => entry.notes.push(text),
    stored: (kept) => { if (!kept) entry.notes.push(notKept()); },
  }, source, key, { dtype, progress: ctx.progress, signal: ctx.signal });
  return entry;
}

// A conversion's options whose every wait for a chunk (and for a shard's download to start) gives the engine's turn
// away, so that it serves other requests while a download is slow: model.safetensors, or each shard.
function pausing(options, pause) {
  if (!options.shards) return { ...options, chunks: asChunks(options.chunks, undefined, pause) };
  const paused = (source, name) => ({ ...source, chunks: asChunks(source.chunks, name, pause) });
  const { shards } = options;
  return { ...options, shards: typeof shards === 'function'
    ? async (name) => paused(await pause(Promise.resolve(shards(name))), name)
    : new Map([...shards].map(([name, source]) => [name, paused(source, name)])) };
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

// Makes entry the model for key and frees the one it replaces and the least recently used others beyond
// KEEP_MODELS. Runs in a turn, so nothing is using the ones it frees.
const keep = (key, entry) => models.set(key, entry, entry.size);

// The entry for key, marked most recently used.
const touch = (key) => models.get(key);

// A resident model as requests see it: {key, name, size, config, notes}.
export function describe(key, { model, name, size, notes } = models.peek(key)) {
  return { key, name, size, config: model.config, notes };
}

// Resolves as promise does, or rejects when signal aborts (the work behind promise goes on for others waiting).
function unlessCancelled(promise, signal) {
  if (!signal) return promise;
  return Promise.race([promise, new Promise((_, fail) => {
    if (signal.aborted) fail(signal.reason);
    signal.addEventListener('abort', () => fail(signal.reason), { once: true });
  })]);
}
