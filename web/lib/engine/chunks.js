// chunks.js: a file's bytes as the loaders and the converter take them (one Uint8Array or ArrayBuffer, an array or
// async iterable of them, or a ReadableStream), read one chunk at a time and each checked to be bytes.
import { described } from './calls.js';

// The byte length of chunks given as bytes or an array of byte arrays; undefined for a stream.
export function knownLength(chunks) {
  if (chunks instanceof Uint8Array || chunks instanceof ArrayBuffer) return chunks.byteLength;
  if (Array.isArray(chunks)) return chunks.reduce((n, c) => n + (c?.byteLength ?? NaN), 0);
  return undefined;
}

// One chunk as bytes, or an Error: a number or a string would otherwise become that many zero bytes.
function chunkBytes(chunk, i, file) {
  if (chunk instanceof Uint8Array) return chunk;
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new Error(`chunk ${i} of ${file} is ${described(chunk)}: chunks must be Uint8Array or ArrayBuffer`);
}

// The chunks of source (bytes, an array or iterable of them, an async iterable, a ReadableStream) one at a time, each
// checked to be bytes. awaited wraps each wait for the next chunk: the worker passes its turns' pause, so that the
// engine serves other requests while a download is slow. A stream left early (an error, the consumer stopping) is
// cancelled, so its download stops too.
export async function* asChunks(source, file = 'model.safetensors', awaited = (next) => next) {
  if (source instanceof Uint8Array || source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    yield chunkBytes(source, 0, file);
    return;
  }
  let next, stop;
  if (source && typeof source.getReader === 'function' && !source[Symbol.asyncIterator]) {  // a ReadableStream
    const reader = source.getReader();
    next = () => reader.read();
    stop = () => reader.cancel().catch(() => {});
  } else if (typeof source === 'string' || !(source?.[Symbol.asyncIterator] || source?.[Symbol.iterator])) {
    throw new Error(`chunks is ${described(source)}: give ${file} as a Uint8Array, an ArrayBuffer, an array ` +
      'or async iterable of them, or a ReadableStream');
  } else {
    const it = source[Symbol.asyncIterator]?.() ?? source[Symbol.iterator]();
    next = async () => { const { done, value } = await it.next(); return { done, value: await value }; };
    stop = () => it.return?.();
  }
  let finished = false;
  try {
    for (let i = 0; ; i++) {
      const { done, value } = await awaited(next());
      if (done) { finished = true; return; }
      yield chunkBytes(value, i, file);
    }
  } finally {
    if (!finished) await stop();
  }
}
