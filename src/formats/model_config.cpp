// model_config.cpp: config validation and the tensor list shared by the converter and the loader.
#include "arcscope/formats/model_config.h"

#include <algorithm>
#include <cmath>

#include "arcscope/core/error.h"
#include "arcscope/core/sizes.h"
#include "arcscope/kernels/quant.h"

namespace arcscope {

namespace {
void check_range(const char* name, long v, long lo, long hi) {
    require(v >= lo && v <= hi, std::string(name) + " = " + std::to_string(v) + " is out of range [" +
                                    std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

template <class E, size_t N>
const char* name_of(E value, const char* const (&names)[N]) {
    const auto i = size_t(value);
    return i < N ? names[i] : "unknown";
}
}  // namespace

const char* arch_name(Arch a) {
    static const char* const names[] = {"gpt2", "gpt_neox", "llama", "qwen2", "qwen3"};
    return name_of(a, names);
}
const char* norm_name(NormKind n) {
    static const char* const names[] = {"layernorm", "rmsnorm"};
    return name_of(n, names);
}
const char* positions_name(Positions p) {
    static const char* const names[] = {"learned", "rotary"};
    return name_of(p, names);
}
const char* rope_scaling_name(RopeScaling::Kind k) {
    static const char* const names[] = {"none", "llama3"};
    return name_of(k, names);
}
const char* mlp_name(MlpKind m) {
    static const char* const names[] = {"gelu_tanh", "gelu_erf", "swiglu"};
    return name_of(m, names);
}

bool ModelConfig::is_plain_gpt2() const {
    const ModelConfig gpt2;  // the defaults are GPT-2's choices
    return arch == Arch::gpt2 && head_dim() * n_head == n_embd && kv_heads() == n_head && mlp_width() == 4 * n_embd &&
           norm == gpt2.norm && positions == gpt2.positions && mlp == gpt2.mlp && !parallel_residual && qkv_bias &&
           o_bias && mlp_bias && !qk_norm && tie_word_embeddings;
}

void ModelConfig::validate() const {
    // Limits far above the models arcscope runs (GPT-2 XL's 48 layers and 1600 channels, Llama 3.2's 131,072
    // positions) but low enough that sizes cannot overflow.
    check_range("n_layer", n_layer, 1, 256);
    check_range("n_head", n_head, 1, 256);
    check_range("n_embd", n_embd, 1, 16384);
    check_range("n_ctx", n_ctx, 1, positions == Positions::learned ? 65536 : 1 << 20);
    check_range("n_vocab", n_vocab, 1, 1 << 20);
    check_range("architecture", long(arch), 0, long(Arch::qwen3));
    check_range("norm", long(norm), 0, long(NormKind::rmsnorm));
    check_range("positions", long(positions), 0, long(Positions::rotary));
    check_range("mlp", long(mlp), 0, long(MlpKind::swiglu));
    if (d_head == 0)
        require(n_embd % n_head == 0,
                "n_embd " + std::to_string(n_embd) + " is not divisible by n_head " + std::to_string(n_head));
    check_range("head_dim", head_dim(), 1, 1024);
    check_range("num_key_value_heads", kv_heads(), 1, n_head);
    require(n_head % kv_heads() == 0, "n_head " + std::to_string(n_head) +
                                          " is not a multiple of num_key_value_heads " + std::to_string(kv_heads()));
    check_range("intermediate_size", mlp_width(), 1, 1 << 17);
    if (rotary()) {
        check_range("rotary_dim", rotary_dim, 2, head_dim());
        require(rotary_dim % 2 == 0, "rotary_dim " + std::to_string(rotary_dim) + " is odd");
        require(std::isfinite(rope_theta) && rope_theta > 1 && rope_theta < 1e12,
                "rope_theta " + std::to_string(rope_theta) + " is out of range (1, 1e12)");
        const RopeScaling& s = rope_scaling;
        require(s.kind == RopeScaling::Kind::none || s.kind == RopeScaling::Kind::llama3,
                "rope_scaling kind " + std::to_string(uint32_t(s.kind)) + " is unknown");
        if (s.kind == RopeScaling::Kind::llama3)
            require(s.factor >= 1 && s.factor < 1e6 && s.low_freq_factor > 0 &&
                        s.high_freq_factor > s.low_freq_factor && s.high_freq_factor < 1e6 &&
                        s.original_max_position_embeddings >= 1 && s.original_max_position_embeddings <= (1 << 24),
                    "rope_scaling (llama3) numbers are out of range: factor >= 1, 0 < low_freq_factor < "
                    "high_freq_factor, original_max_position_embeddings >= 1");
    } else {
        require(rotary_dim == 0, "rotary_dim is set, but positions are learned");
    }
    // Each matrix must stay addressable in 32-bit wasm (sizes are computed in size_t there).
    const uint64_t positions_rows = rotary() ? 0 : uint64_t(n_ctx);
    const uint64_t biggest = std::max({uint64_t(n_vocab) * n_embd, positions_rows * n_embd,
                                       uint64_t(qkv_width()) * n_embd, uint64_t(mlp_width()) * n_embd});
    require(biggest <= (uint64_t(1) << 31),
            "matrices of " + std::to_string(biggest) + " weights are too large (the limit is 2^31)");
    require(norm_eps > 0 && norm_eps < 1, "norm epsilon " + std::to_string(norm_eps) + " is out of range (0, 1)");
}

std::string ModelConfig::describe() const {
    std::string s = std::string(arch_name(arch)) + ": n_layer " + std::to_string(n_layer) + ", n_head " +
                    std::to_string(n_head) + ", n_embd " + std::to_string(n_embd) + ", n_ctx " + std::to_string(n_ctx) +
                    ", n_vocab " + std::to_string(n_vocab);
    if (is_plain_gpt2()) return s;
    return s + ", n_kv_head " + std::to_string(kv_heads()) + ", head_dim " + std::to_string(head_dim()) + ", d_mlp " +
           std::to_string(mlp_width()) + ", " + norm_name(norm) + ", " + mlp_name(mlp) +
           (rotary() ? ", rotary " + std::to_string(rotary_dim) : std::string(", learned positions")) +
           (parallel_residual ? ", parallel residual" : "") + (tie_word_embeddings ? ", tied head" : ", untied head");
}

std::string TensorSpec::shape_text() const {
    return cols == 0 ? arcscope::shape_text({uint64_t(rows)}) : arcscope::shape_text({uint64_t(rows), uint64_t(cols)});
}

std::vector<TensorSpec> tensor_specs(const ModelConfig& c, DType matrix_type) {
    std::vector<TensorSpec> specs;
    auto matrix = [&](const std::string& name, int rows, int cols) {
        uint64_t bytes =
            matrix_type == DType::F32 ? uint64_t(rows) * cols * 4 : q_packed_bytes(matrix_type, rows, cols);
        specs.push_back({name, matrix_type, rows, cols, bytes});
    };
    auto vector = [&](const std::string& name, int n) { specs.push_back({name, DType::F32, n, 0, uint64_t(n) * 4}); };
    auto norm = [&](const std::string& name) {  // a LayerNorm's weight and bias, or an RMSNorm's weight
        vector(name + ".weight", c.n_embd);
        if (c.norm == NormKind::layernorm) vector(name + ".bias", c.n_embd);
    };
    auto linear = [&](const std::string& name, int rows, int cols, bool bias) {
        matrix(name + ".weight", rows, cols);
        if (bias) vector(name + ".bias", rows);
    };
    const int C = c.n_embd, F = c.mlp_width();
    matrix("wte.weight", c.n_vocab, C);  // also the LM head, when tied
    if (!c.rotary()) matrix("wpe.weight", c.n_ctx, C);
    for (int l = 0; l < c.n_layer; ++l) {
        std::string p = "h." + std::to_string(l) + ".";
        norm(p + "ln_1");
        linear(p + "attn.c_attn", c.qkv_width(), C, c.qkv_bias);
        if (c.qk_norm) {
            vector(p + "attn.q_norm.weight", c.head_dim());
            vector(p + "attn.k_norm.weight", c.head_dim());
        }
        linear(p + "attn.c_proj", C, c.q_width(), c.o_bias);
        norm(p + "ln_2");
        linear(p + "mlp.c_fc", F, C, c.mlp_bias);
        if (c.mlp == MlpKind::swiglu) linear(p + "mlp.gate", F, C, c.mlp_bias);
        linear(p + "mlp.c_proj", C, F, c.mlp_bias);
    }
    norm("ln_f");
    if (!c.tie_word_embeddings) matrix("lm_head.weight", c.n_vocab, C);
    return specs;
}

}  // namespace arcscope
