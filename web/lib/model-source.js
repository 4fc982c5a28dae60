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

// Bytes of an .arcs model URL, or of a conversion cached under that key.
export async function loadModelBytes(url, progress) {
  const cached = await cachedModel(url);
  if (cached) return { bytes: cached, name: nameOf(url), cached: true };
  const bytes = await fetchBytes(url, 'downloading model', progress);
  return { bytes, name: nameOf(url), cached: false };
}

// Downloads with progress {stage, loaded, total}. Clear messages for the usual failures.
export async function fetchBytes(url, stage, progress) {
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new Error(`could not reach ${url} (offline, blocked by the page's security policy, or the server refuses ` +
      `cross-origin requests): ${e.message}`);
  }
  if (!response.ok) throw new Error(`could not download ${url}: HTTP ${response.status} ${response.statusText}`.trim());
  const total = Number(response.headers.get('Content-Length')) || 0;
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  let buffer = new Uint8Array(total || 1 << 20), loaded = 0, lastReport = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (loaded + value.length > buffer.length) {
      const bigger = new Uint8Array(Math.max(buffer.length * 2, loaded + value.length));
      bigger.set(buffer.subarray(0, loaded));
      buffer = bigger;
    }
    buffer.set(value, loaded);
    loaded += value.length;
    if (loaded - lastReport > 1 << 20) { progress({ stage, loaded, total }); lastReport = loaded; }
  }
  progress({ stage, loaded, total: total || loaded });
  return buffer.length === loaded ? buffer : buffer.slice(0, loaded);
}

// A checkpoint as the converter reads it: {configText, size, chunks: ReadableStream of model.safetensors}.
// source is {safetensorsUrl, configUrl} or {files: [File, File]} (model.safetensors + config.json, any order).
// Nothing holds the whole checkpoint: the download (or the file) streams straight into the converter.
export async function openCheckpoint(source, progress) {
  if (source.files) {
    const files = [...source.files];
    const config = files.find((f) => f.name.endsWith('.json'));
    const weights = files.find((f) => f.name.endsWith('.safetensors'));
    if (!weights) throw new Error('pick the checkpoint\'s model.safetensors (and its config.json)');
    if (!config) throw new Error('pick the checkpoint\'s config.json too: it holds the model\'s shape');
    return { configText: await config.text(), size: weights.size, chunks: weights.stream() };
  }
  const configText = new TextDecoder().decode(await fetchBytes(source.configUrl, 'downloading config.json', progress));
  let response;
  try {
    response = await fetch(source.safetensorsUrl);
  } catch (e) {
    throw new Error(`could not reach ${source.safetensorsUrl} (offline, blocked by the page's security policy, or ` +
      `the server refuses cross-origin requests): ${e.message}`);
  }
  if (!response.ok) throw new Error(`could not download ${source.safetensorsUrl}: HTTP ${response.status}`);
  return { configText, size: Number(response.headers.get('Content-Length')) || 0, chunks: response.body };
}

// Converts a checkpoint to an int8 .arcs model in the engine (streaming), caches it under key, returns its bytes.
export async function convertToModel(engine, source, key, progress) {
  const cached = await cachedModel(key);
  if (cached) return cached;
  const checkpoint = await openCheckpoint(source, progress);
  const stages = { header: 'reading the header', tensors: 'converting to int8', checksum: 'checking', done: 'converted' };
  let last = 0;
  const bytes = await engine.convertCheckpoint({
    config: checkpoint.configText,
    chunks: checkpoint.chunks,
    dtype: 'q8',
    onProgress: ({ stage, bytesDone, bytesTotal }) => {
      if (bytesDone - last < 4 << 20 && stage === 'tensors') return; // a report every 4 MB is plenty
      last = bytesDone;
      progress({ stage: `${source.files ? 'reading' : 'downloading'} and ${stages[stage] || stage}`,
        loaded: bytesDone, total: bytesTotal || checkpoint.size });
    },
  });
  progress({ stage: 'saving to the browser cache', loaded: bytes.length, total: bytes.length });
  await storeModel(key, bytes);
  return bytes;
}

// The file name shown for a model URL. Never throws: a "%" that is not an escape (as in "100%ZZ.arcs") stays as written.
export function nameOf(url) {
  const path = String(url).split(/[?#]/)[0];
  const last = path.slice(path.lastIndexOf('/') + 1);
  let name = last;
  try { name = decodeURIComponent(last); } catch { /* keep it as written */ }
  return name || String(url);
}
