// model_config.h: a decoder's architecture as data, and the list of tensors a model of that shape has, in the
// engine's orientation: every matrix (out_features, in_features) row-major, e.g. attn.c_attn.weight [2304, 768].
//
// Every architecture the engine runs is the same few choices, which the one forward pass (model/decoder.cpp) reads:
//   norm        LayerNorm (weight and bias) or RMSNorm (weight only)
//   positions   learned (GPT-2's wpe) or rotary on each head's first rotary_dim dimensions
//   attention   n_head query heads over n_kv_head key/value heads; biases on q/k/v and on o, or not; Qwen3's per-head
//               RMSNorm of q and k before the rotation
//   mlp         tanh GELU (GPT-2), exact erf GELU (GPT-NeoX), or SwiGLU down(silu(gate(x)) * up(x))
//   residual    sequential (x + attn(ln1(x)), then + mlp(ln2(.))) or parallel (x + attn(ln1(x)) + mlp(ln2(x)))
//   head        the token embedding (tied) or a matrix of its own
// GPT-2 is one configuration of it, the defaults below.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "arcscope/core/rope.h"  // RopeScaling
#include "arcscope/kernels/quant.h"

namespace arcscope {

// The family a file was converted from: its name for people, and how its checkpoint's tensors were named. The
// forward pass never reads it; it reads the choices it stands for.
enum class Arch : uint32_t { gpt2, gpt_neox, llama, qwen2, qwen3 };
enum class NormKind : uint32_t { layernorm, rmsnorm };
enum class Positions : uint32_t { learned, rotary };
enum class MlpKind : uint32_t { gelu_tanh, gelu_erf, swiglu };

const char* arch_name(Arch a);  // Hugging Face's model_type: "gpt2", "gpt_neox", "llama", "qwen2", "qwen3"
const char* norm_name(NormKind n);
const char* positions_name(Positions p);
const char* mlp_name(MlpKind m);

const char* rope_scaling_name(RopeScaling::Kind k);  // config.json's rope_type: "none", "llama3"

struct ModelConfig {
    Arch arch = Arch::gpt2;
    int n_layer = 12;        // transformer blocks
    int n_head = 12;         // query heads per block
    int n_embd = 768;        // channels of the residual stream
    int n_ctx = 1024;        // longest sequence (max_position_embeddings)
    int n_vocab = 50257;     // tokens
    float norm_eps = 1e-5f;  // the LayerNorms' or RMSNorms' epsilon
    // config.json's tie_word_embeddings: whether the LM head is the token embedding. A GPT-2 file always ties (the
    // converter takes an untied GPT-2 checkpoint only when its lm_head.weight equals wte.weight); other
    // architectures keep an untied head as lm_head.weight.
    bool tie_word_embeddings = true;

    // What GPT-2 derives from the sizes above unless set (0): d_head = n_embd / n_head, n_kv_head = n_head,
    // d_mlp = 4 n_embd. Read them through head_dim(), kv_heads() and mlp_width().
    int d_head = 0;
    int n_kv_head = 0;
    int d_mlp = 0;

    NormKind norm = NormKind::layernorm;
    Positions positions = Positions::learned;
    MlpKind mlp = MlpKind::gelu_tanh;
    bool parallel_residual = false;
    bool qkv_bias = true, o_bias = true, mlp_bias = true;
    bool qk_norm = false;  // Qwen3: RMSNorm of each q and k head over head_dim, before the rotation
    int rotary_dim = 0;    // rotating dimensions per head (positions rotary): head_dim, or Pythia's 16 of 64
    double rope_theta = 10000;
    RopeScaling rope_scaling;

    int head_dim() const { return d_head ? d_head : n_embd / n_head; }  // e.g. 64
    int kv_heads() const { return n_kv_head ? n_kv_head : n_head; }
    int mlp_width() const { return d_mlp ? d_mlp : 4 * n_embd; }
    int q_width() const { return n_head * head_dim(); }       // the queries' and the heads' outputs' width
    int kv_width() const { return kv_heads() * head_dim(); }  // a position's keys (or values) across its heads
    int qkv_width() const { return q_width() + 2 * kv_width(); }
    bool rotary() const { return positions == Positions::rotary; }
    // Whether the file needs version 3's architecture record: everything but GPT-2's shape as the 80-byte header of
    // versions 1 and 2 describes it.
    bool is_plain_gpt2() const;
    // Throws Error naming the field if a value is absurd or inconsistent (e.g. n_embd not divisible by n_head).
    void validate() const;
    std::string describe() const;  // "gpt2: n_layer 12, n_head 12, n_embd 768, n_ctx 1024, n_vocab 50257"
};

// GPT-2's <|endoftext|>: where generation stops, and the one id head analysis never draws. (The tokenizer file
// says the same; tests/cpp/test_tokenizer.cpp checks that they agree.)
constexpr int kEndOfText = 50256;

// One tensor the model file must hold. 1-D tensors have cols == 0.
struct TensorSpec {
    std::string name;  // the engine's name, GPT-2's without "transformer.", e.g. "h.3.attn.c_attn.weight"
    DType type;
    int rows;        // e.g. 2304
    int cols;        // e.g. 768, or 0 for vectors
    uint64_t bytes;  // storage size in the file

    std::string shape_text() const;  // "[2304, 768]" or "[768]"
};

// Every tensor of a model with this config, in file order. Matrices get `matrix_type`; norms and biases are f32.
// The names are GPT-2's for every architecture, each standing for its part (models/README.md):
//   wte.weight [V, C]; wpe.weight [n_ctx, C] (learned positions)
//   h.{l}.ln_1.weight [C], ln_1.bias [C] (LayerNorm)
//   h.{l}.attn.c_attn.weight [(H + 2 KV) d, C] = q, k, v rows; .bias with qkv_bias
//   h.{l}.attn.q_norm.weight [d], attn.k_norm.weight [d] (qk_norm)
//   h.{l}.attn.c_proj.weight [C, H d]; .bias with o_bias
//   h.{l}.ln_2.weight [C], ln_2.bias [C] (LayerNorm)
//   h.{l}.mlp.c_fc.weight [F, C] (the input projection: SwiGLU's up); .bias with mlp_bias
//   h.{l}.mlp.gate.weight [F, C] (SwiGLU); .bias with mlp_bias
//   h.{l}.mlp.c_proj.weight [C, F]; .bias with mlp_bias
//   ln_f.weight [C], ln_f.bias [C] (LayerNorm); lm_head.weight [V, C] (untied)
std::vector<TensorSpec> tensor_specs(const ModelConfig& config, DType matrix_type);

}  // namespace arcscope
