// gpt2-family.js: the GPT-2 checkpoints the loader offers, from Hugging Face, with what each costs. download: the bytes
// of its model.safetensors (float32 weights and the causal-mask buffers those files carry, without the header);
// arcs: the .arcs file it converts to in each format, as the engine's converter sizes it from the header (f32 is
// absent where that file would be more than the engine can address). tests/js/gpt2-family.test.mjs checks every
// figure against the converter.
import { formatBytes } from '../../lib/shared/downloads.js';
import { kvBytes, kvCacheFor } from '../../lib/shared/model-memory.js';

export const GPT2_FAMILY = [
  { id: 'distilgpt2', repo: 'distilbert/distilgpt2', layers: 6, heads: 12, width: 768, download: 352_816_128,
    arcs: { q8: 92_341_760, q16: 174_198_272, f32: 327_657_728 } },
  { id: 'gpt2', repo: 'openai-community/gpt2', layers: 12, heads: 12, width: 768, download: 548_090_880,
    arcs: { q8: 140_364_032, q16: 264_687_872, f32: 497_773_568 } },
  { id: 'gpt2-medium', repo: 'openai-community/gpt2-medium', layers: 24, heads: 16, width: 1024, download: 1_519_955_968,
    arcs: { q8: 400_136_704, q16: 754_645_504, f32: 1_419_320_832 } },
  { id: 'gpt2-large', repo: 'openai-community/gpt2-large', layers: 36, heads: 20, width: 1280, download: 3_247_115_264,
    arcs: { q8: 872_565_504, q16: 1_646_002_944, f32: 3_096_162_304 } },
  { id: 'gpt2-xl', repo: 'openai-community/gpt2-xl', layers: 48, heads: 25, width: 1600, download: 6_431_771_392,
    arcs: { q8: 1_755_260_608, q16: 3_311_881_408 } },
];

// A checkpoint's two files on Hugging Face.
export const checkpointUrls = ({ repo }) => ({
  safetensorsUrl: `https://huggingface.co/${repo}/resolve/main/model.safetensors`,
  configUrl: `https://huggingface.co/${repo}/resolve/main/config.json`,
});

// What stands in the way of loading `model` (of the GPT-2 family, or decoder-models.js's) in `dtype` here, said before anything is downloaded, or null. device:
// {memoryGB (navigator.deviceMemory: a rough figure, at most 8), freeBytes (storage quota less usage)}, each
// undefined where the browser does not say. The engine holds the converted file once (it runs where the converter
// wrote it, and is cached from there) and its KV cache beside it, in f16 where f32 would not fit (model-memory.js).
export function loadingLimits(model, dtype, { memoryGB, freeBytes } = {}) {
  const size = model.arcs[dtype];
  if (!size) {
    return { blocking: `${model.id} in ${dtype} would be a file of more than the 4.3 GB the browser engine can ` +
      `address: pick q8 (${formatBytes(model.arcs.q8)}) or q16 (${formatBytes(model.arcs.q16)})` };
  }
  const notes = [];
  const holds = (m, d) => m.arcs[d] + kvBytes(shapeOf(m), kvCacheFor(shapeOf(m), m.arcs[d], memoryGB).format);
  const others = model.shape ? [] : GPT2_FAMILY;  // a smaller GPT-2 is suggested for a GPT-2
  if (memoryGB !== undefined && holds(model, dtype) > memoryGB * 1e9 / 2) {
    const fits = others.filter((m) => holds(m, 'q8') <= memoryGB * 1e9 / 2).map((m) => m.id);
    notes.push(`this device reports about ${memoryGB} GB of memory, and ${model.id} in ${dtype} holds about ` +
      `${formatBytes(holds(model, dtype))} with its KV cache: it may fail${fits.length ? `; ${fits.at(-1)} in q8 ` +
      'would fit' : ''}`);
  }
  const kv = kvCacheFor(shapeOf(model), size, memoryGB);
  if (kv.why) notes.push(kv.why);
  if (freeBytes !== undefined && size > freeBytes) {
    notes.push(`the browser's storage has ${formatBytes(freeBytes)} free, so the ${formatBytes(size)} file will not ` +
      'be kept: the next visit converts it again');
  }
  return { blocking: null, notes };
}

// The shape model-memory.js sizes a KV cache and the working memory by: every GPT-2 reads 1,024 positions of its
// 50,257-token vocabulary; another decoder gives its own (decoder-models.js).
export const shapeOf = (m) => m.shape ?? { n_layer: m.layers, n_head: m.heads, n_ctx: 1024, n_embd: m.width, n_vocab: 50257 };
