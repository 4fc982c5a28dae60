// decoder-models.js: the other decoders the loader offers beside the GPT-2 family, from Hugging Face, with what each
// costs. config: the keys of the repository's config.json that the converter reads (as transformers writes them,
// its defaults where a key is absent); arcs: the .arcs file it converts to in each format, before the tokenizer files
// it carries (tokenizer.json is 2-11 MB), as the engine's converter sizes it from that config
// (ModelConverter.convertedBytes; f32 is absent where that file would be more than the 4.3 GB the engine can
// address); download: about the bytes of its model.safetensors, the parameters the converter keeps times the bytes
// of the type the repository ships (shipped: bf16 or f16, 2 bytes), which is about half the f32 file: the file's
// header and any buffers it carries come on top. tests/js/decoder-models.test.mjs checks every figure against the
// converter. Each converts from its repository's model.safetensors, config.json, tokenizer.json and
// tokenizer_config.json.
export const DECODER_MODELS = [
  { id: 'SmolLM2-135M', repo: 'HuggingFaceTB/SmolLM2-135M', architecture: 'llama', shipped: 'bf16',
    config: { model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 576, intermediate_size: 1536,
      num_hidden_layers: 30, num_attention_heads: 9, num_key_value_heads: 3, max_position_embeddings: 8192,
      rms_norm_eps: 1e-5, rope_theta: 100000, tie_word_embeddings: true, vocab_size: 49152, hidden_act: 'silu' },
    download: 269_000_000, arcs: { q8: 151_451_008, q16: 285_930_880, f32: 538_080_640 } },
  { id: 'SmolLM2-360M', repo: 'HuggingFaceTB/SmolLM2-360M', architecture: 'llama', shipped: 'bf16',
    config: { model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 960, intermediate_size: 2560,
      num_hidden_layers: 32, num_attention_heads: 15, num_key_value_heads: 5, max_position_embeddings: 8192,
      rms_norm_eps: 1e-5, rope_theta: 100000, tie_word_embeddings: true, vocab_size: 49152, hidden_act: 'silu' },
    download: 723_700_000, arcs: { q8: 407_250_112, q16: 769_008_832, f32: 1_447_306_432 } },
  // Pythia's repositories ship float16 weights; its files also hold each layer's attention.bias mask buffer, which
  // the converter skips and the download estimate leaves out.
  { id: 'pythia-70m', repo: 'EleutherAI/pythia-70m', architecture: 'gpt_neox', shipped: 'f16',
    config: { model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_size: 512, intermediate_size: 2048,
      num_hidden_layers: 6, num_attention_heads: 8, max_position_embeddings: 2048, rotary_pct: 0.25,
      rotary_emb_base: 10000, use_parallel_residual: true, layer_norm_eps: 1e-5, tie_word_embeddings: false,
      vocab_size: 50304, hidden_act: 'gelu' },
    download: 140_900_000, arcs: { q8: 79_355_264, q16: 149_740_928, f32: 281_714_048 } },
  { id: 'pythia-160m', repo: 'EleutherAI/pythia-160m', architecture: 'gpt_neox', shipped: 'f16',
    config: { model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_size: 768, intermediate_size: 3072,
      num_hidden_layers: 12, num_attention_heads: 12, max_position_embeddings: 2048, rotary_pct: 0.25,
      rotary_emb_base: 10000, use_parallel_residual: true, layer_norm_eps: 1e-5, tie_word_embeddings: false,
      vocab_size: 50304, hidden_act: 'gelu' },
    download: 324_700_000, arcs: { q8: 182_976_640, q16: 345_178_240, f32: 649_306_240 } },
  { id: 'pythia-410m', repo: 'EleutherAI/pythia-410m', architecture: 'gpt_neox', shipped: 'f16',
    config: { model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], hidden_size: 1024, intermediate_size: 4096,
      num_hidden_layers: 24, num_attention_heads: 16, max_position_embeddings: 2048, rotary_pct: 0.25,
      rotary_emb_base: 10000, use_parallel_residual: true, layer_norm_eps: 1e-5, tie_word_embeddings: false,
      vocab_size: 50304, hidden_act: 'gelu' },
    download: 810_700_000, arcs: { q8: 456_953_472, q16: 861_965_952, f32: 1_621_364_352 } },
  // Qwen2.5's config also has sliding_window 32768 with use_sliding_window false (every layer attends to the whole
  // text) and max_window_layers 24.
  { id: 'Qwen2.5-0.5B', repo: 'Qwen/Qwen2.5-0.5B', architecture: 'qwen2', shipped: 'bf16',
    config: { model_type: 'qwen2', architectures: ['Qwen2ForCausalLM'], hidden_size: 896, intermediate_size: 4864,
      num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, max_position_embeddings: 32768,
      rms_norm_eps: 1e-6, rope_theta: 1000000, tie_word_embeddings: true, vocab_size: 151936, hidden_act: 'silu',
      use_sliding_window: false },
    download: 988_100_000, arcs: { q8: 556_011_456, q16: 1_049_972_672, f32: 1_976_149_952 } },
  // Unsure: Hugging Face lists about 752M parameters for Qwen3-0.6B, more than its tied config keeps (about 596M),
  // as if its file also held lm_head.weight (the converter takes that where it equals the embedding): its download
  // may be about 1.5 GB rather than the figure here, which counts what the config describes.
  { id: 'Qwen3-0.6B', repo: 'Qwen/Qwen3-0.6B', architecture: 'qwen3', shipped: 'bf16',
    config: { model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], hidden_size: 1024, intermediate_size: 3072,
      num_hidden_layers: 28, num_attention_heads: 16, num_key_value_heads: 8, head_dim: 128,
      max_position_embeddings: 40960, rms_norm_eps: 1e-6, rope_theta: 1000000, tie_word_embeddings: true,
      vocab_size: 151936, hidden_act: 'silu', attention_bias: false },
    download: 1_192_100_000, arcs: { q8: 670_769_216, q16: 1_266_753_600, f32: 2_384_224_320 } },
  { id: 'TinyLlama-1.1B', repo: 'TinyLlama/TinyLlama-1.1B-Chat-v1.0', architecture: 'llama', shipped: 'bf16',
    config: { model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 2048, intermediate_size: 5632,
      num_hidden_layers: 22, num_attention_heads: 32, num_key_value_heads: 4, max_position_embeddings: 2048,
      rms_norm_eps: 1e-5, rope_theta: 10000, tie_word_embeddings: false, vocab_size: 32000, hidden_act: 'silu' },
    download: 2_200_100_000, arcs: { q8: 1_237_834_688, q16: 2_337_790_912 } },
  // Gated: Hugging Face serves its files only to an account that accepted Meta's license, so the browser's download
  // from its URLs is refused; download the four files and pick them instead.
  { id: 'Llama-3.2-1B', repo: 'meta-llama/Llama-3.2-1B', architecture: 'llama', shipped: 'bf16', gated: true,
    config: { model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 2048, intermediate_size: 8192,
      num_hidden_layers: 16, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 64,
      max_position_embeddings: 131072, rms_norm_eps: 1e-5, rope_theta: 500000, tie_word_embeddings: true,
      vocab_size: 128256, hidden_act: 'silu',
      rope_scaling: { rope_type: 'llama3', factor: 32, low_freq_factor: 1, high_freq_factor: 4,
        original_max_position_embeddings: 8192 } },
    download: 2_471_600_000, arcs: { q8: 1_390_496_704, q16: 2_626_243_520 } },
];

// What the loader shows and sizes a model by: its layers and heads, and the shape model-memory.js sizes a KV cache
// and the working memory by (the engine's config names, read from the Hugging Face keys above).
for (const m of DECODER_MODELS) {
  const c = m.config, d_head = c.head_dim ?? c.hidden_size / c.num_attention_heads;
  Object.assign(m, { layers: c.num_hidden_layers, heads: c.num_attention_heads,
    shape: { n_layer: c.num_hidden_layers, n_head: c.num_attention_heads,
      n_kv_head: c.num_key_value_heads ?? c.num_attention_heads, d_head, n_embd: c.hidden_size,
      d_mlp: c.intermediate_size, n_ctx: c.max_position_embeddings, n_vocab: c.vocab_size,
      mlp: m.architecture === 'gpt_neox' ? 'gelu_erf' : 'swiglu', parallel_residual: !!c.use_parallel_residual } });
}
