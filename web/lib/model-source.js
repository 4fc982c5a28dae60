// model-source.js: where model bytes come from, in the worker. A model URL (an .arcs file), a cached conversion,
// or a Hugging Face checkpoint (model.safetensors + config.json, from URLs or local Files) converted in the browser.
// Converted models are kept in Cache Storage so the next visit loads them in about a second.

const CACHE = 'arcscope-models-v1';
// Cache Storage keys must be http(s) URLs; converted models live under a path nothing serves.
const cacheUrl = (key) => new URL(`/__arcscope_cache__/${encodeURIComponent(key)}`, self.location.href).href;

// Whether a conversion is cached (usable from the page too: Cache Storage is shared with the worker).
export async function isCached(key) {
  try {
    return !!(await (await caches.open(CACHE)).match(cacheUrl(key)));
  } catch {
    return false;
  }
}

export async function cachedModel(key) {
  try {
    const cache = await caches.open(CACHE);
    const hit = await cache.match(cacheUrl(key));
    return hit ? new Uint8Array(await hit.arrayBuffer()) : null;
  } catch {
    return null; // no Cache Storage (opaque origin, private mode): just convert again
  }
}

export async function storeModel(key, bytes) {
  try {
    const cache = await caches.open(CACHE);
    await cache.put(cacheUrl(key), new Response(bytes, { headers: { 'Content-Type': 'application/octet-stream' } }));
    return true;
  } catch {
    return false; // quota or no Cache Storage: the model still works for this visit
  }
}

// Downloads are abandoned when no byte arrives for this long, waiting for the answer or in the middle of the body:
// a server that never answers or stops sending must not leave the page waiting for ever. One clock for every
// download of this module's instance: the worker's (models, checkpoints; its configure op sets it) and the page's
// (an <arc-scope src> file). Tests shorten it.
let stallMs = 20_000;
export function setStallTimeout(seconds) { stallMs = seconds * 1000; }
// Every download also has a size bound, counted in the bytes that arrive (decoded: a compressed body counts what
// it inflates to), so an endless stream or a compression bomb stops at the bound. A model: a wasm32 engine cannot
// hold a file beyond this. config.json: a GPT-2 config is about 1 kB.
export const MAX_BYTES = 2 ** 31;
const ENGINE_HOLDS = 'the browser engine can hold';
export const CONFIG_BYTES = 4e6;

export function formatBytes(n) {
  if (!(n >= 0)) return '?';
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB`
    : n >= 1e3 ? `${(n / 1e3).toFixed(0)} kB` : `${n} B`;
}

// Bytes of an .arcs model URL, or of a model cached under that key. ctx: {progress, signal} (signal cancels).
export async function loadModelBytes(url, ctx = {}) {
  const cached = await cachedModel(url);
  if (cached) return { bytes: cached, name: nameOf(url), cached: true };
  const bytes = await fetchBytes(url, 'downloading model', ctx);
  return { bytes, name: nameOf(url), cached: false };
}

// Downloads with progress {stage, loaded, total}; the other options are download()'s (limit, most, wording, meta).
// Memory grows with the bytes that arrived, whatever the server claims: the chunks are kept as they come and copied
// once into the result. With a declared size, that copy is made when half of it has arrived and the rest goes
// straight in, so a file the server announces truly costs at most one and a half times its size, never two.
export async function fetchBytes(url, stage, { progress = () => {}, meta = {}, ...options } = {}) {
  let chunks = [], buffer = null, loaded = 0, lastReport = 0;
  for await (const value of download(url, { ...options, meta })) {
    if (!buffer && meta.total && loaded + value.length >= meta.total / 2 && loaded + value.length <= meta.total) {
      buffer = new Uint8Array(meta.total);
      let at = 0;
      for (const chunk of chunks) { buffer.set(chunk, at); at += chunk.length; }
      chunks = [];
    }
    if (buffer && loaded + value.length > buffer.length) { // more than declared: back to chunks
      chunks = [buffer.subarray(0, loaded)];
      buffer = null;
    }
    if (buffer) buffer.set(value, loaded);
    else chunks.push(value);
    loaded += value.length;
    if (loaded - lastReport > 1 << 20) { progress({ stage, loaded, total: meta.total }); lastReport = loaded; }
  }
  progress({ stage, loaded, total: meta.total || loaded });
  if (buffer) return buffer.length === loaded ? buffer : buffer.slice(0, loaded);
  const [only] = chunks;
  if (chunks.length === 1 && only.byteOffset === 0 && only.byteLength === only.buffer.byteLength) return only;
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (let i = 0; i < chunks.length; i++) {
    bytes.set(chunks[i], at);
    at += chunks[i].length;
    chunks[i] = null; // each chunk can go as soon as it is copied
  }
  return bytes;
}

// What a download's failures say. A caller with its own words (the element's src) gives its own.
const MODEL_WORDING = {
  unreachable: (url, e) => `could not reach ${url} (offline, blocked by the page's security policy, or the server ` +
    `refuses cross-origin requests): ${e.message}`,
  status: (url, response) => `could not download ${url}: HTTP ${response.status} ${response.statusText}`.trim(),
  webPage: (url) => `${url} sent a web page, not the file: check that the link points at the file itself ` +
    '(on Hugging Face, a /resolve/ link rather than /blob/)',
};

// One HTTP download as an async iterable of Uint8Array chunks (nothing is requested before the first is asked for).
// Clear messages for the usual failures, the stall timeout and the size bound (each names its own figure).
// options: signal (an AbortSignal) to cancel; meta, filled in once the headers are in: total, the declared size (0 if
// unknown), and type, the Content-Type; limit, the most bytes accepted (default MAX_BYTES), and most, what that
// bound is, for the message (default: what the browser engine can hold); wording: messages (MODEL_WORDING's).
// The stall clock runs only while the network is awaited, never while the reader is busy with a chunk.
export async function* download(url, { signal, meta = {}, limit = MAX_BYTES, most = ENGINE_HOLDS,
  wording = MODEL_WORDING } = {}) {
  const controller = new AbortController();
  let why = null, timer = 0, loaded = 0;
  const stop = (error) => { why ??= error; controller.abort(why); };
  const cancel = () => stop(new Error(`the download of ${url} was cancelled`));
  const of = () => (meta.total ? ` of ${formatBytes(meta.total)}` : '');
  const stalled = (s = stallMs / 1000) => new Error(`the download of ${url} stalled: ${loaded
    ? `no data for ${s} s (received ${formatBytes(loaded)}${of()})` : `no answer from the server for ${s} s`}`);
  const tooLarge = (size) => new Error(`${url} is larger than ${formatBytes(limit)}, the most ${most}` +
    (size ? ` (it is ${formatBytes(size)})` : ''));
  const watch = (on) => { clearTimeout(timer); if (on) timer = setTimeout(() => stop(stalled()), stallMs); };
  meta.total = 0;
  meta.type = '';
  if (signal?.aborted) cancel();
  signal?.addEventListener('abort', cancel);
  let response = null, reader = null;
  try {
    watch(true);
    try {
      response = await fetch(url, { signal: controller.signal });
    } catch (e) {
      throw why ?? Object.assign(new Error(wording.unreachable(url, e)), { cause: e });
    }
    watch(false);
    if (!response.ok) throw new Error(wording.status(url, response));
    // A compressed body's Content-Length counts compressed bytes: no use as the file's size.
    const encoded = (response.headers.get('Content-Encoding') || 'identity') !== 'identity';
    meta.total = encoded ? 0 : Number(response.headers.get('Content-Length')) || 0;
    meta.type = response.headers.get('Content-Type') ?? '';
    if (meta.total > limit) throw tooLarge(meta.total);
    if (!response.body) { // no stream to count as it comes (a body-less status): checked whole
      const whole = new Uint8Array(await response.arrayBuffer());
      if (whole.length > limit) throw tooLarge(whole.length);
      yield whole;
      return;
    }
    reader = response.body.getReader();
    for (;;) {
      watch(true);
      let next;
      try {
        next = await reader.read();
      } catch (e) {
        throw why ?? new Error(`the download of ${url} broke off after ${formatBytes(loaded)}${of()} (${e.message})`);
      }
      watch(false);
      if (next.done) return;
      if (loaded === 0 && looksLikeWebPage(next.value)) throw new Error(wording.webPage(url));
      loaded += next.value.length;
      if (loaded > limit) throw tooLarge();
      yield next.value;
    }
  } finally {
    watch(false);
    signal?.removeEventListener('abort', cancel);
    (reader ?? response?.body)?.cancel().catch(() => {}); // stops the transfer when the reader gives up early
  }
}

// An HTML page (a login page, a viewer page, a server's fallback) where a file was expected. No model format
// starts like this: .arcs files start with ARCSCOPE, safetensors with a small number, config.json with "{".
function looksLikeWebPage(bytes) {
  return /^\s*<(!doctype html|html|head|body)/i.test(new TextDecoder().decode(bytes.subarray(0, 64)));
}

// A checkpoint as the converter reads it: {configText, size, chunks: async iterable of model.safetensors}.
// source is {safetensorsUrl, configUrl} or {files: [File, File]} (model.safetensors + config.json, any order).
// Nothing holds the whole checkpoint: the download (or the file) streams straight into the converter.
export async function openCheckpoint(source, { progress = () => {}, signal } = {}) {
  if (source.files) {
    const files = [...source.files];
    const config = files.find((f) => f.name.endsWith('.json'));
    const weights = files.find((f) => f.name.endsWith('.safetensors'));
    if (!weights) throw new Error('pick the checkpoint\'s model.safetensors (and its config.json)');
    if (!config) throw new Error('pick the checkpoint\'s config.json too: it holds the model\'s shape');
    return { configText: await config.text(), size: weights.size, chunks: weights.stream() };
  }
  const configBytes = await fetchBytes(source.configUrl, 'downloading config.json',
    { progress, signal, limit: CONFIG_BYTES, most: 'a config.json may be' });
  // The headers first: the converter checks the header against the length before it allocates anything. The
  // status names this download from its start, not the config.json before it, while the server is waited for.
  const stage = `downloading ${nameOf(source.safetensorsUrl)}`;
  progress({ stage, loaded: 0, total: 0 });
  const meta = {};
  const body = download(source.safetensorsUrl, { signal, meta });
  const first = await body.next();
  if (!meta.total) {
    await body.return();
    throw new Error(`${source.safetensorsUrl}: the server did not say how long the file is (no Content-Length, or a ` +
      'compressed body); arcscope needs the length to check the checkpoint before converting it');
  }
  progress({ stage, loaded: first.done ? 0 : first.value.length, total: meta.total });
  // The first chunk, then the rest; ending it early (return) ends the download, whether it was read or not.
  let pending = first.done ? null : first;
  const chunks = {
    [Symbol.asyncIterator]() { return this; },
    next() { const chunk = pending; pending = null; return chunk ? Promise.resolve(chunk) : body.next(); },
    return(value) { pending = null; return body.return(value); },
  };
  return { configText: new TextDecoder().decode(configBytes), size: meta.total, chunks };
}

// Ends an async generator or a ReadableStream that may be part-read (a no-op on one already done).
function close(chunks) {
  const ended = chunks.cancel?.() ?? chunks.return?.();
  Promise.resolve(ended).catch(() => {});
}

// The weight formats a checkpoint converts to (convertCheckpoint's dtype, a loaded model's config.dtype); the page's
// loader offers each (web/js/model-formats.js).
export const DTYPES = ['q8', 'q16', 'f32'];
const FORMAT_PREFIX = /^(q8|q16|f32):/;

// The key of a checkpoint's conversion to dtype, in the worker, in Cache Storage and in links: 'q16:' or 'f32:' before
// the checkpoint's own key (its model.safetensors URL, or local:NAME:SIZE for a picked file), so that one checkpoint's
// conversions never share a key. A q8 conversion keeps the bare key, as every conversion was kept before q16 existed,
// so those links and cached conversions still open. A format prefix already on key is replaced.
export function convertedKey(key, dtype = 'q8') {
  if (!DTYPES.includes(dtype)) throw new Error(`dtype must be q8, q16 or f32, got '${dtype}'`);
  const base = String(key).replace(FORMAT_PREFIX, '');
  return dtype === 'q8' ? base : `${dtype}:${base}`;
}

// convertedKey's inverse: {key: the checkpoint's own key, dtype} ('q8' when key names no format).
export function parseConvertedKey(key) {
  const m = FORMAT_PREFIX.exec(key);
  return m ? { key: key.slice(m[0].length), dtype: m[1] } : { key, dtype: 'q8' };
}

// Converts a checkpoint to an .arcs model in dtype's format (default q8), caches it under convertedKey(key, dtype),
// returns its bytes. convert is the engine's convertCheckpoint (the worker runs it in the engine's turns);
// options: {dtype, progress, signal}.
export async function convertToModel(convert, source, key, { dtype = 'q8', progress = () => {}, signal } = {}) {
  const cacheKey = convertedKey(key, dtype);
  const cached = await cachedModel(cacheKey);
  if (cached) return cached;
  const checkpoint = await openCheckpoint(source, { progress, signal });
  const stages = { header: 'reading the header', tensors: `converting to ${dtype}`, checksum: 'checking', done: 'converted' };
  let last = 0;
  // However the conversion ends, its download (or file stream) ends with it: a converter that refused the header
  // before reading a chunk leaves no connection open and no chunk held. (convert frees the converter itself.)
  const bytes = await convert({
    config: checkpoint.configText,
    chunks: checkpoint.chunks,
    dtype,
    totalBytes: checkpoint.size,
    onProgress: ({ stage, bytesDone, bytesTotal }) => {
      if (bytesDone - last < 4 << 20 && stage === 'tensors') return; // a report every 4 MB is plenty
      last = bytesDone;
      progress({ stage: `${source.files ? 'reading' : 'downloading'} and ${stages[stage] || stage}`,
        loaded: bytesDone, total: bytesTotal || checkpoint.size });
    },
  }).finally(() => close(checkpoint.chunks));
  progress({ stage: 'saving to the browser cache', loaded: bytes.length, total: bytes.length });
  await storeModel(cacheKey, bytes);
  return bytes;
}

// The file name shown for a model URL. Never throws: a "%" that is not an escape (as in "100%ZZ.arcs") stays as written.
// A file picked from disk (local:NAME:SIZE, perhaps after a format: convertedKey) is shown by its NAME, never the key.
export function nameOf(url) {
  const local = /^local:(.*):\d+$/.exec(parseConvertedKey(String(url)).key);
  if (local) return local[1] || String(url);
  const path = String(url).split(/[?#]/)[0];
  const last = path.slice(path.lastIndexOf('/') + 1);
  let name = last;
  try { name = decodeURIComponent(last); } catch { /* keep it as written */ }
  return name || String(url);
}
