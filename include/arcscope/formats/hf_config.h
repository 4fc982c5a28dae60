// hf_config.h: a Hugging Face config.json -> ModelConfig, for model_type gpt2, gpt_neox, llama, qwen2 and qwen3. Every
// field of transformers' configuration that changes what the model computes is honoured or refused by name, with
// each model_type's own defaults (e.g. tie_word_embeddings: true for gpt2, false for the others); the others
// (dropout, initialisation, generation and output options) change nothing a forward pass computes.
#pragma once
#include <string_view>

#include "arcscope/formats/model_config.h"

namespace arcscope {

// config.json text -> config (config.arch says which family it read; a config without model_type is GPT-2's).
// GPT-2: n_layer, n_head, n_embd, n_positions (or n_ctx), vocab_size, layer_norm_epsilon, tie_word_embeddings, each
// under any of Hugging Face's names. The others: their sizes, num_key_value_heads, head_dim, intermediate_size,
// rms_norm_eps / layer_norm_eps, rope_theta (rotary_emb_base), rotary_pct, rope_scaling (llama3), attention_bias,
// mlp_bias, use_parallel_residual, hidden_act. Refuses any other model_type, and any value arcscope would compute
// differently from transformers' modeling code (sliding windows, mixtures of experts, soft-capping, other rope
// types or activations), e.g.
//   "config.json: rope_scaling.rope_type 'yarn' is not supported (supported: default, llama3)".
ModelConfig config_from_hf_json(std::string_view json);

}  // namespace arcscope
