// convert.js: a Hugging Face checkpoint converted in the engine, by the same streaming C++ converter as
// `arcscope convert`, to .arcs bytes or to a Model run where the converter wrote it.
import { described, engineCall, numberArg } from './calls.js';
import { asChunks, knownLength } from './chunks.js';
import { modelFromHandle } from './model.js';

// Chunks go into wasm a megabyte at a time, whatever size the stream hands out.
const FEED_BYTES = 1 << 20;

// Hugging Face checkpoint -> .arcs bytes, with the same streaming C++ converter as `arcscope convert`.
//   config: config.json as an object or its text; chunks: model.safetensors as an async iterable of Uint8Array
//   (or a ReadableStream, or one Uint8Array, or an array of them); dtype: 'q16' (14-bit weights in int16 for GPT-2,
//   16-bit for the others) | 'q8' (int8 weights) | 'f32' (float32 weights, exact); without it, the default for the
//   checkpoint's shape: q16, or q8 where q16's file would pass 2 GiB (GPT-2 XL), as `arcscope convert` chooses
//   (src/formats/default_format.cpp);
//   totalBytes: the length of model.safetensors (File.size, Content-Length). Needed for a stream or iterable: the
//   converter checks the header against it before it allocates the output, so a small file that claims gigabytes
//   is refused at once;
//   or, for a sharded checkpoint, index and shards instead of chunks and totalBytes: index is
//   model.safetensors.index.json (text or object); shards gives each file it lists, as an object or a Map of
//   name -> {chunks, totalBytes} (or the bytes alone), or a function name -> that (or a promise of it), called
//   for each shard when the converter reaches it (so a download starts only then). The converter reads the shards
//   in the order of their names, each once; one the index lists that shards lacks, one it does not list, or one
//   whose length is not its header's is refused by name;
//   onProgress({stage: 'header' | 'tensors' | 'checksum' | 'done', bytesDone, bytesTotal, outputBytes, shard})
//   after each megabyte, bytesDone and bytesTotal over every file (bytesTotal: the lengths known so far: every
//   shard's from the start where shards is an object or a Map), shard {name, number, count, bytesDone, bytesTotal}
//   for shards, the one being read and its own bytes (null for one file);
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
  return engineCall('reading config.json', () => core.ModelConverter.defaultDtype(jsonText(config)));
}

// A JSON file given as its text or as the object it holds (config.json, the index, the tokenizer's files) -> its text.
const jsonText = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

// The one conversion loop of both layouts: a file at a time (model.safetensors alone, or each shard after
// beginShard), fed a megabyte at a time.
async function runConverter(core, options = {}, finish) {
  const { config, dtype, tokenizerFiles = null, onProgress = null } = options;
  if (config == null) throw new Error('convertCheckpoint needs config (config.json as an object or text)');
  const files = checkpointFiles(options);
  let conv = null;
  try {
    conv = files.sharded
      ? core.ModelConverter.createSharded(jsonText(config), dtype, jsonText(options.index))
      : core.ModelConverter.create(jsonText(config), dtype, files.first.totalBytes);
    const names = files.sharded ? conv.shards() : ['model.safetensors'];
    files.check?.(names);
    if (tokenizerFiles) {
      const text = (file) => (file == null ? file : jsonText(file));
      engineCall('starting the conversion', () => conv.carryTokenizer(text(tokenizerFiles.json), text(tokenizerFiles.config)));
    }
    let shard = null, shardStart = 0;
    const report = (stage) => {
      if (shard) shard.bytesDone = conv.bytesDone() - shardStart;
      onProgress?.({ stage, bytesDone: conv.bytesDone(), bytesTotal: files.knownBytes(), outputBytes: conv.outputBytes(),
        shard: shard && { ...shard } });
    };
    for (let i = 0; i < names.length; i++) {
      const name = names[i], before = conv.bytesDone();
      const { chunks, totalBytes } = await files.open(name);
      if (files.sharded) {
        shard = { name, number: i + 1, count: names.length, bytesDone: 0, bytesTotal: totalBytes };
        shardStart = before;
        try {
          namingFile(name, () => engineCall('converting the checkpoint', () => conv.beginShard(name, totalBytes)));
        } catch (error) {
          closeChunks(chunks);  // opened, never read
          throw error;
        }
      }
      await namingFile(files.sharded && name, async () => {
        for await (const chunk of asChunks(chunks, name)) {
          for (let at = 0; at < chunk.length; at += FEED_BYTES) {
            engineCall('converting the checkpoint', () => conv.feed(chunk.subarray(at, Math.min(chunk.length, at + FEED_BYTES))));
            report(conv.stage());
          }
        }
      });
      // A shard that ended early is named here, not as the next one begins (one file: finish() says so).
      const got = conv.bytesDone() - before;
      if (files.sharded && got !== totalBytes) {
        throw new Error(`truncated checkpoint: ${name}: got ${got} of its ${totalBytes} bytes`);
      }
    }
    report('checksum');
    const out = engineCall('finishing the conversion', () => finish(conv));
    report('done');
    return out;
  } finally {
    conv?.delete();
    files.closeUnread();
  }
}

// An error of the engine's about one file, its message beginning with the file's name where it does not say it
// (the converter names a shard in most messages, not in all). Its kind and cause are kept: a crash stays a crash.
function namingFile(name, fn) {
  const named = (error) => {
    if (name && error instanceof Error && !error.message.includes(name)) error.message = `${name}: ${error.message}`;
    throw error;
  };
  try {
    const out = fn();
    return out instanceof Promise ? out.catch(named) : out;
  } catch (error) {
    return named(error);
  }
}

// The files a conversion reads, from its options: {sharded, first (one file's source), check(names): shards against
// the index's list, open(name) -> {chunks, totalBytes}, knownBytes(): the sum of the lengths known so far,
// closeUnread(): ends the streams of shards never reached}. One model.safetensors is the same loop's one file.
function checkpointFiles({ chunks, totalBytes, index, shards }) {
  if (index == null && shards == null) {
    if (chunks == null) throw new Error('convertCheckpoint needs chunks (the model.safetensors bytes), or index and ' +
      'shards for a sharded checkpoint (model.safetensors.index.json and its files)');
    const first = fileSource({ chunks, totalBytes }, 'model.safetensors', 'totalBytes');
    return { sharded: false, first, open: async () => first, knownBytes: () => first.totalBytes, closeUnread() {} };
  }
  if (chunks != null || totalBytes !== undefined) {
    throw new Error('convertCheckpoint takes chunks and totalBytes (one model.safetensors) or index and shards (a ' +
      'sharded checkpoint), not both');
  }
  if (index == null) throw new Error('convertCheckpoint needs index (model.safetensors.index.json) to read shards');
  if (typeof index !== 'string' && typeof index !== 'object') {
    throw new Error(`index must be model.safetensors.index.json as text or an object, got ${described(index)}`);
  }
  if (typeof shards === 'function') return calledShards(shards);
  const given = shards instanceof Map ? shards : shards !== null && typeof shards === 'object' && !Array.isArray(shards)
    ? new Map(Object.entries(shards)) : null;
  if (!given) {
    throw new Error(`shards must be an object or Map of each shard's name -> {chunks, totalBytes}, or a function of ` +
      `the name, got ${described(shards)}`);
  }
  const sourceOf = (name) => fileSource(sourceShape(given.get(name)), name, `shards['${name}'].totalBytes`);
  const opened = new Set();
  let sources = new Map();  // each listed shard's {chunks, totalBytes}, once the index's list is checked
  return {
    sharded: true,
    check(names) {  // before any byte is fed, so that nothing is read of a checkpoint that cannot convert
      const listed = ` (model.safetensors.index.json lists ${names.join(', ')})`;
      const extra = [...given.keys()].find((name) => !names.includes(name));
      if (extra !== undefined) throw new Error(`shards has ${extra}, which the index does not list${listed}`);
      const missing = names.find((name) => given.get(name) == null);
      if (missing !== undefined) throw new Error(`shards lacks ${missing}, which the index lists${listed}`);
      sources = new Map(names.map((name) => [name, sourceOf(name)]));
    },
    open: async (name) => (opened.add(name), sources.get(name)),
    knownBytes: () => [...sources.values()].reduce((sum, s) => sum + s.totalBytes, 0),
    closeUnread() {
      for (const [name, value] of given) if (!opened.has(name)) closeChunks(sourceShape(value)?.chunks);
    },
  };
}

// A shard's value as {chunks, totalBytes}: the bytes (or a stream) alone are its chunks.
const sourceShape = (value) => (value == null || value.chunks !== undefined ? value : { chunks: value });

// shards as a function: each shard asked for when the converter reaches it.
function calledShards(shards) {
  const lengths = [];
  return {
    sharded: true,
    async open(name) {
      const value = await shards(name);
      if (value == null) throw new Error(`shards('${name}') gave ${described(value)}: the index lists ${name}`);
      const source = fileSource(sourceShape(value), name, `totalBytes of ${name}`);
      lengths.push(source.totalBytes);
      return source;
    },
    knownBytes: () => lengths.reduce((a, b) => a + b, 0),
    closeUnread() {},
  };
}

// One file's {chunks, totalBytes}, its length taken from the bytes where it is not given, or an Error naming it.
function fileSource({ chunks, totalBytes }, name, what) {
  if (chunks == null) throw new Error(`${name}: no chunks (its bytes, or a stream of them)`);
  if (totalBytes === undefined) totalBytes = knownLength(chunks);
  else numberArg(totalBytes, what, `a number (the length of ${name} in bytes)`);
  if (totalBytes === undefined) {
    throw new Error(`convertCheckpoint needs ${what}, the length of ${name}, to check the checkpoint before ` +
      'converting it');
  }
  return { chunks, totalBytes };
}

// Ends a stream or an iterator never read (a shard the conversion did not reach), so its download stops or its
// file closes (a Node stream: destroy).
function closeChunks(chunks) {
  Promise.resolve(chunks?.cancel?.() ?? chunks?.return?.() ?? chunks?.destroy?.()).catch(() => {});
}
