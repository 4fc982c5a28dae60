// convert.js: a Hugging Face checkpoint converted in the engine, by the same streaming C++ converter as
// `arcscope convert`, to .arcs bytes or to a Model run where the converter wrote it.
import { engineCall, numberArg } from './calls.js';
import { asChunks, knownLength } from './chunks.js';
import { modelFromHandle } from './model.js';

// Chunks go into wasm a megabyte at a time, whatever size the stream hands out.
const FEED_BYTES = 1 << 20;

// Hugging Face GPT-2 checkpoint -> .arcs bytes, with the same streaming C++ converter as `arcscope convert`.
//   config: config.json as an object or its text; chunks: model.safetensors as an async iterable of Uint8Array
//   (or a ReadableStream, or one Uint8Array, or an array of them); dtype: 'q16' (14-bit weights in int16) | 'q8'
//   (int8 weights) | 'f32' (float32 weights, exact); without it, the default for the checkpoint's shape: q16, or q8
//   where q16's file would pass 2 GiB (GPT-2 XL), as `arcscope convert` chooses (src/formats/default_format.cpp);
//   totalBytes: the length of model.safetensors (File.size, Content-Length). Needed for a stream or iterable: the
//   converter checks the header against it before it allocates the output, so a small file that claims gigabytes
//   is refused at once;
//   onProgress({stage: 'header' | 'tensors' | 'checksum' | 'done', bytesDone, bytesTotal}) after each megabyte;
//   tokenizerFiles: {json, config}, tokenizer.json's and tokenizer_config.json's texts (or objects), for the file to
//   carry, so the model is one file (any architecture but GPT-2, whose tokenizer is built in).
// wasm memory holds the output converted so far (in pages, allocated as data arrives) and one Conv1D matrix at a
// time, never the whole input; the output is handed to JavaScript page by page, each freed once copied.
export async function convertCheckpoint(core, options = {}) {
  return runConverter(core, options, (conv) => conv.finish());
}

// convertCheckpoint's conversion, kept in the engine as a Model that runs on the converted pages where they lie: the
// file is never copied, so converting GPT-2 XL to q8 holds its 1.76 GB and a few megabytes, not twice that.
// options as convertCheckpoint's, and kvCache; onProgress's reports also carry outputBytes, the model's size, from
// the header on (a caller can make room for it before the tensors arrive). model.fileStream() gives the file.
export async function convertToModel(core, options = {}, tokenizer = null) {
  const handle = await runConverter(core, options, (conv) => conv.finishModel());
  return modelFromHandle(core, handle, tokenizer, options.kvCache ?? 'f32');
}

// config.json (an object or its text) -> the dtype convertCheckpoint gives it without one ('q16' or 'q8').
export function defaultDtype(core, config) {
  return engineCall('reading config.json', () => core.ModelConverter.defaultDtype(configText(config)));
}

const configText = (config) => (typeof config === 'string' ? config : JSON.stringify(config));

async function runConverter(core, { config, chunks, dtype, totalBytes, tokenizerFiles = null, onProgress = null } = {},
  finish) {
  if (config == null) throw new Error('convertCheckpoint needs config (config.json as an object or text)');
  if (chunks == null) throw new Error('convertCheckpoint needs chunks (the model.safetensors bytes)');
  if (totalBytes === undefined) totalBytes = knownLength(chunks);
  else numberArg(totalBytes, 'totalBytes', 'a number (the length of model.safetensors in bytes)');
  if (totalBytes === undefined) {
    throw new Error('convertCheckpoint needs totalBytes, the length of model.safetensors, to check the checkpoint ' +
      'before converting it');
  }
  const conv = core.ModelConverter.create(configText(config), dtype, totalBytes);
  try {
    if (tokenizerFiles) {
      const text = (file) => (file == null || typeof file === 'string' ? file : JSON.stringify(file));
      engineCall('starting the conversion', () => conv.carryTokenizer(text(tokenizerFiles.json), text(tokenizerFiles.config)));
    }
    const report = (stage) => onProgress?.({ stage, bytesDone: conv.bytesDone(), bytesTotal: conv.bytesTotal(),
      outputBytes: conv.outputBytes() });
    for await (const chunk of asChunks(chunks)) {
      for (let at = 0; at < chunk.length; at += FEED_BYTES) {
        engineCall('converting the checkpoint', () => conv.feed(chunk.subarray(at, Math.min(chunk.length, at + FEED_BYTES))));
        report(conv.stage());
      }
    }
    report('checksum');
    const out = engineCall('finishing the conversion', () => finish(conv));
    report('done');
    return out;
  } finally {
    conv.delete();
  }
}
