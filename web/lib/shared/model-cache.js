// model-cache.js: converted models in Cache Storage, and the keys they are kept under. Used by the worker (which
// stores and reads them) and by the page (which asks whether a model is cached, and names it): Cache Storage is
// shared between them.

const CACHE = 'arcscope-models-v1';
// Cache Storage keys must be http(s) URLs; converted models live under a path nothing serves.
const cacheUrl = (key) => new URL(`/__arcscope_cache__/${encodeURIComponent(key)}`, self.location.href).href;

// Whether a conversion is cached.
export async function isCached(key) {
  try {
    return !!(await (await caches.open(CACHE)).match(cacheUrl(key)));
  } catch {
    return false;
  }
}

// A cached model as {chunks: ReadableStream of its bytes, totalBytes}, or null: read as it is loaded, never whole.
export async function cachedModel(key) {
  try {
    const cache = await caches.open(CACHE);
    const hit = await cache.match(cacheUrl(key));
    if (!hit) return null;
    const totalBytes = Number(hit.headers.get(SIZE_HEADER));
    if (hit.body && totalBytes > 0) return { chunks: hit.body, totalBytes };
    const bytes = new Uint8Array(await hit.arrayBuffer());  // kept by an earlier version, without its length
    return { chunks: bytes, totalBytes: bytes.length };
  } catch {
    return null; // no Cache Storage (opaque origin, private mode): just convert again
  }
}

// Keeps a model's file: body is its bytes or a ReadableStream of them (model.fileStream(): a file of gigabytes goes to
// disk a piece at a time); totalBytes its length. -> whether it was kept.
export async function storeModel(key, body, totalBytes = body.length) {
  try {
    const cache = await caches.open(CACHE);
    const headers = { 'Content-Type': 'application/octet-stream', [SIZE_HEADER]: String(totalBytes) };
    await cache.put(cacheUrl(key), new Response(body, { headers }));
    return true;
  } catch {
    return false; // quota or no Cache Storage: the model still works for this visit
  }
}
const SIZE_HEADER = 'X-Arcscope-Bytes';

// The weight formats a checkpoint converts to (convertCheckpoint's dtype, a loaded model's config.dtype); the page's
// loader offers each (web/tutorial/page/model-formats.js).
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
