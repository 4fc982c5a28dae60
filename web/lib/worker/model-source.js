// model-source.js: where model bytes come from, in the worker, as streams that go straight into the engine: a model
// URL (an .arcs file), a converted model kept in Cache Storage, or a Hugging Face checkpoint (model.safetensors +
// config.json, from URLs or local Files) for the converter. Nothing here holds a whole file.
import { CHECKPOINT_BYTES, CHECKPOINT_MOST, CONFIG_BYTES, download, fetchBytes } from '../shared/downloads.js';
import { cachedModel, convertedKey, nameOf, parseConvertedKey, storeModel } from '../shared/model-cache.js';
import { throttledProgress } from '../shared/progress.js';

// An .arcs file to load: {chunks, totalBytes, name, cached}, from Cache Storage if kept under key `url`, else
// downloaded. ctx: {progress, signal} (signal cancels).
export async function openModelFile(url, { progress = () => {}, signal } = {}) {
  const name = nameOf(url), cached = await cachedModel(url);
  if (cached) return { ...cached, name, cached: true };
  // A file picked from disk (local:NAME:SIZE) exists only where it was picked: there is nothing to download.
  if (/^local:/.test(parseConvertedKey(String(url)).key)) {
    throw new Error(`${name} (${url}) is a model file picked from disk, and it is not loaded here nor kept in this ` +
      'browser\'s cache: pick the file again (loadModelBytes) before using its key');
  }
  const stage = 'downloading model';
  const report = throttledProgress(progress);
  report({ stage, loaded: 0, total: 0 });
  const meta = {};
  const body = download(url, { signal, meta, reuse: true });  // each chunk goes into the engine before the next
  const first = await body.next();
  let loaded = first.done ? 0 : first.value.length;
  async function* counted() {
    for await (const chunk of withFirst(first, body)) {
      loaded += chunk === first.value ? 0 : chunk.length;
      report({ stage, loaded, total: meta.total });
      yield chunk;
    }
  }
  if (meta.total) return { chunks: counted(), totalBytes: meta.total, name, cached: false };
  // No length to size the engine's buffer by (a compressed body): the file is gathered first.
  const parts = [];
  for await (const chunk of counted()) parts.push(chunk.slice());  // (a reused buffer's chunk: copied)
  const bytes = new Uint8Array(loaded);
  parts.reduce((at, part) => (bytes.set(part, at), at + part.length), 0);
  return { chunks: bytes, totalBytes: bytes.length, name, cached: false };
}

// The chunks of a download whose first chunk was already read; ending early (return) ends the download.
function withFirst(first, rest) {
  let pending = first.done ? null : first;
  return {
    [Symbol.asyncIterator]() { return this; },
    next() { const chunk = pending; pending = null; return chunk ? Promise.resolve(chunk) : rest.next(); },
    return(value) { pending = null; return rest.return(value); },
  };
}

// A checkpoint as the converter reads it: {configText, tokenizerFiles, size, chunks: async iterable of
// model.safetensors}, or for a sharded one {configText, tokenizerFiles, index (its text), shards} (shards as
// convertCheckpoint takes them: a Map of picked Files, or a function that downloads each shard when the converter
// reaches it). source is {safetensorsUrl, configUrl}, {indexUrl, configUrl} or {files: [File, File, ...]}
// (model.safetensors, or model.safetensors.index.json and its shards, + config.json, and tokenizer.json +
// tokenizer_config.json where picked, any order), with configText where config.json was read already. From URLs, a
// model.safetensors the server does not have (404) is looked for as model.safetensors.index.json beside it, as
// Hugging Face serves a sharded checkpoint. tokenizerFiles: checkpointTokenizer's. Nothing holds the whole checkpoint:
// each download (or file) streams straight into the converter.
export async function openCheckpoint(source, { progress = () => {}, signal } = {}) {
  const configText = await checkpointConfig(source, { progress, signal });
  const tokenizerFiles = await checkpointTokenizer(source, configText, { progress, signal });
  if (source.files) {
    const files = [...source.files];
    const index = files.find((f) => f.name === INDEX_FILE);
    const weights = files.filter((f) => f.name.endsWith('.safetensors'));
    if (!index) return { configText, tokenizerFiles, size: weights[0].size, chunks: weights[0].stream() };
    const shards = new Map(weights.map((f) => [f.name, { chunks: f.stream(), totalBytes: f.size }]));
    return { configText, tokenizerFiles, index: await index.text(), shards };
  }
  if (!source.indexUrl) {
    const file = await openDownload(source.safetensorsUrl, { progress, signal }).catch((e) => {
      if (e.status !== 404) throw e;
      return null;  // no such file: a sharded checkpoint's index, beside it, is looked for
    });
    if (file) return { configText, tokenizerFiles, size: file.totalBytes, chunks: file.chunks };
  }
  const indexUrl = source.indexUrl ?? beside(source.safetensorsUrl, INDEX_FILE);
  const index = await fetchBytes(indexUrl, `downloading ${INDEX_FILE}`, { progress, signal, limit: INDEX_BYTES,
    most: `a ${INDEX_FILE} may be` }).catch((e) => {
    if (e.status === 404 && !source.indexUrl) {
      throw new Error(`${source.safetensorsUrl} is not there (HTTP 404), and neither is ${INDEX_FILE} beside it: ` +
        'give the URL of the checkpoint\'s model.safetensors, or of its index for a sharded one');
    }
    throw e;
  });
  const shards = (name) => openDownload(beside(indexUrl, name), { progress, signal });
  return { configText, tokenizerFiles, index: new TextDecoder().decode(index), shards };
}

// A sharded checkpoint's index, and how large one may be (Llama 3.1 405B's is about 120 kB).
const INDEX_FILE = 'model.safetensors.index.json';
const INDEX_BYTES = 16e6;

// One safetensors download as the converter takes it: {chunks, totalBytes}, its first chunk read (the headers give
// the length, which the converter checks the header against before it allocates anything). The status names this
// download from its start, not the file before it, while the server is waited for.
async function openDownload(url, { progress, signal }) {
  const stage = `downloading ${nameOf(url)}`;
  progress({ stage, loaded: 0, total: 0 });
  const meta = {};
  const body = download(url, { signal, meta, limit: CHECKPOINT_BYTES, most: CHECKPOINT_MOST,
    reuse: true });  // each chunk goes into the converter before the next is read
  const first = await body.next();
  if (!meta.total) {
    await body.return();
    throw new Error(`${url}: the server did not say how long the file is (no Content-Length, or a ` +
      'compressed body); arcscope needs the length to check the checkpoint before converting it');
  }
  progress({ stage, loaded: first.done ? 0 : first.value.length, total: meta.total });
  return { chunks: withFirst(first, body), totalBytes: meta.total };
}

// The tokenizer a checkpoint's model is to carry: {json, config} (tokenizer.json's and tokenizer_config.json's
// texts, config null where there is none); null for a GPT-2 (its tokenizer is built in); for a checkpoint without
// tokenizer.json, {json: null, missing: what that means} (the model then carries none; progress says so too). From
// URLs, the two files beside config.json (a 404 means the file is not there; any other failure is an error); from
// picked files, the ones of those names.
export async function checkpointTokenizer(source, configText, { progress = () => {}, signal } = {}) {
  if (isGpt2Config(configText)) return null;
  let json, config;
  if (source.files) {
    const named = (name) => [...source.files].find((f) => f.name === name)?.text() ?? null;
    [json, config] = await Promise.all([named('tokenizer.json'), named('tokenizer_config.json')]);
  } else {
    const optional = (name) => fetchBytes(beside(source.configUrl, name), `downloading ${name}`,
      { progress, signal, limit: TOKENIZER_BYTES, most: `a ${name} the converter carries may be` })
      .then((bytes) => new TextDecoder().decode(bytes), (e) => { if (e.status === 404) return null; throw e; });
    [json, config] = [await optional('tokenizer.json'), await optional('tokenizer_config.json')];
  }
  if (json === null) {
    const missing = `no tokenizer.json ${source.files ? 'was picked' : 'beside config.json'}: the model carries no ` +
      'tokenizer, so it takes token ids rather than text';
    progress({ stage: missing, loaded: 0, total: 0 });
    return { json: null, config: null, missing };
  }
  return { json, config };
}

const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json'];
// The .arcs format carries each tokenizer file up to 64 MiB (Llama 3's tokenizer.json is 9 MB, Gemma 3's 33 MB).
const TOKENIZER_BYTES = 64 * 2 ** 20;

// A file's URL in the same folder as url's (its query kept: a signed or versioned link).
const beside = (url, name) => String(url).replace(/[^/?#]*(?=([?#].*)?$)/, name);

// Whether config.json is a GPT-2's, whose tokenizer is built into the engine: transformers' model_type "gpt2", or none
// (the converter reads a config without model_type as GPT-2's). A config that does not parse is the converter's to
// refuse, in its words.
function isGpt2Config(configText) {
  try {
    const type = JSON.parse(configText)?.model_type;
    return type === undefined || type === 'gpt2';
  } catch {
    return true;
  }
}

// A checkpoint's config.json text (source as openCheckpoint's): a few kilobytes, read before the weights, and what
// the default format is chosen by.
export async function checkpointConfig(source, { progress = () => {}, signal } = {}) {
  checkSource(source);
  if (source.configText !== undefined) return source.configText;
  if (source.files) {
    const files = [...source.files];
    // config.json by name, else the one .json that is not a tokenizer's (a copy renamed "config (1).json").
    const config = files.find((f) => f.name === 'config.json') ??
      files.find((f) => f.name.endsWith('.json') && !TOKENIZER_FILES.includes(f.name) && f.name !== INDEX_FILE);
    if (!files.some((f) => f.name.endsWith('.safetensors'))) {
      throw new Error('pick the checkpoint\'s model.safetensors, or its model.safetensors.index.json and shards (and ' +
        'its config.json)');
    }
    if (!config) throw new Error('pick the checkpoint\'s config.json too: it holds the model\'s shape');
    return config.text();
  }
  const bytes = await fetchBytes(source.configUrl, 'downloading config.json',
    { progress, signal, limit: CONFIG_BYTES, most: 'a config.json may be' });
  return new TextDecoder().decode(bytes);
}

// A checkpoint source as openCheckpoint takes it, or an Error saying what one is: without this, a source missing its
// URLs was downloaded from "undefined" (a request for /undefined) and blamed on the network.
function checkSource(source) {
  const isUrl = (u) => (typeof u === 'string' && u !== '') || u instanceof URL;
  const files = source?.files;
  if (files !== undefined && files !== null) {
    const picked = typeof files[Symbol.iterator] === 'function' && [...files];
    if (picked && picked.every((f) => f instanceof Blob && 'name' in f)) return;
    throw new Error('a checkpoint\'s files must be the File objects of its model.safetensors (or its index and ' +
      'shards) and config.json');
  }
  const needed = isUrl(source?.indexUrl) ? ['configUrl'] : ['safetensorsUrl', 'configUrl'];
  const missing = needed.filter((k) => !isUrl(source?.[k]));
  if (missing.length === 0) return;
  throw new Error(`a checkpoint source is {safetensorsUrl, configUrl} (the URLs of its model.safetensors and ` +
    `config.json), {indexUrl, configUrl} (a sharded one's model.safetensors.index.json) or {files} (the files ` +
    `picked from disk); ${source === null || typeof source !== 'object'
      ? `got ${source === null ? 'null' : typeof source}` : `this one has no ${missing.join(' and no ')}`}`);
}

// Ends an async generator or a ReadableStream that may be part-read (a no-op on one already done).
function close(chunks) {
  const ended = chunks.cancel?.() ?? chunks.return?.();
  Promise.resolve(ended).catch(() => {});
}

// A checkpoint converted to a model in dtype's format and kept in Cache Storage under
// convertedKey(key, dtype); one kept there is loaded instead. loader: what the worker lends for it, {convert(options):
// the engine's convertToModel (the worker runs it in the engine's turns) -> a Model, load({chunks, totalBytes}): a kept
// file into the engine -> a Model, makeRoom(bytes): frees what must go before a model of that size arrives,
// noted(text): what the user should know of the converted model (it carries no tokenizer), stored(kept): told
// whether Cache Storage took it}; options: {dtype, progress, signal}. -> the Model
export async function convertAndKeep(loader, source, key, { dtype, progress = () => {}, signal } = {}) {
  const cacheKey = convertedKey(key, dtype);
  const cached = await cachedModel(cacheKey);
  if (cached) return loader.load(cached);
  const checkpoint = await openCheckpoint(source, { progress, signal });
  const stages = { header: 'reading the header', tensors: `converting to ${dtype}`, checksum: 'checking', done: 'converted' };
  const report = throttledProgress(progress, 4 << 20);
  let roomMade = false;
  // However the conversion ends, its download (or file stream) ends with it: a converter that refused the header
  // before reading a chunk leaves no connection open and no chunk held. (convert frees the converter itself, and
  // ends the shards it opened or never reached.)
  const doing = source.files ? 'reading' : 'downloading';
  const model = await loader.convert({
    config: checkpoint.configText,
    tokenizerFiles: checkpoint.tokenizerFiles?.json ? checkpoint.tokenizerFiles : null,
    ...(checkpoint.shards ? { index: checkpoint.index, shards: checkpoint.shards }
      : { chunks: checkpoint.chunks, totalBytes: checkpoint.size }),
    dtype,
    onProgress: ({ stage, bytesDone, bytesTotal, outputBytes, shard }) => {
      if (!roomMade && outputBytes > 0) loader.makeRoom?.(outputBytes), roomMade = true;  // the header's size
      // A shard's own bytes, with which it is: a download's total is known only once it starts. The checksum and
      // the end are the whole file's.
      report(shard && (stage === 'header' || stage === 'tensors')
        ? { stage: `shard ${shard.number} of ${shard.count}, ${doing} ${shard.name} and ${stages[stage] || stage}`,
          loaded: shard.bytesDone, total: shard.bytesTotal }
        : { stage: `${doing} and ${stages[stage] || stage}`, loaded: bytesDone, total: bytesTotal || checkpoint.size });
    },
  }).finally(() => checkpoint.chunks && close(checkpoint.chunks));
  if (checkpoint.tokenizerFiles?.missing) loader.noted?.(checkpoint.tokenizerFiles.missing);
  const kept = await keepModel(cacheKey, model, progress);  // (not inside stored?.(): that would skip it)
  loader.stored?.(kept);
  return model;
}

// Keeps a loaded model's file in Cache Storage under key, read from the engine's memory a piece at a time.
// -> whether the browser kept it
export async function keepModel(key, model, progress = () => {}) {
  progress({ stage: 'saving to the browser cache', loaded: 0, total: model.fileBytes });
  return storeModel(key, model.fileStream(), model.fileBytes);
}
