// load-stream.js: an .arcs file loaded as its bytes arrive, written straight into the engine's memory and summed
// there on the way (RunningChecksum, include/arcscope/formats/model_file.h).
import { engineCall, numberArg } from './calls.js';
import { asChunks, knownLength } from './chunks.js';
import { modelFromHandle } from './model.js';

// An .arcs file as it arrives -> Model, written straight into the engine's memory: JavaScript never holds the whole
// file (a 1.76 GB GPT-2 XL loads with one copy, not two). chunks: as convertCheckpoint's (a stream, an async
// iterable, bytes); totalBytes: the file's length (Content-Length, File.size, a cached Response's); options:
// {kvCache, onProgress({bytesDone, bytesTotal})}. Validated as loadModel validates.
export async function loadModelStream(core, { chunks, totalBytes, kvCache = 'f32', onProgress = null } = {},
  tokenizer = null) {
  if (chunks == null) throw new Error('loadModelStream needs chunks (the .arcs file\'s bytes)');
  if (totalBytes === undefined) totalBytes = knownLength(chunks);
  numberArg(totalBytes, 'totalBytes', 'a number (the length of the .arcs file in bytes)');
  const loader = engineCall('loading a model', () => core.ModelLoader.create(totalBytes));
  try {
    const at = loader.address();
    let written = 0, summed = 0;
    for await (const chunk of asChunks(chunks, 'the .arcs file')) {
      if (chunk.length > totalBytes - written) {
        throw new Error(`the model file is longer than its announced ${totalBytes} bytes`);
      }
      heapBytes(core).set(chunk, at + written);
      written += chunk.length;
      // The checksum as the file arrives: while the next chunk is read, not in one pass at the end.
      if (written - summed >= SUM_BYTES) engineCall('loading a model', () => loader.sum(written)), summed = written;
      onProgress?.({ bytesDone: written, bytesTotal: totalBytes });
    }
    return modelFromHandle(core, engineCall('loading a model', () => loader.finish(written)), tokenizer, kvCache);
  } finally {
    loader.delete();
  }
}

// How many bytes arrive between two sums: a few calls into wasm for a large file, none for a small one.
const SUM_BYTES = 4 << 20;

// The engine's memory as bytes, as it is now. The plain module refreshes HEAPU8 whenever its memory grows; the threaded
// one grows it from any thread, and only that thread's HEAPU8 follows: its Memory object's buffer is the current one.
const heapBytes = (core) => (core.wasmMemory && core.wasmMemory.buffer !== core.HEAPU8.buffer
  ? new Uint8Array(core.wasmMemory.buffer) : core.HEAPU8);
