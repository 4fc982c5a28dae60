// article.js: the article's attention blocks on the engine (SingleHeadAttention, MultiHeadAttention,
// PositionalEncoding, RotaryEmbedding, the causal mask) and its cost experiment, as createEngine hands them out:
//   const attn = engine.singleHeadAttention(64, 16, {seed: 42});
//   attn.forward(x, [2, 8, 64], {mask: engine.causalMask(8)})   // {out, weights, q, k, v, scores}, each {data, shape}
// The blocks are wasm objects: free() releases one, and a FinalizationRegistry frees a forgotten one eventually.
import { engineCall, numberArg } from './calls.js';

const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle) => { if (!handle.isDeleted()) handle.delete(); })
  : null;

// Wraps an Embind object so that free() is idempotent and a forgotten object is still deleted eventually.
function owned(handle, methods) {
  const wrapper = {
    ...methods,
    free() {
      if (!handle.isDeleted()) handle.delete();
      registry?.unregister(wrapper);
    },
  };
  registry?.register(wrapper, handle, wrapper);
  return wrapper;
}

function flat(values) {
  return values instanceof Float32Array ? values : Float32Array.from(values.flat ? values.flat(Infinity) : values);
}

function maskData(mask) {
  if (mask == null) return null;
  return mask.data ? mask.data : flat(mask);
}

// Sizes and seeds as numbers, strictly (the core takes doubles, which Embind would make of '5', true or [7]); a seed
// a 32-bit integer (>>> 0 turned 2^32 + 1 into 1).
function seedArg(seed) {
  numberArg(seed, 'seed');
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xFFFFFFFF) {
    throw new Error(`seed must be an integer in [0, 4294967295], got ${seed}`);
  }
  return seed;
}
const sizes = (values) => { for (const [what, v] of Object.entries(values)) numberArg(v, what); };

// core: the wasm module -> the engine's article methods.
export function articleBlocks(core) {
  const layer = (handle) => owned(handle, {
    get config() {
      return { d_model: handle.d_model, d_head: handle.d_head, ...(handle.n_heads ? { n_heads: handle.n_heads } : {}) };
    },
    // x: Float32Array (or nested arrays) of shape [batch, seq, d_model]; mask: causalMask(seq) result, or null.
    forward(x, shape, { mask = null } = {}) {
      return engineCall('running an attention block', () => handle.forward(flat(x), shape, maskData(mask)));
    },
    weight(name) { return handle.weight(name); },
    setWeight(name, values) { handle.setWeight(name, flat(values)); },
  });
  return {
    singleHeadAttention(dModel, dHead, { seed = 42 } = {}) {
      sizes({ dModel, dHead });
      return layer(new core.SingleHeadAttention(dModel, dHead, seedArg(seed)));
    },
    multiHeadAttention(dModel, nHeads, { seed = 42 } = {}) {
      sizes({ dModel, nHeads });
      return layer(new core.MultiHeadAttention(dModel, nHeads, seedArg(seed)));
    },
    positionalEncoding(dModel, maxSeqLen = 2048) {
      sizes({ dModel, maxSeqLen });
      const handle = new core.PositionalEncoding(dModel, maxSeqLen);
      return owned(handle, {
        table() { return handle.table(); },
        forward(x, shape) { return engineCall('adding positional encodings', () => handle.forward(flat(x), shape)); },
      });
    },
    // Rotary positions (RoPE), the decoders' own rotation: forward(x, shape, positions?) turns each (T, dHead) row t
    // by positions[t] (default t); table() gives {cos, sin}, each (maxSeqLen, rotaryDim / 2).
    rotaryEmbedding(dHead, { maxSeqLen = 2048, theta = 10000, rotaryDim = 0 } = {}) {
      sizes({ dHead, maxSeqLen, theta, rotaryDim });
      const handle = new core.RotaryEmbedding(dHead, maxSeqLen, theta, rotaryDim);
      return owned(handle, {
        dHead, rotaryDim: handle.rotary_dim, maxSeqLen, theta,
        table() { return handle.table(); },
        forward(x, shape, positions = null) {
          return engineCall('turning vectors by position', () => handle.forward(flat(x), shape, positions));
        },
      });
    },
    causalMask(n) { sizes({ n }); return core.causalMask(n); },
    randomNormal(shape, { seed = 42 } = {}) { return core.randomNormal(shape, seedArg(seed)); },
    // The article's cost experiment: {points: [{seqLen, ms}], fit: {a, b, c}} with ms ≈ a n² + b n + c.
    attentionCost({ lengths = [128, 256, 512, 1024], dModel = 768, nHeads = 12, repeats = 3 } = {}) {
      sizes({ dModel, nHeads, repeats });
      return core.attentionCost(lengths, dModel, nHeads, repeats);
    },
    // points [{seqLen, ms}] (3 or more) -> {a, b, c}: the least-squares ms ≈ a n² + b n + c that attentionCost uses.
    fitQuadratic(points) { return core.fitQuadratic(points); },
  };
}
