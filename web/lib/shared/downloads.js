// downloads.js: every download arcscope makes, bounded in time and size, with clear messages. The worker fetches
// models and checkpoints with it, the page an <arc-scope src> file.
import { throttledProgress } from './progress.js';

// Downloads are abandoned when no byte arrives for this long, waiting for the answer or in the middle of the body:
// a server that never answers or stops sending must not leave the page waiting for ever. One clock for every
// download of this module's instance: the worker's (models, checkpoints; its configure op sets it) and the page's
// (an <arc-scope src> file). Tests shorten it.
let stallMs = 20_000;
// seconds: more than 0, at most a day (setTimeout's clock wraps past 24.8 days and would fire at once: every download
// would stall).
export function setStallTimeout(seconds) {
  if (typeof seconds !== 'number' || !(seconds > 0 && seconds <= 86_400)) {
    throw new RangeError(`stallSeconds must be a number of seconds above 0 and at most 86400, got ${
      typeof seconds === 'number' ? seconds : typeof seconds}`);
  }
  stallMs = seconds * 1000;
}
// Every download also has a size bound, counted in the bytes that arrive (decoded: a compressed body counts what
// it inflates to), so an endless stream or a compression bomb stops at the bound. A model: a wasm32 engine cannot
// hold a file beyond this. config.json: a GPT-2 config is about 1 kB.
export const MAX_BYTES = 2 ** 31;
const ENGINE_HOLDS = 'the browser engine can hold';
export const CONFIG_BYTES = 4e6;
// A checkpoint is not held: it streams through the converter, which judges the output it describes at its header (and
// refuses one the engine cannot address). So its bound is the output's: float32 weights past 16 GB convert to more
// than the 4 GB a wasm32 engine addresses, in any format. GPT-2 XL's 6.4 GB passes.
export const CHECKPOINT_BYTES = 2 ** 34;
export const CHECKPOINT_MOST = 'a GPT-2 checkpoint the browser engine could convert may be';

export function formatBytes(n) {
  if (!(n >= 0)) return '?';
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB`
    : n >= 1e3 ? `${(n / 1e3).toFixed(0)} kB` : `${n} B`;
}


// Downloads with progress {stage, loaded, total}; the other options are download()'s (limit, most, wording, meta).
// Memory grows with the bytes that arrived, whatever the server claims: the chunks are kept as they come and copied
// once into the result. With a declared size, that copy is made when half of it has arrived and the rest goes
// straight in, so a file the server announces truly costs at most one and a half times its size, never two.
export async function fetchBytes(url, stage, { progress = () => {}, meta = {}, ...options } = {}) {
  let chunks = [], buffer = null, loaded = 0;
  const report = throttledProgress(progress);
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
    report({ stage, loaded, total: meta.total });
  }
  report({ stage, loaded, total: meta.total || loaded });
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
  unreachable: (url, e) => `could not reach ${url} (offline, blocked by the page's Content-Security-Policy: its ` +
    `connect-src must allow this URL, or the server refuses cross-origin requests): ${e.message}`,
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
// reuse: each chunk is read into the same buffer (a BYOB reader, where the body allows one), so a caller that copies
// every chunk before asking for the next (into the engine) leaves no garbage behind: a 6.4 GB download read in 64 kB
// chunks otherwise leaves some 100,000 buffers for the collector, which in Chromium held over half a gigabyte at once.
export async function* download(url, { signal, meta = {}, limit = MAX_BYTES, most = ENGINE_HOLDS,
  wording = MODEL_WORDING, reuse = false } = {}) {
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
    if (!response.ok) throw Object.assign(new Error(wording.status(url, response)), { status: response.status });
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
    reader = reuse ? byobReader(response.body) : null;
    let buffer = reader && new ArrayBuffer(REUSED_BYTES);
    reader ??= response.body.getReader();
    for (;;) {
      watch(true);
      let next;
      try {
        next = await (buffer ? reader.read(new Uint8Array(buffer)) : reader.read());
        if (buffer && next.value) buffer = next.value.buffer;  // the same memory, handed back
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

// The one buffer a reusing download reads every chunk into.
const REUSED_BYTES = 1 << 20;

// A reader into buffers of the caller's, or null where the stream has none (not a byte stream).
function byobReader(body) {
  try {
    return body.getReader({ mode: 'byob' });
  } catch {
    return null;
  }
}

// An HTML page (a login page, a viewer page, a server's fallback) where a file was expected. No model format
// starts like this: .arcs files start with ARCSCOPE, safetensors with a small number, config.json with "{".
function looksLikeWebPage(bytes) {
  return /^\s*<(!doctype html|html|head|body)/i.test(new TextDecoder().decode(bytes.subarray(0, 64)));
}
