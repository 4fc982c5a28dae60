// hf_config.h: a Hugging Face GPT-2 config.json -> ModelConfig. Every field of transformers' ModelConfig that changes
// what the model computes is honoured or refused by name; the others (dropout, initialisation, generation and output
// options, the multiple-choice head's summary_*) change nothing a forward pass of GPT2LMHeadModel computes.
#pragma once
#include <string_view>

#include "arcscope/formats/model_config.h"

namespace arcscope {

// config.json text -> config. Reads n_layer, n_head, n_embd, n_positions (or n_ctx), vocab_size, layer_norm_epsilon
// and tie_word_embeddings (each under any of Hugging Face's names); refuses a model_type or architecture other than
// GPT-2, and any value arcscope would compute differently from modeling_gpt2.py, e.g.
//   "config.json: scale_attn_by_inverse_layer_idx true is not supported (arcscope scales attention scores by
//    1/sqrt(head size) only)".
ModelConfig config_from_hf_json(std::string_view json);

}  // namespace arcscope
