// engine_fixture.h: tiny GPT-2 checkpoints built in memory for the engine tests: a safetensors writer, random
// HF-layout weights, and the converted .arcs bytes.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/core/random.h"
#include "arcscope/formats/convert.h"
#include "arcscope/formats/model_config.h"
#include "arcscope/formats/model_file.h"
#include "arcscope/model/decoder.h"

namespace arcscope::testing {

struct RawTensor {
    std::string dtype = "F32";
    std::vector<uint64_t> shape;
    std::vector<uint8_t> bytes;
};
using Checkpoint = std::map<std::string, RawTensor>;  // name -> tensor, HF layout

inline RawTensor f32_tensor(std::vector<uint64_t> shape, const std::vector<float>& values) {
    RawTensor t{"F32", std::move(shape), std::vector<uint8_t>(values.size() * 4)};
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
}

inline std::vector<float> f32_values(const RawTensor& t) {
    std::vector<float> v(t.bytes.size() / 4);
    std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
    return v;
}

// safetensors bytes: u64 header length, JSON header, data (tensors in map order).
inline std::vector<uint8_t> safetensors_bytes(const Checkpoint& ck) {
    std::string json = "{\"__metadata__\":{\"format\":\"pt\"}";
    uint64_t at = 0;
    for (const auto& [name, t] : ck) {
        json += ",\"" + name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
        for (size_t i = 0; i < t.shape.size(); ++i) json += (i ? "," : "") + std::to_string(t.shape[i]);
        json += "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + t.bytes.size()) + "]}";
        at += t.bytes.size();
    }
    json += "}";
    while (json.size() % 8) json += ' ';
    std::vector<uint8_t> out(8 + json.size());
    for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(json.size()) >> (8 * i));
    std::memcpy(out.data() + 8, json.data(), json.size());
    for (const auto& [name, t] : ck) out.insert(out.end(), t.bytes.begin(), t.bytes.end());
    return out;
}

// Random weights in HF layout (Conv1D weights (in, out)), scaled like scripts/make_checkpoint.py, with the
// attn.bias buffers a real checkpoint carries (for n_ctx up to GPT-2's 1024).
inline Checkpoint random_checkpoint(const ModelConfig& c, uint64_t seed) {
    Random rng(seed);
    auto randn = [&](std::vector<uint64_t> shape, double std, double mean = 0) {
        uint64_t n = 1;
        for (auto d : shape) n *= d;
        std::vector<float> v(n);
        for (auto& x : v) x = float(mean + std * rng.normal());
        return f32_tensor(std::move(shape), v);
    };
    const uint64_t C = c.n_embd, N = c.n_ctx;
    Checkpoint ck;
    ck["wte.weight"] = randn({uint64_t(c.n_vocab), C}, 0.5);
    ck["wpe.weight"] = randn({N, C}, 0.2);
    const double qk = std::sqrt(1.0 / C);
    for (int l = 0; l < c.n_layer; ++l) {
        std::string p = "h." + std::to_string(l) + ".";
        ck[p + "ln_1.weight"] = randn({C}, 0.1, 1.0);
        ck[p + "ln_1.bias"] = randn({C}, 0.05);
        ck[p + "attn.c_attn.weight"] = randn({C, 3 * C}, qk);
        ck[p + "attn.c_attn.bias"] = randn({3 * C}, 0.05);
        ck[p + "attn.c_proj.weight"] = randn({C, C}, 0.5 / std::sqrt(double(C)));
        ck[p + "attn.c_proj.bias"] = randn({C}, 0.05);
        ck[p + "ln_2.weight"] = randn({C}, 0.1, 1.0);
        ck[p + "ln_2.bias"] = randn({C}, 0.05);
        ck[p + "mlp.c_fc.weight"] = randn({C, 4 * C}, 1 / std::sqrt(double(C)));
        ck[p + "mlp.c_fc.bias"] = randn({4 * C}, 0.05);
        ck[p + "mlp.c_proj.weight"] = randn({4 * C, C}, 0.5 / std::sqrt(4.0 * C));
        ck[p + "mlp.c_proj.bias"] = randn({C}, 0.05);
        if (N > 1024) continue;  // (N, N) masks would dwarf a long-context test model's weights
        std::vector<float> mask(N * N);
        for (uint64_t i = 0; i < N; ++i)
            for (uint64_t j = 0; j <= i; ++j) mask[i * N + j] = 1;
        ck[p + "attn.bias"] = f32_tensor({1, 1, N, N}, mask);
    }
    ck["ln_f.weight"] = randn({C}, 0.1, 1.0);
    ck["ln_f.bias"] = randn({C}, 0.05);
    return ck;
}

// A safetensors file whose header lists every tensor of `c` (F32, Hugging Face shapes) but which holds no data:
// what a hostile file claiming gigabytes looks like.
inline std::vector<uint8_t> header_only_safetensors(const ModelConfig& c) {
    std::string json = "{";
    uint64_t at = 0;
    for (const TensorSpec& s : tensor_specs(c, DType::F32)) {
        const bool conv1d = s.cols != 0 && s.name != "wte.weight" && s.name != "wpe.weight";
        const uint64_t rows = conv1d ? s.cols : s.rows, cols = conv1d ? s.rows : s.cols;
        const uint64_t bytes = (cols ? rows * cols : rows) * 4;
        json += (at ? ",\"" : "\"") + s.name + "\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(rows) +
                (cols ? "," + std::to_string(cols) : "") + "],\"data_offsets\":[" + std::to_string(at) + "," +
                std::to_string(at + bytes) + "]}";
        at += bytes;
    }
    json += "}";
    std::vector<uint8_t> out(8 + json.size());
    for (int i = 0; i < 8; ++i) out[i] = uint8_t(uint64_t(json.size()) >> (8 * i));
    std::memcpy(out.data() + 8, json.data(), json.size());
    return out;
}

// The message of the Error f() throws, or "(no error)".
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

inline ModelConfig gpt2_config(int n_layer, int n_head, int n_embd, int n_ctx, int n_vocab) {
    ModelConfig c;
    c.n_layer = n_layer;
    c.n_head = n_head;
    c.n_embd = n_embd;
    c.n_ctx = n_ctx;
    c.n_vocab = n_vocab;
    return c;
}

inline ModelConfig tiny_config() {
    return gpt2_config(2, 4, 64, 48, 300);
}

// Streams the safetensors bytes through the converter in chunks of `chunk` bytes.
inline std::vector<uint8_t> convert_bytes(const ModelConfig& c, const std::vector<uint8_t>& st, DType dtype,
                                          size_t chunk = 4096) {
    Converter conv(c, dtype, st.size());
    for (size_t at = 0; at < st.size(); at += chunk) conv.feed(st.data() + at, std::min(chunk, st.size() - at));
    return conv.finish().to_vector();
}

inline std::vector<uint8_t> tiny_model_bytes(DType dtype, uint64_t seed = 1, ModelConfig c = tiny_config()) {
    return convert_bytes(c, safetensors_bytes(random_checkpoint(c, seed)), dtype);
}

// A model loaded from .arcs bytes, which it keeps: the model runs on them in place (a move keeps the buffer).
struct Loaded {
    std::vector<uint8_t> bytes;
    std::unique_ptr<Decoder> model;
    explicit Loaded(std::vector<uint8_t> b) : bytes(std::move(b)) {
        model = std::make_unique<Decoder>(ModelFile::parse(bytes.data(), bytes.size()));
    }
};

inline Loaded load_tiny(DType t, uint64_t seed = 1) {
    return Loaded(tiny_model_bytes(t, seed));
}

}  // namespace arcscope::testing
