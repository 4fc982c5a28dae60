// model_config.cpp: config validation and the tensor list shared by the converter and the loader.
#include "arcscope/formats/model_config.h"

#include <algorithm>

#include "arcscope/core/error.h"
#include "arcscope/core/sizes.h"
#include "arcscope/kernels/quant.h"

namespace arcscope {

namespace {
void check_range(const char* name, long v, long lo, long hi) {
    require(v >= lo && v <= hi, std::string(name) + " = " + std::to_string(v) + " is out of range [" +
                                    std::to_string(lo) + ", " + std::to_string(hi) + "]");
}
}  // namespace

void ModelConfig::validate() const {
    // Limits far above GPT-2 xl (48 layers, 25 heads, 1600 channels) but low enough that sizes cannot overflow.
    check_range("n_layer", n_layer, 1, 256);
    check_range("n_head", n_head, 1, 256);
    check_range("n_embd", n_embd, 1, 16384);
    check_range("n_ctx", n_ctx, 1, 65536);
    check_range("n_vocab", n_vocab, 1, 1 << 20);
    require(n_embd % n_head == 0,
            "n_embd " + std::to_string(n_embd) + " is not divisible by n_head " + std::to_string(n_head));
    // Each matrix must stay addressable in 32-bit wasm (sizes are computed in size_t there).
    uint64_t biggest = std::max({uint64_t(n_vocab), uint64_t(n_ctx), uint64_t(4 * n_embd)}) * uint64_t(n_embd);
    require(biggest <= (uint64_t(1) << 31),
            "matrices of " + std::to_string(biggest) + " weights are too large (the limit is 2^31)");
    require(ln_eps > 0 && ln_eps < 1, "layer_norm_epsilon " + std::to_string(ln_eps) + " is out of range (0, 1)");
}

std::string ModelConfig::describe() const {
    return "n_layer " + std::to_string(n_layer) + ", n_head " + std::to_string(n_head) + ", n_embd " +
           std::to_string(n_embd) + ", n_ctx " + std::to_string(n_ctx) + ", n_vocab " + std::to_string(n_vocab);
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
    const int C = c.n_embd;
    matrix("wte.weight", c.n_vocab, C);  // also the LM head (tied)
    matrix("wpe.weight", c.n_ctx, C);
    for (int l = 0; l < c.n_layer; ++l) {
        std::string p = "h." + std::to_string(l) + ".";
        vector(p + "ln_1.weight", C);
        vector(p + "ln_1.bias", C);
        matrix(p + "attn.c_attn.weight", 3 * C, C);
        vector(p + "attn.c_attn.bias", 3 * C);
        matrix(p + "attn.c_proj.weight", C, C);
        vector(p + "attn.c_proj.bias", C);
        vector(p + "ln_2.weight", C);
        vector(p + "ln_2.bias", C);
        matrix(p + "mlp.c_fc.weight", 4 * C, C);
        vector(p + "mlp.c_fc.bias", 4 * C);
        matrix(p + "mlp.c_proj.weight", C, 4 * C);
        vector(p + "mlp.c_proj.bias", C);
    }
    vector("ln_f.weight", C);
    vector("ln_f.bias", C);
    return specs;
}

}  // namespace arcscope
