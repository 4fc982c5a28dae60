// decoder_fixture.h: small random models of every architecture, for the tests that hold for any of them (the KV
// cache, chunks, threads, hooks, interventions). GPT-2's goes through the converter as engine_fixture.h's does; the
// others are written straight from tensor_specs (the converter's own tests check the Hugging Face layouts).
#pragma once
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "arcscope/core/random.h"
#include "arcscope/core/threads.h"
#include "arcscope/formats/model_file.h"
#include "engine_fixture.h"

namespace arcscope::testing {

// n token ids drawn uniformly from the vocabulary.
inline std::vector<int> some_ids(int n, int vocab, uint64_t seed = 9) {
    Random rng(seed);
    std::vector<int> ids(size_t(n), 0);
    for (int& id : ids) id = int(rng.next_u64() % uint64_t(vocab));
    return ids;
}

// n threads for a test's scope; one again however it ends.
struct Threads {
    explicit Threads(int n) { EXPECT_EQ(set_threads(n), n); }
    ~Threads() { set_threads(1); }
};

// Four heads of 16 over 64 channels, 300 tokens, in each architecture's way: GPT-NeoX's partial rotary, exact GELU,
// parallel residual and untied head; Llama's grouped heads, SwiGLU and llama3 scaling (short enough to matter within
// 48 positions); Qwen2's q/k/v biases and tied head; Qwen3's q/k norms and heads wider than n_embd / n_head.
inline ModelConfig tiny_arch_config(Arch arch) {
    ModelConfig c = tiny_config();
    c.arch = arch;
    if (arch == Arch::gpt2) return c;
    c.d_head = 16;
    c.n_kv_head = 4;
    c.positions = Positions::rotary;
    c.rotary_dim = 16;
    c.rope_theta = 10000;
    if (arch == Arch::gpt_neox) {
        c.d_mlp = 256;
        c.mlp = MlpKind::gelu_erf;
        c.parallel_residual = true;
        c.rotary_dim = 4;
        c.tie_word_embeddings = false;
        return c;
    }
    c.norm = NormKind::rmsnorm;
    c.norm_eps = 1e-6f;
    c.mlp = MlpKind::swiglu;
    c.d_mlp = 96;
    c.n_kv_head = 2;
    c.qkv_bias = c.o_bias = c.mlp_bias = false;
    c.tie_word_embeddings = false;
    if (arch == Arch::llama) {
        c.rope_scaling.kind = RopeScaling::Kind::llama3;
        c.rope_scaling.factor = 8;
        c.rope_scaling.original_max_position_embeddings = 32;
    } else if (arch == Arch::qwen2) {
        c.qkv_bias = true;
        c.tie_word_embeddings = true;
        c.rope_theta = 1000000;
    } else {  // qwen3
        c.d_head = 32;
        c.qk_norm = true;
    }
    return c;
}

// An .arcs file of config c with random weights in exactly this weight type (random_model_bytes below is what the
// converter writes): norms' weights near 1, small biases, projections of about unit gain, queries and keys sized for
// peaked attention.
inline std::vector<uint8_t> random_model_bytes_of_type(const ModelConfig& c, DType dtype, uint64_t seed) {
    const std::vector<TensorSpec> specs = tensor_specs(c, dtype);
    const uint32_t version = file_version(c, dtype);
    const FileLayout layout = plan_layout(specs, version);
    std::vector<uint8_t> out(layout.file_size());
    write_header(out.data(), c, dtype, specs, layout);
    Random rng(seed);
    for (size_t i = 0; i < specs.size(); ++i) {
        const TensorSpec& s = specs[i];
        const bool is_norm = s.name.find("norm") != std::string::npos || s.name.find("ln_") != std::string::npos;
        const bool is_bias = s.name.size() > 5 && s.name.compare(s.name.size() - 5, 5, ".bias") == 0;
        const size_t n = size_t(s.rows) * size_t(s.cols ? s.cols : 1);
        const bool qkv = s.name.find("c_attn") != std::string::npos;
        const double std = is_bias ? 0.05 : is_norm ? 0.1 : (qkv ? 2.0 : 1.0) / std::sqrt(double(s.cols ? s.cols : 1));
        std::vector<float> w(n);
        for (float& x : w) x = float((is_norm && !is_bias ? 1.0 : 0.0) + std * rng.normal());
        uint8_t* at = out.data() + layout.data_offset + layout.offsets[i];
        if (s.type == DType::F32) std::memcpy(at, w.data(), n * sizeof(float));
        else q_pack(s.type, w.data(), s.rows, s.cols, at);
    }
    seal_file(out.data(), layout.file_size());
    return out;
}

// The same, in the weight type the converter writes when dtype is asked for (q16: 16 bits but for GPT-2).
inline std::vector<uint8_t> random_model_bytes(const ModelConfig& c, DType dtype, uint64_t seed) {
    if (c.is_plain_gpt2()) return tiny_model_bytes(dtype, seed, c);
    return random_model_bytes_of_type(c, stored_weight_type(c, dtype), seed);
}

inline Loaded load_arch(Arch arch, DType dtype, uint64_t seed = 1) {
    return Loaded(random_model_bytes(tiny_arch_config(arch), dtype, seed));
}

constexpr Arch kEveryArch[] = {Arch::gpt2, Arch::gpt_neox, Arch::llama, Arch::qwen2, Arch::qwen3};

}  // namespace arcscope::testing
