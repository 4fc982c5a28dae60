// The wasm engine's side of the GPT-2 family reference tests (test_gpt2_family.py): an HF-layout checkpoint converted
// in wasm by engine.convertCheckpoint, streamed from the file as the page streams a download (or .arcs files loaded
// as they are), then one forward() and one runWithCache() over the same ids. Writes, per dtype, what
// `arcscope run --hooks all --cache-out DIR --logits-bin DIR/logits.f32` writes, so one reader takes both engines:
//   OUT/<dtype>/cache.json  {"T", "hooks": {name: shape}, "logits": [T, V], "attention": [L, H, T, T], "seconds": {...}}
//   OUT/<dtype>/<hook name>.f32, logits.f32 (forward's, every position), attention.f32 (forward's): raw little-endian
// Runs on the library as staged in build/lib (./scripts/build.sh wasm).
// Usage: node tests/reference/wasm_pass.mjs (--ckpt DIR --dtypes q8,q16,f32,default | --arcs FILE,...) --ids 1,2,3
//        --out DIR [--hooks all|none]
// (default: convertCheckpoint without a dtype, as the page converts a checkpoint; written under the dtype it chose.)
import { createReadStream, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../../build/lib/engine.js';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, a, i, all) =>
  (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []));
if (!(args.ckpt || args.arcs) || !args.ids || !args.out) {
  console.error('usage: node wasm_pass.mjs (--ckpt DIR --dtypes q8,q16,f32 | --arcs FILE,...) --ids 1,2,3 --out DIR [--hooks all|none]');
  process.exit(2);
}
const ids = args.ids.split(',').map(Number);
const engine = await createEngine();
const wasmBytes = () => engine.core.HEAPU8.buffer.byteLength;
const seconds = (t0) => +((performance.now() - t0) / 1000).toFixed(2);

function write(dir, name, floats) {
  writeFileSync(join(dir, `${name}.f32`), new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength));
}

// A checkpoint's dtype, or an .arcs file's path: that model's bytes.
async function modelBytes(source) {
  if (args.arcs) return new Uint8Array(readFileSync(source));
  const safetensors = join(args.ckpt, 'model.safetensors');
  return engine.convertCheckpoint({
    config: readFileSync(join(args.ckpt, 'config.json'), 'utf8'), dtype: source === 'default' ? undefined : source,
    chunks: createReadStream(safetensors, { highWaterMark: 1 << 20 }), totalBytes: statSync(safetensors).size,
  });
}

// The model, timed into timing; its bytes are dropped on return (the engine holds its own copy).
async function load(source, timing) {
  let t0 = performance.now();
  const bytes = await modelBytes(source);
  timing[args.arcs ? 'read' : 'convert'] = seconds(t0);
  t0 = performance.now();
  const model = engine.loadModel(bytes);
  timing.load = seconds(t0);
  return model;
}

for (const source of (args.arcs ?? args.dtypes ?? 'q8').split(',')) {
  const timing = {};
  const model = await load(source, timing);
  const { dtype } = model.config;
  const dir = join(args.out, dtype);
  mkdirSync(dir, { recursive: true });
  let t0 = performance.now();
  const r = model.forward(ids, { attention: true, allLogits: true });
  timing.forward = seconds(t0);
  write(dir, 'logits', r.logits);
  write(dir, 'attention', r.attention);
  const index = { T: ids.length, dtype, logits: r.logitsShape, attention: r.attentionShape, hooks: {} };
  if (args.hooks !== 'none') {
    t0 = performance.now();
    const { cache } = model.runWithCache(ids, { allLogits: false });
    timing.runWithCache = seconds(t0);
    for (const [name, { data, shape }] of Object.entries(cache)) {
      write(dir, name, data);
      index.hooks[name] = shape;
    }
  }
  index.seconds = timing;
  index.wasmMemoryBytes = wasmBytes();
  writeFileSync(join(dir, 'cache.json'), JSON.stringify(index));
  model.free();
  console.log(`${source === 'default' ? `the default, ${dtype}` : dtype}: ${JSON.stringify(timing)}, wasm memory ` +
    `${(wasmBytes() / 1e9).toFixed(2)} GB`);
}
