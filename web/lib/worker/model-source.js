// model-source.js: where model bytes come from, in the worker. A model URL (an .arcs file), a cached conversion,
// or a Hugging Face checkpoint (model.safetensors + config.json, from URLs or local Files) converted in the browser.
// Converted models are kept in Cache Storage so the next visit loads them in about a second.
import { CHECKPOINT_BYTES, CHECKPOINT_MOST, CONFIG_BYTES, download, fetchBytes } from '../shared/downloads.js';
import { cachedModel, convertedKey, nameOf, storeModel } from '../shared/model-cache.js';

// Bytes of an .arcs model URL, or of a model cached under that key. ctx: {progress, signal} (signal cancels).
export async function loadModelBytes(url, ctx = {}) {
  const cached = await cachedModel(url);
  if (cached) return { bytes: cached, name: nameOf(url), cached: true };
  const bytes = await fetchBytes(url, 'downloading model', ctx);
  return { bytes, name: nameOf(url), cached: false };
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
  const body = download(source.safetensorsUrl, { signal, meta, limit: CHECKPOINT_BYTES, most: CHECKPOINT_MOST });
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
