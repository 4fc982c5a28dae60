// model-memory.js: what a model needs in the engine's memory, and when its KV cache is kept in f16 so that it fits.
// The worker picks each loaded model's KV cache by it; the page's loader says the same before a download.
import { formatBytes } from './downloads.js';

// wasm32 addresses 4 GB: every model, KV cache and buffer of the engine shares them.
export const ENGINE_BYTES = 2 ** 32;
// The runtime's own: the engine's first memory (INITIAL_MEMORY), its stack, the tokenizer.
const RUNTIME_BYTES = 32 << 20;
// Rows of a sweep's batch of variants (Decoder::kVariantRows), and the floats each row takes in the pass's scratch
// (residual, norm, q/k/v, attention out, projection, the MLP's hidden width: 11 C for GPT-2).
const VARIANT_ROWS = 256;
const rowFloats = ({ n_embd, n_head, n_kv_head = n_head, d_head = n_embd / n_head, d_mlp = 4 * n_embd, mlp,
  parallel_residual }) => (parallel_residual ? 4 : 3) * n_embd + (2 * n_head + 2 * n_kv_head) * d_head +
  (mlp === 'swiglu' ? 2 : 1) * d_mlp;

// A position's keys or values across the key/value heads (n_embd, but in grouped-query attention).
const kvWidth = ({ n_embd, n_head, n_kv_head = n_head, d_head = n_embd / n_head }) => n_kv_head * d_head;

// The positions the engine's memory is planned for: the model's whole context, up to 4,096 tokens. GPT-2's 1,024 are
// all of it; today's decoders read 32,768 to 131,072, whose KV cache alone (Llama 3.2 1B: 4.3 GB in f32) would pass
// what wasm addresses, though no page runs a text that long (its T x T attention would pass it first).
export const PLANNED_TOKENS = 4096;
const positions = (config) => Math.min(config.n_ctx, PLANNED_TOKENS);

// The longest text an analysis runs, as the memory is planned: the model's context, up to 4,096 tokens.
export const analysisLength = positions;

// An Error's words for a text of n tokens past analysisLength, or null where it fits.
export function tooLongFor(config, n) {
  if (n <= analysisLength(config)) return null;
  return n > config.n_ctx ? `the text is ${n} tokens long; this model reads at most ${config.n_ctx}`
    : `the text is ${n} tokens long; this model reads ${config.n_ctx}, and an analysis here runs on at most ` +
      `${PLANNED_TOKENS}, what the engine's memory is planned for`;
}

// The KV cache of a planned context: keys and values, every layer, positions() of the key/value heads, in f32 or f16.
export const kvBytes = (config, format = 'f32') =>
  2 * config.n_layer * positions(config) * kvWidth(config) * (format === 'f32' ? 4 : 2);

// Beside the weights and the KV cache, what the passes and analyses of a planned context (positions()) hold, in
// f32: the logits of every position (runWithCache, perplexity: 206 MB for GPT-2's vocabulary at 1,024), every
// layer's queries and keys (an analysis) or a sweep's clean run (every layer's residual stream and hook_z), one
// layer's attention probabilities of every head, a sweep's batch of variants, and the runtime's own; and a sixth more
// for the allocator's leftovers. Scaled to the model: some 0.1 GB for the 8 MB default model, 0.43 GB for GPT-2 small
// (its analysis, every head's attention, an ablation sweep and perplexity at 1,024 tokens, one after another, grew
// the engine by 0.39 GB beyond its file and KV cache), 1.1 GB for GPT-2 XL.
export const workingBytes = (config) => {
  const { n_layer, n_head, n_embd, n_vocab } = config, T = positions(config);
  return 1.15 * (RUNTIME_BYTES + 4 * (T * n_vocab + 2 * n_layer * T * n_embd + n_head * T * T +
    VARIANT_ROWS * rowFloats(config)));
};

// {format: 'f32' | 'f16', why}: f32, unless the model's file, an f32 KV cache of its planned context and its working
// memory (workingBytes) would not fit in the engine's 4 GB, or in half of the memory the device reports
// (navigator.deviceMemory, in GB, when the browser gives it). why says so in words, for the page; null for f32.
// config: {n_layer, n_head, n_ctx, n_embd, n_vocab} and, beyond GPT-2, n_kv_head, d_head and d_mlp: a loaded
// model's.
export function kvCacheFor(config, fileBytes, deviceMemoryGB) {
  const room = Math.min(ENGINE_BYTES, deviceMemoryGB > 0 ? deviceMemoryGB * 1e9 / 2 : Infinity);
  const working = workingBytes(config);
  if (fileBytes + kvBytes(config, 'f32') + working <= room) return { format: 'f32', why: null };
  const where = room < ENGINE_BYTES ? `half of the ${deviceMemoryGB} GB this device reports` : 'the engine\'s 4 GB';
  return { format: 'f16', why: `its KV cache is kept in f16 (${formatBytes(kvBytes(config, 'f16'))}): in f32 ` +
    `(${formatBytes(kvBytes(config, 'f32'))}) it would not fit beside the ${formatBytes(fileBytes)} model and the ` +
    `${formatBytes(working)} its passes work in, in ${where}` };
}
