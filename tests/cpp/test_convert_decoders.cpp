// test_convert_decoders.cpp: config.json and checkpoints of GPT-NeoX, Llama, Qwen2 and Qwen3 as Hugging Face writes
// them. Each config reads as transformers reads it (its defaults too) or is refused by name; each checkpoint converts
// to the tensors it holds, mapped here by hand onto the engine's names, in every format, from F32, F16 or BF16, from
// one file or from shards; hostile shards and indexes are refused with messages that say what is wrong.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "arcscope/core/little_endian.h"
#include "arcscope/formats/convert.h"
#include "arcscope/formats/hf_config.h"
#include "arcscope/formats/model_file.h"
#include "arcscope/kernels/quant.h"
#include "decoder_fixture.h"

using namespace arcscope;
using namespace arcscope::testing;

namespace {

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A checkpoint of config c exactly as transformers saves it for c's model_type: its names, nn.Linear weights
// (out, in), GPT-NeoX's fused query_key_value with rows [head, (q, k, v), d], and the buffers old checkpoints carry.
Checkpoint hf_checkpoint(const ModelConfig& c, uint64_t seed) {
    Random rng(seed);
    auto randn = [&](std::vector<uint64_t> shape, double std = 0.5, double mean = 0) {
        uint64_t n = 1;
        for (uint64_t d : shape) n *= d;
        std::vector<float> v(n);
        for (float& x : v) x = float(mean + std * rng.normal());
        return f32_tensor(std::move(shape), v);
    };
    const uint64_t C = c.n_embd, F = c.mlp_width(), V = c.n_vocab, d = c.head_dim(), q = c.q_width(), kv = c.kv_width();
    Checkpoint ck;
    if (c.arch == Arch::gpt_neox) {
        ck["gpt_neox.embed_in.weight"] = randn({V, C});
        for (int l = 0; l < c.n_layer; ++l) {
            const std::string p = "gpt_neox.layers." + std::to_string(l) + ".";
            for (const char* norm : {"input_layernorm", "post_attention_layernorm"}) {
                ck[p + norm + ".weight"] = randn({C}, 0.1, 1);
                ck[p + norm + ".bias"] = randn({C}, 0.05);
            }
            ck[p + "attention.query_key_value.weight"] = randn({3 * C, C});
            ck[p + "attention.query_key_value.bias"] = randn({3 * C}, 0.05);
            ck[p + "attention.dense.weight"] = randn({C, C});
            ck[p + "attention.dense.bias"] = randn({C}, 0.05);
            ck[p + "mlp.dense_h_to_4h.weight"] = randn({F, C});
            ck[p + "mlp.dense_h_to_4h.bias"] = randn({F}, 0.05);
            ck[p + "mlp.dense_4h_to_h.weight"] = randn({C, F});
            ck[p + "mlp.dense_4h_to_h.bias"] = randn({C}, 0.05);
            const uint64_t N = c.n_ctx;
            ck[p + "attention.bias"] = RawTensor{"BOOL", {1, 1, N, N}, std::vector<uint8_t>(N * N, 1)};
            ck[p + "attention.masked_bias"] = f32_tensor({}, {-1e9f});
            ck[p + "attention.rotary_emb.inv_freq"] = randn({uint64_t(c.rotary_dim / 2)});
        }
        ck["gpt_neox.final_layer_norm.weight"] = randn({C}, 0.1, 1);
        ck["gpt_neox.final_layer_norm.bias"] = randn({C}, 0.05);
        if (!c.tie_word_embeddings) ck["embed_out.weight"] = randn({V, C});
        return ck;
    }
    ck["model.embed_tokens.weight"] = randn({V, C});
    for (int l = 0; l < c.n_layer; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        ck[p + "input_layernorm.weight"] = randn({C}, 0.1, 1);
        ck[p + "post_attention_layernorm.weight"] = randn({C}, 0.1, 1);
        ck[p + "self_attn.q_proj.weight"] = randn({q, C});
        ck[p + "self_attn.k_proj.weight"] = randn({kv, C});
        ck[p + "self_attn.v_proj.weight"] = randn({kv, C});
        if (c.qkv_bias) {
            ck[p + "self_attn.q_proj.bias"] = randn({q}, 0.1);
            ck[p + "self_attn.k_proj.bias"] = randn({kv}, 0.1);
            ck[p + "self_attn.v_proj.bias"] = randn({kv}, 0.1);
        }
        ck[p + "self_attn.o_proj.weight"] = randn({C, q});
        if (c.o_bias) ck[p + "self_attn.o_proj.bias"] = randn({C}, 0.05);
        if (c.qk_norm) {
            ck[p + "self_attn.q_norm.weight"] = randn({d}, 0.1, 1);
            ck[p + "self_attn.k_norm.weight"] = randn({d}, 0.1, 1);
        }
        for (const char* m : {"gate_proj", "up_proj"}) {
            ck[p + "mlp." + m + ".weight"] = randn({F, C});
            if (c.mlp_bias) ck[p + "mlp." + m + ".bias"] = randn({F}, 0.05);
        }
        ck[p + "mlp.down_proj.weight"] = randn({C, F});
        if (c.mlp_bias) ck[p + "mlp.down_proj.bias"] = randn({C}, 0.05);
        if (l == 0) ck[p + "self_attn.rotary_emb.inv_freq"] = randn({d / 2});  // older Llama checkpoints hold it
    }
    ck["model.norm.weight"] = randn({C}, 0.1, 1);
    if (!c.tie_word_embeddings) ck["lm_head.weight"] = randn({V, C});
    return ck;
}

// The .arcs tensors (float32, our names) that checkpoint ck of config c must become, mapped by hand.
std::map<std::string, std::vector<float>> mapped_by_hand(const ModelConfig& c, const Checkpoint& ck) {
    std::map<std::string, std::vector<float>> out;
    auto v = [&](const std::string& name) { return f32_values(ck.at(name)); };
    auto cat = [](std::vector<float> a, const std::vector<float>& b, const std::vector<float>& c3) {
        a.insert(a.end(), b.begin(), b.end());
        a.insert(a.end(), c3.begin(), c3.end());
        return a;
    };
    const bool neox = c.arch == Arch::gpt_neox;
    const std::string top = neox ? "gpt_neox." : "model.";
    out["wte.weight"] = v(top + (neox ? "embed_in.weight" : "embed_tokens.weight"));
    for (int l = 0; l < c.n_layer; ++l) {
        const std::string p = top + "layers." + std::to_string(l) + ".", o = "h." + std::to_string(l) + ".";
        out[o + "ln_1.weight"] = v(p + "input_layernorm.weight");
        out[o + "ln_2.weight"] = v(p + "post_attention_layernorm.weight");
        if (neox) {
            out[o + "ln_1.bias"] = v(p + "input_layernorm.bias");
            out[o + "ln_2.bias"] = v(p + "post_attention_layernorm.bias");
            // Row (h, s, i) of the fused matrix, s = q, k, v, is row (s, h, i) of ours.
            const int H = c.n_head, d = c.head_dim(), C = c.n_embd;
            const std::vector<float> w = v(p + "attention.query_key_value.weight"),
                                     b = v(p + "attention.query_key_value.bias");
            std::vector<float> ours_w(w.size()), ours_b(b.size());
            for (int h = 0; h < H; ++h)
                for (int s = 0; s < 3; ++s)
                    for (int i = 0; i < d; ++i) {
                        const size_t from = size_t((h * 3 + s) * d + i), to = size_t((s * H + h) * d + i);
                        ours_b[to] = b[from];
                        std::memcpy(&ours_w[to * C], &w[from * C], size_t(C) * 4);
                    }
            out[o + "attn.c_attn.weight"] = ours_w;
            out[o + "attn.c_attn.bias"] = ours_b;
            out[o + "attn.c_proj.weight"] = v(p + "attention.dense.weight");
            out[o + "attn.c_proj.bias"] = v(p + "attention.dense.bias");
            out[o + "mlp.c_fc.weight"] = v(p + "mlp.dense_h_to_4h.weight");
            out[o + "mlp.c_fc.bias"] = v(p + "mlp.dense_h_to_4h.bias");
            out[o + "mlp.c_proj.weight"] = v(p + "mlp.dense_4h_to_h.weight");
            out[o + "mlp.c_proj.bias"] = v(p + "mlp.dense_4h_to_h.bias");
            continue;
        }
        const std::string a = p + "self_attn.";
        out[o + "attn.c_attn.weight"] = cat(v(a + "q_proj.weight"), v(a + "k_proj.weight"), v(a + "v_proj.weight"));
        if (c.qkv_bias)
            out[o + "attn.c_attn.bias"] = cat(v(a + "q_proj.bias"), v(a + "k_proj.bias"), v(a + "v_proj.bias"));
        out[o + "attn.c_proj.weight"] = v(a + "o_proj.weight");
        if (c.o_bias) out[o + "attn.c_proj.bias"] = v(a + "o_proj.bias");
        if (c.qk_norm) {
            out[o + "attn.q_norm.weight"] = v(a + "q_norm.weight");
            out[o + "attn.k_norm.weight"] = v(a + "k_norm.weight");
        }
        out[o + "mlp.c_fc.weight"] = v(p + "mlp.up_proj.weight");
        out[o + "mlp.gate.weight"] = v(p + "mlp.gate_proj.weight");
        out[o + "mlp.c_proj.weight"] = v(p + "mlp.down_proj.weight");
        if (c.mlp_bias) {
            out[o + "mlp.c_fc.bias"] = v(p + "mlp.up_proj.bias");
            out[o + "mlp.gate.bias"] = v(p + "mlp.gate_proj.bias");
            out[o + "mlp.c_proj.bias"] = v(p + "mlp.down_proj.bias");
        }
    }
    out["ln_f.weight"] = v(top + (neox ? "final_layer_norm.weight" : "norm.weight"));
    if (neox) out["ln_f.bias"] = v("gpt_neox.final_layer_norm.bias");
    if (!c.tie_word_embeddings) out["lm_head.weight"] = v(neox ? "embed_out.weight" : "lm_head.weight");
    return out;
}

std::vector<uint8_t> stored(const ModelFile& f, const std::string& name) {
    const TensorEntry& e = f.tensor(name);
    return std::vector<uint8_t>(e.data, e.data + e.size);
}

// What a tensor of these values is in the file: float32 bytes, or q_pack of the whole matrix.
std::vector<uint8_t> expected_bytes(const TensorSpec& spec, const std::vector<float>& w) {
    if (spec.type == DType::F32)
        return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(w.data()),
                                    reinterpret_cast<const uint8_t*>(w.data() + w.size()));
    std::vector<uint8_t> out(q_packed_bytes(spec.type, spec.rows, spec.cols));
    q_pack(spec.type, w.data(), spec.rows, spec.cols, out.data());
    return out;
}

// Shards: the checkpoint's tensors (in name order) dealt into n files, and the index naming them.
struct Shards {
    std::vector<std::string> names;
    std::vector<std::vector<uint8_t>> files;
    std::string index;
};
Shards shard(const Checkpoint& ck, int n) {
    Shards s;
    std::vector<Checkpoint> parts(static_cast<size_t>(n));
    std::string map;
    size_t i = 0;
    for (const auto& [name, t] : ck) {
        const size_t k = i++ * size_t(n) / ck.size();
        parts[k][name] = t;
        map += (map.empty() ? "\"" : ",\"") + name + "\":\"model-0000" + std::to_string(k + 1) + "-of-0000" +
               std::to_string(n) + ".safetensors\"";
    }
    for (int k = 0; k < n; ++k) {
        s.names.push_back("model-0000" + std::to_string(k + 1) + "-of-0000" + std::to_string(n) + ".safetensors");
        s.files.push_back(safetensors_bytes(parts[size_t(k)]));
    }
    s.index = "{\"metadata\":{\"total_size\":0},\"weight_map\":{" + map + "}}";
    return s;
}

std::vector<uint8_t> convert_shards(const ModelConfig& c, const Shards& s, DType dtype, size_t chunk = 4096) {
    Converter conv(c, dtype, std::string_view(s.index));
    EXPECT_EQ(conv.shards(), s.names);
    for (size_t k = 0; k < s.files.size(); ++k) {
        conv.begin_shard(s.names[k], s.files[k].size());
        const std::vector<uint8_t>& f = s.files[k];
        for (size_t at = 0; at < f.size(); at += chunk) conv.feed(f.data() + at, std::min(chunk, f.size() - at));
    }
    return conv.finish().to_vector();
}

constexpr Arch kDecoders[] = {Arch::gpt_neox, Arch::llama, Arch::qwen2, Arch::qwen3};

// A folder on disk for convert_checkpoint_dir, removed with the test.
struct Folder {
    std::string path;
    Folder() {
        std::string pattern = (std::filesystem::temp_directory_path() / "arcscope-convert-XXXXXX").string();
        path = mkdtemp(pattern.data());
    }
    ~Folder() { std::filesystem::remove_all(path); }
    void write(const std::string& name, const std::string& text) const {
        std::ofstream(path + "/" + name, std::ios::binary) << text;
    }
    void write(const std::string& name, const std::vector<uint8_t>& bytes) const {
        write(name, std::string(bytes.begin(), bytes.end()));
    }
};

// config.json of each tiny architecture, with the keys its model_type's files carry.
std::string hf_config_text(const ModelConfig& c) {
    const std::string sizes =
        "\"hidden_size\": " + std::to_string(c.n_embd) + ", \"num_hidden_layers\": " + std::to_string(c.n_layer) +
        ", \"num_attention_heads\": " + std::to_string(c.n_head) +
        ", \"intermediate_size\": " + std::to_string(c.mlp_width()) + ", \"vocab_size\": " + std::to_string(c.n_vocab) +
        ", \"max_position_embeddings\": " + std::to_string(c.n_ctx) +
        ", \"tie_word_embeddings\": " + (c.tie_word_embeddings ? "true" : "false");
    if (c.arch == Arch::gpt_neox)
        return "{\"model_type\": \"gpt_neox\", " + sizes +
               ", \"rotary_pct\": " + std::to_string(double(c.rotary_dim) / c.head_dim()) +
               ", \"hidden_act\": \"gelu\"}";
    std::string s = "{\"model_type\": \"" + std::string(arch_name(c.arch)) + "\", " + sizes +
                    ", \"num_key_value_heads\": " + std::to_string(c.kv_heads()) +
                    ", \"rms_norm_eps\": 1e-6, \"rope_theta\": " + std::to_string(c.rope_theta);
    if (c.arch != Arch::qwen2) s += ", \"head_dim\": " + std::to_string(c.head_dim());
    if (c.rope_scaling.kind == RopeScaling::Kind::llama3)
        s += ", \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": " + std::to_string(c.rope_scaling.factor) +
             ", \"low_freq_factor\": " + std::to_string(c.rope_scaling.low_freq_factor) +
             ", \"high_freq_factor\": " + std::to_string(c.rope_scaling.high_freq_factor) +
             ", \"original_max_position_embeddings\": " +
             std::to_string(int(c.rope_scaling.original_max_position_embeddings)) + "}";
    return s + "}";
}

}  // namespace

// The released models' own config.json files (their computation-changing keys) read as transformers reads them.
TEST(ConvertDecoders, ReadsEachModelTypesConfig) {
    const ModelConfig pythia = config_from_hf_json(R"({"architectures": ["GPTNeoXForCausalLM"],
        "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu", "hidden_size": 512, "initializer_range": 0.02,
        "intermediate_size": 2048, "layer_norm_eps": 1e-05, "max_position_embeddings": 2048,
        "model_type": "gpt_neox", "num_attention_heads": 8, "num_hidden_layers": 6, "rotary_emb_base": 10000,
        "rotary_pct": 0.25, "tie_word_embeddings": false, "torch_dtype": "float16", "use_cache": true,
        "use_parallel_residual": true, "vocab_size": 50304})");
    EXPECT_EQ(pythia.arch, Arch::gpt_neox);
    EXPECT_EQ(pythia.head_dim(), 64);
    EXPECT_EQ(pythia.rotary_dim, 16);
    EXPECT_EQ(pythia.mlp, MlpKind::gelu_erf);
    EXPECT_EQ(pythia.norm, NormKind::layernorm);
    EXPECT_TRUE(pythia.parallel_residual && pythia.qkv_bias && pythia.o_bias && pythia.mlp_bias);
    EXPECT_FALSE(pythia.tie_word_embeddings);
    EXPECT_EQ(pythia.n_ctx, 2048);
    EXPECT_EQ(pythia.describe(),
              "gpt_neox: n_layer 6, n_head 8, n_embd 512, n_ctx 2048, n_vocab 50304, n_kv_head 8, head_dim 64, d_mlp "
              "2048, layernorm, gelu_erf, rotary 16, parallel residual, untied head");

    const ModelConfig smollm = config_from_hf_json(R"({"architectures": ["LlamaForCausalLM"],
        "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "silu",
        "hidden_size": 576, "initializer_range": 0.041666666666666664, "intermediate_size": 1536,
        "max_position_embeddings": 8192, "mlp_bias": false, "model_type": "llama", "num_attention_heads": 9,
        "num_hidden_layers": 30, "num_key_value_heads": 3, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
        "rope_scaling": null, "rope_theta": 100000, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
        "use_cache": true, "vocab_size": 49152})");
    EXPECT_EQ(smollm.arch, Arch::llama);
    EXPECT_EQ(smollm.kv_heads(), 3);
    EXPECT_EQ(smollm.head_dim(), 64);
    EXPECT_EQ(smollm.rotary_dim, 64);
    EXPECT_EQ(smollm.mlp_width(), 1536);
    EXPECT_EQ(smollm.rope_theta, 100000);
    EXPECT_FLOAT_EQ(smollm.norm_eps, 1e-5f);
    EXPECT_TRUE(smollm.tie_word_embeddings);
    EXPECT_FALSE(smollm.qkv_bias || smollm.o_bias || smollm.mlp_bias || smollm.qk_norm || smollm.parallel_residual);
    EXPECT_EQ(smollm.norm, NormKind::rmsnorm);
    EXPECT_EQ(smollm.mlp, MlpKind::swiglu);

    const ModelConfig llama32 = config_from_hf_json(R"({"architectures": ["LlamaForCausalLM"], "head_dim": 64,
        "hidden_act": "silu", "hidden_size": 2048, "intermediate_size": 8192, "max_position_embeddings": 131072,
        "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
        "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "rope_theta": 500000.0,
        "tie_word_embeddings": true, "vocab_size": 128256})");
    EXPECT_EQ(llama32.rope_scaling.kind, RopeScaling::Kind::llama3);
    EXPECT_EQ(llama32.rope_scaling.factor, 32);
    EXPECT_EQ(llama32.rope_scaling.low_freq_factor, 1);
    EXPECT_EQ(llama32.rope_scaling.high_freq_factor, 4);
    EXPECT_EQ(llama32.rope_scaling.original_max_position_embeddings, 8192);
    EXPECT_EQ(llama32.rope_theta, 500000);
    EXPECT_EQ(llama32.n_ctx, 131072);

    const ModelConfig qwen25 = config_from_hf_json(R"({"architectures": ["Qwen2ForCausalLM"],
        "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643, "hidden_act": "silu",
        "hidden_size": 896, "intermediate_size": 4864, "max_position_embeddings": 32768, "max_window_layers": 21,
        "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
        "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": true,
        "use_sliding_window": false, "vocab_size": 151936})");
    EXPECT_EQ(qwen25.arch, Arch::qwen2);
    EXPECT_TRUE(qwen25.qkv_bias);
    EXPECT_FALSE(qwen25.o_bias || qwen25.mlp_bias);
    EXPECT_EQ(qwen25.head_dim(), 64);
    EXPECT_EQ(qwen25.kv_heads(), 2);

    const ModelConfig qwen3 = config_from_hf_json(R"({"architectures": ["Qwen3ForCausalLM"], "attention_bias": false,
        "head_dim": 128, "hidden_act": "silu", "hidden_size": 1024, "intermediate_size": 3072,
        "max_position_embeddings": 40960, "max_window_layers": 28, "model_type": "qwen3", "num_attention_heads": 16,
        "num_hidden_layers": 28, "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": null,
        "rope_theta": 1000000, "sliding_window": null, "tie_word_embeddings": true, "use_sliding_window": false,
        "vocab_size": 151936})");
    EXPECT_EQ(qwen3.arch, Arch::qwen3);
    EXPECT_TRUE(qwen3.qk_norm);
    EXPECT_EQ(qwen3.head_dim(), 128);
    EXPECT_EQ(qwen3.q_width(), 2048);  // wider than hidden_size
    EXPECT_FALSE(qwen3.qkv_bias || qwen3.o_bias);
}

// Where a config leaves a key out, each model_type's own default applies (transformers' configuration classes).
TEST(ConvertDecoders, EachModelTypeHasItsOwnDefaults) {
    const std::string sizes = R"("hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 512, "vocab_size": 100)";
    auto parse = [&](const std::string& type, const std::string& extra = "") {
        return config_from_hf_json("{\"model_type\": \"" + type + "\", " + sizes + extra + "}");
    };
    for (const char* type : {"gpt_neox", "llama", "qwen2", "qwen3"})
        EXPECT_FALSE(parse(type).tie_word_embeddings) << type << ": untied unless config.json ties it";
    const ModelConfig neox = parse("gpt_neox");
    EXPECT_EQ(neox.rotary_dim, 16);  // int(64 * 0.25)
    EXPECT_EQ(neox.n_ctx, 2048);
    EXPECT_TRUE(neox.parallel_residual);
    EXPECT_FLOAT_EQ(neox.norm_eps, 1e-5f);
    EXPECT_EQ(parse("gpt_neox", R"(, "use_parallel_residual": false, "rotary_pct": 1.0)").rotary_dim, 64);
    EXPECT_FALSE(parse("gpt_neox", R"(, "use_parallel_residual": false)").parallel_residual);
    EXPECT_EQ(parse("gpt_neox", R"(, "partial_rotary_factor": 0.5, "rope_theta": 500)").rotary_dim, 32);
    EXPECT_EQ(parse("gpt_neox", R"(, "rotary_emb_base": 500)").rope_theta, 500);
    EXPECT_FALSE(parse("gpt_neox", R"(, "attention_bias": false)").qkv_bias);
    EXPECT_EQ(parse("gpt_neox", R"(, "hidden_act": "gelu_new")").mlp, MlpKind::gelu_tanh);
    const ModelConfig llama = parse("llama");
    EXPECT_EQ(llama.kv_heads(), 4);
    EXPECT_EQ(llama.head_dim(), 64);
    EXPECT_EQ(llama.n_ctx, 2048);
    EXPECT_FLOAT_EQ(llama.norm_eps, 1e-6f);
    EXPECT_EQ(llama.rope_theta, 10000);
    EXPECT_EQ(parse("qwen2").n_ctx, 32768);
    EXPECT_EQ(parse("qwen3").head_dim(), 128);  // Qwen3Config's head_dim, whatever hidden_size / heads is
    EXPECT_EQ(parse("llama", R"(, "head_dim": 32)").q_width(), 128);
    const ModelConfig biased = parse("llama", R"(, "attention_bias": true, "mlp_bias": true)");
    EXPECT_TRUE(biased.qkv_bias && biased.o_bias && biased.mlp_bias);
    EXPECT_FALSE(parse("qwen2", R"(, "attention_bias": true)").o_bias);  // Qwen2's o_proj has no bias, ever
    EXPECT_TRUE(parse("qwen2", R"(, "attention_bias": false)").qkv_bias);
    EXPECT_FALSE(parse("qwen3", R"(, "mlp_bias": true)").mlp_bias);  // a key Qwen3's MLP does not read
    EXPECT_TRUE(parse("qwen3", R"(, "attention_bias": true)").o_bias);
    // transformers 5 keeps rope_theta and the scaling in rope_parameters.
    EXPECT_EQ(parse("llama", R"(, "rope_parameters": {"rope_type": "default", "rope_theta": 500000})").rope_theta,
              500000);
    const std::string llama3 = R"({"rope_type": "llama3", "factor": 32, "low_freq_factor": 1, "high_freq_factor": 4,
        "original_max_position_embeddings": 8192, "rope_theta": 500000})";
    const ModelConfig both = parse("llama", ", \"rope_scaling\": " + llama3 + ", \"rope_parameters\": " + llama3);
    EXPECT_EQ(both.rope_scaling.kind, RopeScaling::Kind::llama3);
    EXPECT_EQ(both.rope_scaling.factor, 32);
    EXPECT_EQ(parse("llama", ", \"rope_parameters\": " + llama3).rope_scaling.factor, 32);
    EXPECT_EQ(
        parse("gpt_neox", R"(, "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.5})").rotary_dim,
        32);
    // What changes nothing a forward pass computes.
    EXPECT_EQ(error_of([&] {
                  parse("qwen2", R"(, "use_sliding_window": false, "sliding_window": 4096, "max_window_layers": 21,
                      "layer_types": ["full_attention", "full_attention"], "num_experts": 0, "pretraining_tp": 1,
                      "rope_scaling": {"rope_type": "default"}, "attention_dropout": 0.1, "torch_dtype": "bfloat16")");
              }),
              "(no error)");
}

// What these decoders do not compute is refused by name, before any weight is read.
TEST(ConvertDecoders, RefusesWhatItDoesNotComputeByName) {
    const std::string sizes = R"("hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 512, "vocab_size": 100)";
    auto refusal = [&](const std::string& type, const std::string& extra) {
        return error_of([&] { config_from_hf_json("{\"model_type\": \"" + type + "\", " + sizes + extra + "}"); });
    };
    const std::vector<std::tuple<std::string, std::string, std::string>> refused = {
        {"llama", R"(, "rope_scaling": {"rope_type": "yarn", "factor": 4})",
         "config.json: rope_scaling.rope_type 'yarn' is not supported (supported: default, llama3)"},
        {"llama", R"(, "rope_scaling": {"type": "linear", "factor": 2})",
         "config.json: rope_scaling.rope_type 'linear' is not supported (supported: default, llama3)"},
        {"llama", R"(, "rope_parameters": {"rope_type": "dynamic", "factor": 2})",
         "config.json: rope_scaling.rope_type 'dynamic' is not supported (supported: default, llama3)"},
        {"llama", R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8})",
         "config.json: rope_scaling of rope_type llama3 lacks low_freq_factor"},
        {"qwen2",
         R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4,
             "original_max_position_embeddings": 8192})",
         "config.json: rope_scaling.rope_type 'llama3' is not supported for qwen2 (supported: default)"},
        {"gpt_neox", R"(, "rope_scaling": {"type": "dynamic", "factor": 2})",
         "config.json: rope_scaling.rope_type 'dynamic' is not supported for gpt_neox (supported: default)"},
        {"qwen2", R"(, "use_sliding_window": true, "sliding_window": 4096)",
         "config.json: use_sliding_window true is not supported (sliding-window attention: arcscope attends to every "
         "earlier position)"},
        {"qwen3", R"(, "layer_types": ["full_attention", "sliding_attention"])",
         "config.json: layer_types 'sliding_attention' is not supported (supported: full_attention)"},
        {"qwen2", R"(, "num_experts": 60, "num_experts_per_tok": 4)",
         "config.json: num_experts is not supported (mixture-of-experts MLPs)"},
        {"llama", R"(, "num_local_experts": 8)",
         "config.json: num_local_experts is not supported (mixture-of-experts MLPs)"},
        {"llama", R"(, "final_logit_softcapping": 30.0)",
         "config.json: final_logit_softcapping is not supported (Gemma's soft-capping)"},
        {"llama", R"(, "attn_logit_softcapping": 50.0)",
         "config.json: attn_logit_softcapping is not supported (Gemma's soft-capping)"},
        {"llama", R"(, "hidden_act": "gelu_pytorch_tanh")",
         "config.json: hidden_act 'gelu_pytorch_tanh' is not supported for llama (supported: silu)"},
        {"qwen3", R"(, "hidden_act": "relu")", "config.json: hidden_act 'relu' is not supported for qwen3"},
        {"gpt_neox", R"(, "hidden_act": "relu")",
         "config.json: hidden_act 'relu' is not supported for gpt_neox (supported: gelu, and the tanh approximation "
         "gelu_new)"},
        {"llama", R"(, "partial_rotary_factor": 0.5)",
         "config.json: partial_rotary_factor 0.500000 is not supported for llama (its rotary covers the whole head)"},
        {"qwen3", R"(, "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.5})",
         "config.json: partial_rotary_factor 0.500000 is not supported for qwen3"},
        {"llama", R"(, "rope_theta": 10000, "rope_parameters": {"rope_theta": 500000})",
         "config.json: rope_theta and rope_parameters.rope_theta disagree: give one"},
        {"llama",
         R"(, "rope_scaling": {"rope_type": "default"}, "rope_parameters": {"rope_type": "llama3", "factor": 8,
             "low_freq_factor": 1, "high_freq_factor": 4, "original_max_position_embeddings": 8192})",
         "config.json: rope_scaling and rope_parameters disagree: give one"},
        {"qwen2", R"(, "head_dim": 128)", "config.json: head_dim 128 is not supported for qwen2"},
        {"gpt_neox", R"(, "rotary_pct": 0.25, "partial_rotary_factor": 0.5)",
         "config.json: rotary_pct 0.250000 and partial_rotary_factor 0.500000 disagree: give one"},
        {"gpt_neox", R"(, "rotary_pct": 0)", "config.json: rotary_pct 0.000000 is out of range (0, 1]"},
        {"llama", R"(, "num_key_value_heads": 3)",
         "config.json: num_attention_heads 4 is not a multiple of num_key_value_heads 3"},
        {"llama", R"(, "architectures": ["LlamaForSequenceClassification"])",
         "config.json: architectures 'LlamaForSequenceClassification' is not supported for model_type llama "
         "(supported: LlamaForCausalLM)"},
        {"qwen2", R"(, "quantization_config": {"quant_method": "gptq"})",
         "config.json: quantization_config is not supported"},
        {"mistral", "",
         "config.json: model_type 'mistral' is not supported (supported: gpt2, gpt_neox, llama, "
         "qwen2, qwen3)"},
        {"gemma3_text", "", "config.json: model_type 'gemma3_text' is not supported"},
        {"qwen2_moe", "", "config.json: model_type 'qwen2_moe' is not supported"},
    };
    for (const auto& [type, extra, message] : refused) {
        const std::string got = refusal(type, extra);
        EXPECT_TRUE(has(got, message)) << type << extra << "\n -> " << got;
    }
    EXPECT_TRUE(has(error_of([] { config_from_hf_json(R"({"model_type": "llama", "hidden_size": 64})"); }),
                    "config.json: missing num_hidden_layers"));
    EXPECT_TRUE(has(error_of([] {
                        config_from_hf_json(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
                            "num_attention_heads": 4, "vocab_size": 10})");
                    }),
                    "config.json: missing intermediate_size"));
}

// Each architecture's checkpoint converts to its tensors mapped by hand (float32 exactly; q8 and q16 as q_pack packs
// the mapped matrix whole, so row ranges and regrouped heads land on whole records), skipping its buffers.
TEST(ConvertDecoders, EachLayoutConvertsToItsTensorsMappedByHand) {
    for (Arch arch : kDecoders) {
        ModelConfig c = tiny_arch_config(arch);
        if (arch == Arch::llama) c.mlp_bias = c.qkv_bias = c.o_bias = true;  // every tensor Llama may have
        const Checkpoint ck = hf_checkpoint(c, 3);
        const std::map<std::string, std::vector<float>> want = mapped_by_hand(c, ck);
        for (DType type : {DType::F32, DType::Q8, DType::Q16}) {
            const std::vector<uint8_t> bytes = convert_bytes(c, safetensors_bytes(ck), type, 777);
            const ModelFile f = ModelFile::parse(bytes.data(), bytes.size());
            EXPECT_EQ(f.config().arch, arch);
            // Asked for q16, these architectures' files hold the full 16 bits.
            EXPECT_EQ(f.weight_type(), type == DType::Q16 ? DType::Q16Full : type) << arch_name(arch);
            const std::vector<TensorSpec> specs = tensor_specs(c, f.weight_type());
            ASSERT_EQ(specs.size(), want.size()) << arch_name(arch);
            for (const TensorSpec& spec : specs) {
                ASSERT_TRUE(want.count(spec.name)) << spec.name;
                EXPECT_EQ(stored(f, spec.name), expected_bytes(spec, want.at(spec.name)))
                    << arch_name(arch) << " " << spec.name << " in " << dtype_name(type);
            }
        }
    }
}

// The bytes arrive in chunks of any size: the same file.
TEST(ConvertDecoders, ChunkSizeDoesNotMatter) {
    for (Arch arch : kDecoders) {
        const ModelConfig c = tiny_arch_config(arch);
        const std::vector<uint8_t> st = safetensors_bytes(hf_checkpoint(c, 4));
        const std::vector<uint8_t> whole = convert_bytes(c, st, DType::Q8, st.size());
        for (size_t chunk : {size_t(1), size_t(333), size_t(65537)})
            EXPECT_EQ(convert_bytes(c, st, DType::Q8, chunk), whole) << arch_name(arch) << ", chunk " << chunk;
    }
}

// F16 and BF16 weights become float32 exactly: weights that both hold exactly give the same file as F32's.
TEST(ConvertDecoders, ReadsF16AndBF16) {
    for (Arch arch : {Arch::gpt_neox, Arch::qwen3}) {
        const ModelConfig c = tiny_arch_config(arch);
        Checkpoint ck = hf_checkpoint(c, 5);
        for (auto& [name, t] : ck) {
            if (t.dtype != "F32") continue;
            std::vector<float> v = f32_values(t);
            for (float& x : v) x = std::ldexp(std::round(std::ldexp(x, 6)), -6);  // 6 fraction bits, |x| < 8
            t = f32_tensor(t.shape, v);
        }
        const std::vector<uint8_t> want = convert_bytes(c, safetensors_bytes(ck), DType::F32);
        for (const std::string dtype : {"F16", "BF16"}) {
            Checkpoint half;
            for (const auto& [name, t] : ck) {
                if (t.dtype != "F32") {
                    half[name] = t;
                    continue;
                }
                const std::vector<float> v = f32_values(t);
                RawTensor h{dtype, t.shape, std::vector<uint8_t>(v.size() * 2)};
                for (size_t i = 0; i < v.size(); ++i) {
                    uint32_t u;
                    std::memcpy(&u, &v[i], 4);
                    uint16_t bits = uint16_t(u >> 16);  // bfloat16: exact for values of <= 8 significant bits
                    if (dtype == "F16") {
                        const uint32_t sign = (u >> 16) & 0x8000, e = (u >> 23) & 0xFF, m = u & 0x7FFFFF;
                        bits = v[i] == 0 ? uint16_t(sign) : uint16_t(sign | (e - 127 + 15) << 10 | m >> 13);
                    }
                    std::memcpy(&h.bytes[2 * i], &bits, 2);
                }
                half[name] = h;
            }
            EXPECT_EQ(convert_bytes(c, safetensors_bytes(half), DType::F32, 1000), want) << arch_name(arch) << dtype;
        }
    }
}

// A tied head the checkpoint stores anyway converts when it is the embedding, and is refused when it is not.
TEST(ConvertDecoders, ATiedHeadMustBeTheEmbedding) {
    ModelConfig c = tiny_arch_config(Arch::gpt_neox);
    c.tie_word_embeddings = true;
    Checkpoint ck = hf_checkpoint(c, 6);
    const std::vector<uint8_t> want = convert_bytes(c, safetensors_bytes(ck), DType::Q8);
    ck["embed_out.weight"] = ck.at("gpt_neox.embed_in.weight");
    EXPECT_EQ(convert_bytes(c, safetensors_bytes(ck), DType::Q8), want);
    std::vector<float> head = f32_values(ck["embed_out.weight"]);
    head[77] += 0.5f;
    ck["embed_out.weight"] = f32_tensor(ck["embed_out.weight"].shape, head);
    EXPECT_TRUE(has(error_of([&] { convert_bytes(c, safetensors_bytes(ck), DType::Q8); }),
                    "embed_out.weight differs from gpt_neox.embed_in.weight, though config.json ties them"));
    // Untied: the head is a tensor of its own, and one the checkpoint must hold.
    const ModelConfig untied = tiny_arch_config(Arch::llama);
    Checkpoint no_head = hf_checkpoint(untied, 7);
    no_head.erase("lm_head.weight");
    EXPECT_EQ(error_of([&] { convert_bytes(untied, safetensors_bytes(no_head), DType::Q8); }),
              "checkpoint lacks tensor lm_head.weight");
}

TEST(ConvertDecoders, NamesWhatIsWrong) {
    const ModelConfig c = tiny_arch_config(Arch::llama);
    const Checkpoint good = hf_checkpoint(c, 8);
    auto error = [&](const Checkpoint& ck) {
        return error_of([&] { convert_bytes(c, safetensors_bytes(ck), DType::Q8); });
    };
    Checkpoint ck = good;
    ck.erase("model.layers.1.self_attn.k_proj.weight");
    EXPECT_EQ(error(ck), "checkpoint lacks tensor model.layers.1.self_attn.k_proj.weight");
    ck = good;
    ck["model.layers.0.self_attn.k_proj.weight"] = f32_tensor({64, 64}, std::vector<float>(64 * 64));
    EXPECT_TRUE(has(error(ck), "tensor model.layers.0.self_attn.k_proj.weight: expected [32, 64], got [64, 64]"));
    ck = good;
    ck["model.layers.0.mlp.experts.0.up_proj.weight"] = f32_tensor({2}, {1, 2});
    EXPECT_TRUE(has(error(ck),
                    "checkpoint has an unexpected tensor 'model.layers.0.mlp.experts.0.up_proj.weight' "
                    "(not part of Llama with llama: n_layer 2"));
    // A GPT-2 checkpoint under a Llama config names the first tensor Llama lacks.
    EXPECT_TRUE(
        has(error_of([&] { convert_bytes(c, safetensors_bytes(random_checkpoint(tiny_config(), 1)), DType::Q8); }),
            "checkpoint has an unexpected tensor"));
}

// q8 and q16 pack rows in groups of 8: a projection whose rows start inside a group is refused for them (and
// converts to f32), rather than written over its neighbour's records.
TEST(ConvertDecoders, RowRangesThatSplitAPackedGroupAreRefused) {
    ModelConfig c = tiny_arch_config(Arch::llama);
    c.n_head = 4, c.n_kv_head = 2, c.d_head = 6, c.rotary_dim = 6;  // q rows [0, 24), k [24, 36), v [36, 48)
    const Checkpoint ck = hf_checkpoint(c, 9);
    EXPECT_EQ(error_of([&] { convert_bytes(c, safetensors_bytes(ck), DType::Q8); }),
              "tensor model.layers.0.self_attn.k_proj.weight: its rows go to h.0.attn.c_attn.weight in runs of 12 "
              "from row 24, which q8 cannot pack (it packs rows in groups of 8): convert to f32");
    const std::vector<uint8_t> bytes = convert_bytes(c, safetensors_bytes(ck), DType::F32);
    const ModelFile f = ModelFile::parse(bytes.data(), bytes.size());
    const TensorSpec spec = tensor_specs(c, DType::F32)[2];
    ASSERT_EQ(spec.name, "h.0.attn.c_attn.weight");
    EXPECT_EQ(stored(f, spec.name), expected_bytes(spec, mapped_by_hand(c, ck).at(spec.name)));
}

// Shards stream one after another into the same file one model.safetensors gives.
TEST(ConvertDecoders, ShardsGiveTheFileOneFileGives) {
    for (Arch arch : {Arch::gpt2, Arch::gpt_neox, Arch::llama, Arch::qwen3}) {
        const ModelConfig c = tiny_arch_config(arch);
        const Checkpoint ck = arch == Arch::gpt2 ? random_checkpoint(c, 10) : hf_checkpoint(c, 10);
        for (DType type : {DType::F32, DType::Q16}) {
            const std::vector<uint8_t> one = convert_bytes(c, safetensors_bytes(ck), type);
            EXPECT_EQ(convert_shards(c, shard(ck, 3), type, 999), one) << arch_name(arch) << " " << dtype_name(type);
        }
    }
}

TEST(ConvertDecoders, HostileShardsAndIndexesAreRefused) {
    const ModelConfig c = tiny_arch_config(Arch::qwen2);
    const Checkpoint ck = hf_checkpoint(c, 11);
    const Shards good = shard(ck, 3);
    auto refusal = [&](const Shards& s) { return error_of([&] { convert_shards(c, s, DType::Q8); }); };

    // A tensor in two shards: the index puts it in one, the other's header holds it too.
    Shards twice = good;
    Checkpoint second;
    for (const auto& [name, t] : ck)
        if (good.index.find("\"" + name + "\":\"" + good.names[1]) != std::string::npos) second[name] = t;
    second["model.norm.weight"] = ck.at("model.norm.weight");
    twice.files[1] = safetensors_bytes(second);
    EXPECT_TRUE(has(refusal(twice),
                    "tensor model.norm.weight is in model-00002-of-00003.safetensors, but "
                    "model.safetensors.index.json puts it in model-00003-of-00003.safetensors"));

    // A shard whose header describes more than the file holds: refused at its header, before its data.
    Shards lies = good;
    lies.files[1].resize(lies.files[1].size() - 100);
    EXPECT_TRUE(has(refusal(lies), "truncated checkpoint: model-00002-of-00003.safetensors is "));
    Shards longer = good;
    longer.files[2].push_back(0);
    EXPECT_TRUE(has(refusal(longer), "longer than its safetensors header describes"));

    // A shard that lacks a tensor the index puts in it.
    Shards lacking = good;
    Checkpoint third;
    for (const auto& [name, t] : ck)
        if (good.index.find("\"" + name + "\":\"" + good.names[2]) != std::string::npos) third[name] = t;
    third.erase("model.norm.weight");
    lacking.files[2] = safetensors_bytes(third);
    EXPECT_TRUE(has(refusal(lacking),
                    "model.safetensors.index.json puts model.norm.weight in "
                    "model-00003-of-00003.safetensors, but its header lacks it"));

    // Indexes that are wrong before any shard is read.
    auto index_error = [&](const std::string& index) {
        return error_of([&] { Converter conv(c, DType::Q8, std::string_view(index)); });
    };
    std::string index = good.index;
    const std::string norm = "\"model.norm.weight\":\"" + good.names[2] + "\"";
    EXPECT_TRUE(has(index_error(std::string(index).replace(index.find(norm), norm.size(),
                                                           "\"model.norm.weight\":\"../elsewhere.safetensors\"")),
                    "model.safetensors.index.json: weight_map puts model.norm.weight in '../elsewhere.safetensors', "
                    "which is not the name of a .safetensors file beside it"));
    EXPECT_EQ(index_error(std::string(index).replace(index.find(norm) - 1, norm.size() + 1, "")),
              "checkpoint lacks tensor model.norm.weight (model.safetensors.index.json's weight_map does not list "
              "it)");
    EXPECT_TRUE(has(index_error(std::string(index).replace(index.find(norm), norm.size(),
                                                           norm + ",\"model.extra.weight\":\"x.safetensors\"")),
                    "checkpoint has an unexpected tensor 'model.extra.weight'"));
    EXPECT_TRUE(has(index_error("{\"metadata\": {}}"), "model.safetensors.index.json: needs a weight_map object"));
    EXPECT_TRUE(has(index_error("{\"weight_map\": "), "model.safetensors.index.json: JSON"));

    // Shards fed out of turn, twice, or not at all.
    Converter conv(c, DType::Q8, std::string_view(good.index));
    EXPECT_TRUE(has(error_of([&] { conv.feed(good.files[0].data(), 8); }), "feed() before begin_shard()"));
    EXPECT_EQ(error_of([&] { conv.begin_shard("model.safetensors", 100); }),
              "model.safetensors.index.json names no shard 'model.safetensors'");
    conv.begin_shard(good.names[0], good.files[0].size());
    conv.feed(good.files[0].data(), good.files[0].size());
    EXPECT_EQ(error_of([&] { conv.begin_shard(good.names[0], good.files[0].size()); }),
              "shard model-00001-of-00003.safetensors was already read");
    EXPECT_EQ(error_of([&] { conv.finish(); }),
              "truncated checkpoint: shard model-00002-of-00003.safetensors was not read");
    conv.begin_shard(good.names[1], good.files[1].size());
    const size_t half = good.files[1].size() / 2;
    conv.feed(good.files[1].data(), half);
    EXPECT_EQ(error_of([&] { conv.begin_shard(good.names[2], good.files[2].size()); }),
              "truncated checkpoint: model-00002-of-00003.safetensors: got " + std::to_string(half) + " of " +
                  std::to_string(good.files[1].size()) + " bytes");
    Converter single(c, DType::Q8, uint64_t(100));
    EXPECT_EQ(error_of([&] { single.begin_shard(good.names[0], 100); }),
              "this conversion reads one model.safetensors, not shards");
}

// On disk: convert_checkpoint_dir reads either layout, says what it read, and never writes over any shard.
TEST(ConvertDecoders, AFolderOfShardsConverts) {
    const ModelConfig c = tiny_arch_config(Arch::gpt_neox);
    const Checkpoint ck = hf_checkpoint(c, 12);
    const std::vector<uint8_t> one = convert_bytes(c, safetensors_bytes(ck), DType::Q8);
    const Shards s = shard(ck, 3);
    Folder dir;
    dir.write("config.json", hf_config_text(c));
    ASSERT_EQ(config_from_hf_json(hf_config_text(c)).describe(), c.describe());
    dir.write("model.safetensors.index.json", s.index);
    for (size_t k = 0; k < s.files.size(); ++k) dir.write(s.names[k], s.files[k]);
    const std::string out = dir.path + "/model.arcs";
    const ConvertedFile done = convert_checkpoint_dir(dir.path, out, DType::Q8, 1000);
    EXPECT_EQ(done.config.arch, Arch::gpt_neox);
    EXPECT_EQ(done.bytes, one.size());
    std::ifstream in(out, std::ios::binary);
    EXPECT_EQ(std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {}), one);

    for (const std::string& input : {s.names[1], std::string("model.safetensors.index.json")})
        EXPECT_TRUE(has(error_of([&] { convert_checkpoint_dir(dir.path, dir.path + "/./" + input, DType::Q8); }),
                        "converting would overwrite its own input"))
            << input;
    std::filesystem::remove(dir.path + "/" + s.names[2]);
    EXPECT_EQ(error_of([&] { convert_checkpoint_dir(dir.path, out, DType::Q8); }),
              "cannot open " + dir.path + "/" + s.names[2]);
    dir.write(s.names[2], std::vector<uint8_t>(s.files[2].begin(), s.files[2].end() - 8));
    EXPECT_TRUE(has(error_of([&] { convert_checkpoint_dir(dir.path, out, DType::Q8); }),
                    dir.path + "/" + s.names[2] + ": truncated checkpoint: model-00003-of-00003.safetensors is "));
}

// A model is one file: the tokenizer's files beside the checkpoint ride inside it, byte for byte, after the tensors,
// which are those of a conversion without them.
TEST(ConvertDecoders, AModelCarriesItsTokenizerFiles) {
    const ModelConfig c = tiny_arch_config(Arch::llama);
    const std::vector<uint8_t> st = safetensors_bytes(hf_checkpoint(c, 5));
    const std::string json =
        "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"\xc3\xa9t\xc3\xa9\": 0}}}" + std::string(1000, ' ');
    const std::string tokenizer_config = "{\"add_bos_token\": true}";
    Folder dir;
    dir.write("config.json", hf_config_text(c));
    dir.write("model.safetensors", st);
    dir.write("tokenizer.json", json);
    dir.write("tokenizer_config.json", tokenizer_config);
    const ConvertedFile done = convert_checkpoint_dir(dir.path, dir.path + "/model.arcs", DType::Q8, 777);
    EXPECT_EQ(done.carried, (std::vector<std::string>{"tokenizer.json", "tokenizer_config.json"}));
    std::ifstream in(dir.path + "/model.arcs", std::ios::binary);
    const std::vector<uint8_t> file(std::istreambuf_iterator<char>(in), {});
    const ModelFile f = ModelFile::parse(file.data(), file.size());
    EXPECT_EQ(f.tokenizer_json(), json);
    EXPECT_EQ(f.tokenizer_config(), tokenizer_config);
    EXPECT_EQ(file.size(), done.bytes);

    const std::vector<uint8_t> bare = convert_bytes(c, st, DType::Q8);
    const ModelFile without = ModelFile::parse(bare.data(), bare.size());
    EXPECT_TRUE(without.tokenizer_json().empty() && without.tokenizer_config().empty());
    ASSERT_EQ(f.tensors().size(), without.tensors().size());
    for (size_t i = 0; i < f.tensors().size(); ++i) {
        const TensorEntry &a = f.tensors()[i], &b = without.tensors()[i];
        EXPECT_EQ(a.offset, b.offset);
        EXPECT_EQ(std::memcmp(a.data, b.data, a.size), 0) << a.name;
    }
    EXPECT_EQ(file.size(), bare.size() + (json.size() + 63) / 64 * 64 + 64);  // whole 64-byte blocks, after the tensors

    // Only the tokenizer.json there: only it rides along. A GPT-2 folder's tokenizer stays outside (built in).
    std::filesystem::remove(dir.path + "/tokenizer_config.json");
    EXPECT_EQ(convert_checkpoint_dir(dir.path, dir.path + "/model.arcs", DType::Q8).carried,
              std::vector<std::string>{"tokenizer.json"});
    const ModelConfig g = tiny_config();
    Folder gpt2;
    gpt2.write("config.json", R"({"n_layer": 2, "n_head": 4, "n_embd": 64, "n_positions": 48, "vocab_size": 300})");
    gpt2.write("model.safetensors", safetensors_bytes(random_checkpoint(g, 2)));
    gpt2.write("tokenizer.json", json);
    const ConvertedFile plain = convert_checkpoint_dir(gpt2.path, gpt2.path + "/model.arcs", DType::Q8);
    EXPECT_TRUE(plain.carried.empty());
    EXPECT_EQ(plain.bytes, convert_bytes(g, safetensors_bytes(random_checkpoint(g, 2)), DType::Q8).size());
}

TEST(ConvertDecoders, CarryingATokenizerIsRefusedWhereItCannotBe) {
    const ModelConfig c = tiny_arch_config(Arch::qwen3);
    const std::vector<uint8_t> st = safetensors_bytes(hf_checkpoint(c, 6));
    Converter late(c, DType::Q8, st.size());
    late.feed(st.data(), st.size());
    EXPECT_EQ(error_of([&] {
                  late.carry_tokenizer({"{}", ""});
              }),
              "the tokenizer's files must be given before the checkpoint's bytes");
    Converter gpt2(tiny_config(), DType::Q8, 1000);
    EXPECT_TRUE(has(error_of([&] { gpt2.carry_tokenizer({"{}", ""}); }), "a GPT-2 model file carries no tokenizer"));
    Converter big(c, DType::Q8, st.size());
    EXPECT_TRUE(has(error_of([&] {
                        big.carry_tokenizer({std::string(kMaxTokenizerFileBytes + 1, ' '), ""});
                    }),
                    "a model file carries"));
}

// A file whose record points the tokenizer anywhere but its own bytes after the tensors is refused by name.
TEST(ConvertDecoders, AHostileTokenizerRegionIsRefused) {
    const ModelConfig c = tiny_arch_config(Arch::llama);
    const std::vector<uint8_t> st = safetensors_bytes(hf_checkpoint(c, 7));
    Converter conv(c, DType::Q8, st.size());
    conv.carry_tokenizer({std::string(100, 'j'), std::string(10, 'c')});
    conv.feed(st.data(), st.size());
    const std::vector<uint8_t> good = conv.finish().to_vector();
    const ModelFile f = ModelFile::parse(good.data(), good.size());
    ASSERT_EQ(f.tokenizer_json(), std::string(100, 'j'));
    const uint64_t json_at = f.tokenizer_json().data() - reinterpret_cast<const char*>(good.data()) -
                             load_u64(good.data() + 48);  // from the data section's start
    // The record's tokenizer.json field (u64 offset, u64 size) set, the checksum made right again.
    auto parse_with = [&](uint64_t offset, uint64_t size, size_t field = kModelHeaderBytes + 80) {
        std::vector<uint8_t> b = good;
        store_u64(b.data() + field, offset);
        store_u64(b.data() + field + 8, size);
        seal_file(b.data(), b.size());
        return error_of([&] { ModelFile::parse(b.data(), b.size()); });
    };
    EXPECT_EQ(parse_with(json_at, 100), "(no error)");
    EXPECT_EQ(parse_with(json_at + 8, 92),
              "tokenizer.json: offset " + std::to_string(json_at + 8) + " is not 64-byte aligned");
    EXPECT_TRUE(has(parse_with(json_at, uint64_t(1) << 62), "tokenizer.json is 4611686018427387904 bytes"));
    EXPECT_TRUE(has(parse_with(json_at + 128, 100), "lie beyond the data section"));
    EXPECT_TRUE(has(parse_with(0, 100), "tensors wte.weight and tokenizer.json overlap"));
    EXPECT_TRUE(has(parse_with(json_at, 150), "tensors tokenizer.json and tokenizer_config.json overlap"));
    EXPECT_EQ(parse_with(64, 0), "tokenizer.json: size 0 at offset 64 (none is offset 0)");
    EXPECT_EQ(parse_with(0, 0), "(no error)");  // none
    EXPECT_EQ(parse_with(1, 1, kModelHeaderBytes + 112), "architecture record: reserved bytes are not zero");
}
