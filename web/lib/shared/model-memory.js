// model-memory.js: what a GPT-2 needs in the engine's memory, and when its KV cache is kept in f16 so that it fits.
// The worker picks each loaded model's KV cache by it; the page's loader says the same before a download.

// wasm32 addresses 4 GB: every model, KV cache and buffer of the engine shares them.
export const ENGINE_BYTES = 2 ** 32;
// Beside the weights and the KV cache: activations, the logits of a whole context (206 MB for 1,024 positions of
// GPT-2's vocabulary), attention captures, a sweep's batches and the runtime's own.
const WORKING_BYTES = 1e9;

// The KV cache of a whole context: keys and values, every layer, n_ctx positions of n_embd, in f32 or f16.
export const kvBytes = ({ n_layer, n_ctx, n_embd }, format = 'f32') =>
  2 * n_layer * n_ctx * n_embd * (format === 'f32' ? 4 : 2);

// {format: 'f32' | 'f16', why}: f32, unless the model's file, an f32 KV cache of its whole context and the working
// memory would not fit in the engine's 4 GB, or in half of the memory the device reports (navigator.deviceMemory,
// in GB, when the browser gives it). why says so in words, for the page; null for f32.
export function kvCacheFor(config, fileBytes, deviceMemoryGB) {
  const room = Math.min(ENGINE_BYTES, deviceMemoryGB > 0 ? deviceMemoryGB * 1e9 / 2 : Infinity);
  const needs = fileBytes + kvBytes(config, 'f32') + WORKING_BYTES;
  if (needs <= room) return { format: 'f32', why: null };
  const where = room < ENGINE_BYTES ? `half of the ${deviceMemoryGB} GB this device reports` : 'the engine\'s 4 GB';
  return { format: 'f16', why: `its KV cache is kept in f16 (${gb(kvBytes(config, 'f16'))}): in f32 ` +
    `(${gb(kvBytes(config, 'f32'))}) it would not fit beside the ${gb(fileBytes)} model in ${where}` };
}

const gb = (n) => `${(n / 1e9).toFixed(2)} GB`;
