// model_config.h: a model's hyperparameters and the list of tensors a model of that shape has, in the engine's
// orientation: every matrix (out_features, in_features) row-major, e.g. attn.c_attn.weight [2304, 768].
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "arcscope/kernels/quant.h"

namespace arcscope {

struct ModelConfig {
    int n_layer = 12;      // transformer blocks
    int n_head = 12;       // attention heads per block
    int n_embd = 768;      // channels of the residual stream
    int n_ctx = 1024;      // longest sequence (learned positions)
    int n_vocab = 50257;   // tokens
    float ln_eps = 1e-5f;  // LayerNorm epsilon
    // config.json's tie_word_embeddings. An .arcs file always uses wte as the LM head, so the converter takes an
    // untied checkpoint only when its lm_head.weight equals wte.weight.
    bool tie_word_embeddings = true;

    int head_dim() const { return n_embd / n_head; }  // e.g. 64
    // Throws Error naming the field if a value is absurd or inconsistent (e.g. n_embd not divisible by n_head).
    void validate() const;
    std::string describe() const;  // "n_layer 12, n_head 12, n_embd 768, n_ctx 1024, n_vocab 50257"
};

// GPT-2's <|endoftext|>: where generation stops, and the one id head analysis never draws. (The tokenizer file
// says the same; tests/cpp/test_tokenizer.cpp checks that they agree.)
constexpr int kEndOfText = 50256;

// One tensor the model file must hold. 1-D tensors have cols == 0.
struct TensorSpec {
    std::string name;  // Hugging Face name without "transformer.", e.g. "h.3.attn.c_attn.weight"
    DType type;
    int rows;        // e.g. 2304
    int cols;        // e.g. 768, or 0 for vectors
    uint64_t bytes;  // storage size in the file

    std::string shape_text() const;  // "[2304, 768]" or "[768]"
};

// Every tensor of a GPT-2 with this config, in file order. Matrices get `matrix_type`; LayerNorms and biases are f32.
std::vector<TensorSpec> tensor_specs(const ModelConfig& config, DType matrix_type);

}  // namespace arcscope
