// test_convert.cpp: the streaming converter writes the same file whatever the chunk size, transposes Conv1D weights,
// quantizes exactly as q_pack does on the whole matrix (q8 and q16), reads F16/BF16, skips buffers, and names what is
// wrong.
#include <gtest/gtest.h>

#include <cstring>
#include <tuple>

#include "arcscope/formats/convert.h"
#include "arcscope/formats/default_format.h"
#include "arcscope/formats/model_file.h"
#include "arcscope/kernels/quant.h"
#include "engine_fixture.h"

using namespace arcscope;
using namespace arcscope::testing;

namespace {

std::vector<float> transposed(const std::vector<float>& w, int in, int out) {  // (in, out) -> (out, in)
    std::vector<float> t(w.size());
    for (int i = 0; i < in; ++i)
        for (int o = 0; o < out; ++o) t[size_t(o) * in + i] = w[size_t(i) * out + o];
    return t;
}

std::string convert_error(const Checkpoint& ck, ModelConfig c = tiny_config()) {
    return error_of([&] { convert_bytes(c, safetensors_bytes(ck), DType::Q8); });
}

uint16_t to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return uint16_t(u >> 16);  // truncation: exact for values with <= 8 mantissa bits
}

}  // namespace

TEST(Convert, ChunkSizeDoesNotMatter) {
    ModelConfig c = tiny_config();
    std::vector<uint8_t> st = safetensors_bytes(random_checkpoint(c, 3));
    for (DType t : {DType::F32, DType::Q8, DType::Q16}) {
        std::vector<uint8_t> whole = convert_bytes(c, st, t, st.size());
        for (size_t chunk : {size_t(1), size_t(7), size_t(4096), size_t(65537)})
            ASSERT_EQ(convert_bytes(c, st, t, chunk), whole) << dtype_name(t) << ", chunk " << chunk;
    }
}

TEST(Convert, TransposesConv1DAndKeepsEmbeddings) {
    ModelConfig c = tiny_config();
    Checkpoint ck = random_checkpoint(c, 4);
    std::vector<uint8_t> bytes = convert_bytes(c, safetensors_bytes(ck), DType::F32);
    ModelFile f = ModelFile::parse(bytes.data(), bytes.size());
    auto floats = [&](const char* name) {
        const TensorEntry& e = f.tensor(name);
        std::vector<float> v(e.size / 4);
        std::memcpy(v.data(), e.data, e.size);
        return v;
    };
    EXPECT_EQ(floats("wte.weight"), f32_values(ck["wte.weight"]));
    EXPECT_EQ(floats("h.1.ln_2.bias"), f32_values(ck["h.1.ln_2.bias"]));
    EXPECT_EQ(floats("h.1.attn.c_attn.weight"), transposed(f32_values(ck["h.1.attn.c_attn.weight"]), 64, 192));
    EXPECT_EQ(floats("h.0.mlp.c_proj.weight"), transposed(f32_values(ck["h.0.mlp.c_proj.weight"]), 256, 64));
}

// The output is held in pages, one a tensor: a model converts to the checkpoint's exact values, and the checksum
// summed page by page is the one ModelFile::parse sums over the whole file.
TEST(Convert, FilesOfManyPagesHoldTheCheckpoint) {
    ModelConfig c = gpt2_config(2, 4, 256, 64, 6000);
    Checkpoint ck = random_checkpoint(c, 6);
    for (DType t : {DType::F32, DType::Q8}) {
        std::vector<uint8_t> bytes = convert_bytes(c, safetensors_bytes(ck), t, 1 << 20);
        ModelFile f = ModelFile::parse(bytes.data(), bytes.size());
        const TensorEntry& wte = f.tensor("wte.weight");
        if (t == DType::F32) {
            std::vector<float> v(wte.size / 4);
            std::memcpy(v.data(), wte.data, wte.size);
            EXPECT_EQ(v, f32_values(ck["wte.weight"]));
        } else {
            std::vector<uint8_t> want(q_packed_bytes(t, 6000, 256));
            q_pack(t, f32_values(ck["wte.weight"]).data(), 6000, 256, want.data());
            EXPECT_EQ(std::vector<uint8_t>(wte.data, wte.data + wte.size), want);
        }
        const TensorEntry& ln = f.tensor("ln_f.bias");
        std::vector<float> bias(ln.size / 4);
        std::memcpy(bias.data(), ln.data, ln.size);
        EXPECT_EQ(bias, f32_values(ck["ln_f.bias"])) << dtype_name(t);
    }
}

TEST(Convert, PackedFormatsMatchPackingTheWholeMatrix) {
    for (DType type : {DType::Q8, DType::Q16}) {
        // A vocabulary that is not a multiple of the 64-row streaming group nor of the 8-row record group.
        ModelConfig c = tiny_config();
        c.n_vocab = 203;
        Checkpoint ck = random_checkpoint(c, 5);
        std::vector<uint8_t> bytes = convert_bytes(c, safetensors_bytes(ck), type, 333);
        ModelFile f = ModelFile::parse(bytes.data(), bytes.size());
        EXPECT_EQ(f.weight_type(), type);
        auto packed = [&](const std::vector<float>& w, int rows, int cols) {
            std::vector<uint8_t> out(q_packed_bytes(type, rows, cols));
            q_pack(type, w.data(), rows, cols, out.data());
            return out;
        };
        auto stored = [&](const char* name) {
            const TensorEntry& e = f.tensor(name);
            return std::vector<uint8_t>(e.data, e.data + e.size);
        };
        EXPECT_EQ(stored("wte.weight"), packed(f32_values(ck["wte.weight"]), 203, 64));
        EXPECT_EQ(stored("wpe.weight"), packed(f32_values(ck["wpe.weight"]), 48, 64));
        EXPECT_EQ(stored("h.0.mlp.c_fc.weight"),
                  packed(transposed(f32_values(ck["h.0.mlp.c_fc.weight"]), 64, 256), 256, 64));
    }
}

// Conv1D weights are transposed a block column (32 input rows) at a time: a width that is no multiple of 32 ends in
// a part block, and the records, scales and float32 rows must still be those of the whole matrix.
TEST(Convert, TransposedBlockColumnsMatchTheWholeMatrix) {
    ModelConfig c = gpt2_config(2, 4, 40, 16, 70);
    Checkpoint ck = random_checkpoint(c, 8);
    for (DType type : {DType::F32, DType::Q8, DType::Q16}) {
        std::vector<uint8_t> bytes = convert_bytes(c, safetensors_bytes(ck), type, 777);
        ModelFile f = ModelFile::parse(bytes.data(), bytes.size());
        for (const auto& [name, in, out] :
             std::vector<std::tuple<std::string, int, int>>{{"h.1.attn.c_attn.weight", 40, 120},
                                                            {"h.0.attn.c_proj.weight", 40, 40},
                                                            {"h.1.mlp.c_fc.weight", 40, 160},
                                                            {"h.0.mlp.c_proj.weight", 160, 40}}) {
            const std::vector<float> w = transposed(f32_values(ck[name]), in, out);
            std::vector<uint8_t> want(reinterpret_cast<const uint8_t*>(w.data()),
                                      reinterpret_cast<const uint8_t*>(w.data() + w.size()));
            if (type != DType::F32) {
                want.assign(q_packed_bytes(type, out, in), 0);
                q_pack(type, w.data(), out, in, want.data());
            }
            const TensorEntry& e = f.tensor(name);
            EXPECT_EQ(std::vector<uint8_t>(e.data, e.data + e.size), want) << name << " in " << dtype_name(type);
        }
    }
}

TEST(Convert, ReadsF16AndBF16AndPrefixedNames) {
    ModelConfig c = tiny_config();
    Checkpoint ck = random_checkpoint(c, 6);
    // Round the weights to values F16 and BF16 hold exactly, so all three inputs must give identical files.
    for (auto& [name, t] : ck) {
        std::vector<float> v = f32_values(t);
        for (float& x : v) x = std::ldexp(std::round(std::ldexp(x, 6)), -6);
        t = f32_tensor(t.shape, v);
    }
    std::vector<uint8_t> want = convert_bytes(c, safetensors_bytes(ck), DType::F32);
    for (const char* dtype : {"F16", "BF16"}) {
        Checkpoint half;
        for (const auto& [name, t] : ck) {
            std::vector<float> v = f32_values(t);
            RawTensor h{dtype, t.shape, std::vector<uint8_t>(v.size() * 2)};
            for (size_t i = 0; i < v.size(); ++i) {
                uint16_t bits = to_bf16(v[i]);
                if (std::string(dtype) == "F16") {  // exact: |x| < 2^6 with 6 fractional bits
                    float a = std::fabs(v[i]);
                    int e = a == 0 ? 0 : std::ilogb(a);
                    uint16_t s = std::signbit(v[i]) ? 0x8000 : 0;
                    bits = a == 0 ? s : uint16_t(s | (e + 15) << 10 | (uint16_t(std::ldexp(a, 10 - e)) & 0x3FF));
                }
                std::memcpy(&h.bytes[2 * i], &bits, 2);
            }
            half["transformer." + name] = h;
        }
        EXPECT_EQ(convert_bytes(c, safetensors_bytes(half), DType::F32, 1000), want) << dtype;
    }
}

TEST(Convert, SkipsBuffersAndTiedHead) {
    ModelConfig c = tiny_config();
    Checkpoint ck = random_checkpoint(c, 7);
    std::vector<uint8_t> want = convert_bytes(c, safetensors_bytes(ck), DType::Q8);
    ck["h.0.attn.masked_bias"] = f32_tensor({}, {-1e4f});
    ck["lm_head.weight"] = ck["wte.weight"];
    ck["h.1.attn.bias"].dtype = "BOOL";  // a dtype we cannot read, in a tensor we skip
    ck["h.1.attn.bias"].bytes.resize(48 * 48);
    EXPECT_EQ(convert_bytes(c, safetensors_bytes(ck), DType::Q8), want);
}

TEST(Convert, NamesWhatIsWrong) {
    ModelConfig c = tiny_config();
    Checkpoint good = random_checkpoint(c, 8);

    Checkpoint ck = good;
    ck.erase("h.1.mlp.c_fc.weight");
    EXPECT_NE(convert_error(ck).find("checkpoint lacks tensor h.1.mlp.c_fc.weight"), std::string::npos);

    ck = good;
    ck["h.0.attn.c_attn.weight"] = f32_tensor({64, 191}, std::vector<float>(64 * 191));
    std::string msg = convert_error(ck);
    EXPECT_NE(msg.find("tensor h.0.attn.c_attn.weight: expected [64, 192], got [64, 191]"), std::string::npos) << msg;

    ck = good;
    ck["h.0.extra.weight"] = f32_tensor({2}, {1, 2});
    EXPECT_NE(convert_error(ck).find("unexpected tensor 'h.0.extra.weight'"), std::string::npos);

    ck = good;
    ck["ln_f.bias"].dtype = "I32";
    EXPECT_NE(convert_error(ck).find("dtype I32 is not supported"), std::string::npos);

    ck = good;
    std::vector<float> v = f32_values(ck["ln_f.weight"]);
    v[3] = std::nanf("");
    ck["ln_f.weight"] = f32_tensor({64}, v);
    EXPECT_NE(convert_error(ck).find("tensor ln_f.weight holds a non-finite value"), std::string::npos);

    ck = good;
    ck["transformer.ln_f.bias"] = ck["ln_f.bias"];
    EXPECT_NE(convert_error(ck).find("twice"), std::string::npos);

    std::vector<uint8_t> st = safetensors_bytes(good);
    for (size_t cut : {size_t(3), size_t(100), st.size() / 2, st.size() - 1}) {
        // A download that stops early: the length was announced, fewer bytes came.
        msg = error_of([&] {
            Converter conv(c, DType::Q8, st.size());
            conv.feed(st.data(), cut);
            conv.finish();
        });
        EXPECT_NE(msg.find("truncated checkpoint"), std::string::npos) << "cut " << cut << ": " << msg;
        // A file that is short: refused as soon as the header is read, before the output is allocated.
        msg = error_of([&] { convert_bytes(c, std::vector<uint8_t>(st.begin(), st.begin() + cut), DType::Q8); });
        EXPECT_NE(msg.find("truncated checkpoint"), std::string::npos) << "cut " << cut << ": " << msg;
    }
    st.push_back(0);
    EXPECT_NE(error_of([&] { convert_bytes(c, st, DType::Q8); }).find("longer than its safetensors header"),
              std::string::npos);

    std::vector<uint8_t> junk(64, 0xFF);
    EXPECT_NE(error_of([&] { convert_bytes(c, junk, DType::Q8); }).find("not a safetensors file"), std::string::npos);
}

// Hugging Face's aliases are read, but two names for one field must agree, and integers must be integers.
TEST(Convert, ConfigAliasesAgreeAndIntegersAreIntegers) {
    const std::string base = R"("n_head": 2, "n_embd": 32, "n_positions": 8, "vocab_size": 9)";
    auto parse = [&](const std::string& extra) { return config_from_hf_json("{" + base + ", " + extra + "}"); };
    EXPECT_EQ(parse(R"("num_hidden_layers": 3)").n_layer, 3);
    EXPECT_EQ(parse(R"("n_layer": 3, "num_hidden_layers": 3)").n_layer, 3);
    EXPECT_EQ(error_of([&] { parse(R"("n_layer": 1, "num_hidden_layers": 3)"); }),
              "config.json: n_layer 1 and num_hidden_layers 3 disagree: give one");
    EXPECT_EQ(error_of([&] { parse(R"("n_layer": 1, "max_position_embeddings": 16)"); }),
              "config.json: n_positions 8 and max_position_embeddings 16 disagree: give one");
    EXPECT_EQ(error_of([&] { parse(R"("n_layer": 1, "hidden_size": 64)"); }),
              "config.json: n_embd 32 and hidden_size 64 disagree: give one");
    EXPECT_EQ(error_of([&] { parse(R"("n_layer": 1, "n_inner": 128.7)"); }),
              "config.json: n_inner (not an integer) is not supported (arcscope's MLP is 4 * n_embd = 128 wide; null "
              "means the same)");
    EXPECT_EQ(parse(R"("n_layer": 1, "n_inner": 128)").n_embd, 32);
    EXPECT_EQ(error_of([&] { parse(R"("n_layer": 1.5)"); }), "config.json: n_layer must be an integer");
}

// Every field of Hugging Face's ModelConfig that changes the forward pass is honoured or refused by name: a checkpoint
// that converted without it would give other logits and no error.
TEST(Convert, ConfigFieldsThatChangeTheModelAreHonouredOrRefusedByName) {
    const std::string base = R"("n_layer": 1, "n_head": 2, "n_embd": 32, "n_positions": 8, "vocab_size": 9)";
    auto parse = [&](const std::string& extra) { return config_from_hf_json("{" + base + ", " + extra + "}"); };
    const std::vector<std::pair<std::string, std::string>> refused = {
        {R"("scale_attn_weights": false)",
         "config.json: scale_attn_weights false is not supported (arcscope scales attention scores by 1/sqrt(head "
         "size), as GPT-2 does)"},
        {R"("scale_attn_by_inverse_layer_idx": true)",
         "config.json: scale_attn_by_inverse_layer_idx true is not supported (arcscope computes GPT-2's attention "
         "scaled by 1/sqrt(head size) only)"},
        {R"("n_inner": 64)",
         "config.json: n_inner 64 is not supported (arcscope's MLP is 4 * n_embd = 128 wide; null means the same)"},
        {R"("activation_function": "gelu")",
         "config.json: activation_function 'gelu' is not supported (arcscope computes GPT-2's gelu_new, the tanh "
         "approximation)"},
        {R"("activation_function": "quick_gelu")", "activation_function 'quick_gelu' is not supported"},
        {R"("add_cross_attention": true)",
         "config.json: add_cross_attention true is not supported (arcscope runs GPT-2 as a decoder alone"},
        {R"("pruned_heads": {"0": [1]})", "config.json: pruned_heads is not supported"},
        {R"("quantization_config": {"load_in_8bit": true})", "config.json: quantization_config is not supported"},
        {R"("scale_attn_weights": "yes")", "config.json: scale_attn_weights must be true or false"},
        {R"("model_type": "mistral")",
         "config.json: model_type 'mistral' is not supported (supported: gpt2, gpt_neox, llama, qwen2, qwen3)"},
        {R"("architectures": ["LlamaForCausalLM"])",
         "config.json: architectures 'LlamaForCausalLM' is not supported for model_type gpt2 (GPT2LMHeadModel; a "
         "config without model_type is read as GPT-2's)"},
    };
    for (const auto& [extra, message] : refused) {
        const std::string got = error_of([&] { parse(extra); });
        EXPECT_NE(got.find(message), std::string::npos) << extra << " -> " << got;
    }
    // What GPT-2 computes anyway: the tanh GELU under each of its names, float32 attention, inference-time no-ops.
    for (const char* same : {R"("activation_function": "gelu_new")", R"("activation_function": "gelu_pytorch_tanh")",
                             R"("activation_function": "gelu_fast")", R"("activation_function": "gelu_accurate")",
                             R"("reorder_and_upcast_attn": true)", R"("scale_attn_weights": true)",
                             R"("scale_attn_by_inverse_layer_idx": false)", R"("n_inner": null)", R"("n_inner": 128)",
                             R"("model_type": "gpt2", "architectures": ["GPT2LMHeadModel"])", R"("pruned_heads": {})",
                             R"("resid_pdrop": 0.3, "embd_pdrop": 0.3, "attn_pdrop": 0.3, "use_cache": false)"})
        EXPECT_EQ(error_of([&] { parse(same); }), "(no error)") << same;
    EXPECT_FLOAT_EQ(parse(R"("layer_norm_epsilon": 1e-6)").norm_eps, 1e-6f);
    EXPECT_TRUE(parse(R"("n_ctx": 8)").tie_word_embeddings);
    EXPECT_FALSE(parse(R"("tie_word_embeddings": false)").tie_word_embeddings);
    // A Llama config reads as Llama's, not as a GPT-2 of the same sizes (test_convert_decoders.cpp reads the others).
    const ModelConfig llama = config_from_hf_json(R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"],
        "hidden_size": 576, "num_hidden_layers": 30, "num_attention_heads": 9, "vocab_size": 49152,
        "intermediate_size": 1536, "max_position_embeddings": 8192, "tie_word_embeddings": true})");
    EXPECT_EQ(llama.arch, Arch::llama);
}

// An .arcs file has one matrix for the token embedding and the LM head: an lm_head.weight converts only when it
// equals wte.weight, tied or not; an untied config without one is refused.
TEST(Convert, AnLMHeadConvertsOnlyWhenItIsWte) {
    ModelConfig tied = tiny_config(), untied = tiny_config();
    untied.tie_word_embeddings = false;
    const Checkpoint plain = random_checkpoint(tied, 11);
    const std::vector<uint8_t> want = convert_bytes(tied, safetensors_bytes(plain), DType::Q8);
    Checkpoint same = plain;
    same["lm_head.weight"] = plain.at("wte.weight");
    Checkpoint other = same;
    std::vector<float> head = f32_values(other["lm_head.weight"]);
    head[12345] += 0.25f;  // one weight of 19,200
    other["lm_head.weight"] = f32_tensor({300, 64}, head);
    for (DType t : {DType::Q8, DType::F32}) {
        EXPECT_EQ(convert_bytes(tied, safetensors_bytes(same), t), convert_bytes(tied, safetensors_bytes(plain), t));
        EXPECT_EQ(convert_bytes(untied, safetensors_bytes(same), t), convert_bytes(tied, safetensors_bytes(plain), t));
    }
    EXPECT_EQ(convert_bytes(untied, safetensors_bytes(same), DType::Q8, 333), want) << "in chunks of 333 bytes";
    EXPECT_EQ(error_of([&] { convert_bytes(untied, safetensors_bytes(other), DType::Q8); }),
              "config.json: tie_word_embeddings false with an lm_head.weight that differs from wte.weight is not "
              "supported (an .arcs file has one matrix for the token embedding and the LM head)");
    EXPECT_NE(error_of([&] {
                  convert_bytes(tied, safetensors_bytes(other), DType::Q8);
              }).find("lm_head.weight differs from wte.weight, though config.json ties them"),
              std::string::npos);
    EXPECT_EQ(error_of([&] { convert_bytes(untied, safetensors_bytes(plain), DType::Q8); }),
              "config.json: tie_word_embeddings false, but the checkpoint has no lm_head.weight (the LM head it "
              "describes is missing)");
    Checkpoint wrong_shape = plain;
    wrong_shape["lm_head.weight"] = f32_tensor({64, 300}, f32_values(plain.at("wte.weight")));
    EXPECT_NE(convert_error(wrong_shape).find("tensor lm_head.weight: expected [300, 64], got [64, 300]"),
              std::string::npos);
}

// What the default format is chosen by (converted_file_bytes) is the size the conversion writes: for an untied GPT-2
// checkpoint too, whose file holds one matrix for the embedding and the head.
TEST(Convert, TheSizeAConfigPromisesIsTheSizeItWrites) {
    ModelConfig untied = tiny_config();
    untied.tie_word_embeddings = false;
    Checkpoint ck = random_checkpoint(untied, 12);
    ck["lm_head.weight"] = ck.at("wte.weight");
    for (DType t : {DType::F32, DType::Q8, DType::Q16})
        for (const ModelConfig& c : {tiny_config(), untied})
            EXPECT_EQ(converted_file_bytes(c, t), convert_bytes(c, safetensors_bytes(ck), t).size())
                << dtype_name(t) << (c.tie_word_embeddings ? ", tied" : ", untied");
}

TEST(Convert, ReadsHuggingFaceConfig) {
    ModelConfig c = config_from_hf_json(R"({"n_layer": 12, "n_head": 12, "n_embd": 768, "n_positions": 1024,
        "vocab_size": 50257, "layer_norm_epsilon": 1e-05, "activation_function": "gelu_new", "n_inner": null})");
    EXPECT_EQ(c.n_layer, 12);
    EXPECT_EQ(c.n_ctx, 1024);
    EXPECT_EQ(c.n_vocab, 50257);
    EXPECT_FLOAT_EQ(c.norm_eps, 1e-5f);
    EXPECT_NE(error_of([] {
                  config_from_hf_json(R"({"n_layer": 2, "n_head": 2, "n_embd": 64, "vocab_size": 9})");
              }).find("missing n_positions"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  config_from_hf_json(R"({"n_layer": 2, "n_head": 2, "n_embd": 64, "n_positions": 8,
                      "vocab_size": 9, "activation_function": "relu"})");
              }).find("activation_function 'relu' is not supported"),
              std::string::npos);
    EXPECT_NE(
        error_of([] {
            config_from_hf_json(R"({"n_layer": 2, "n_head": 3, "n_embd": 64, "n_positions": 8, "vocab_size": 9})");
        }).find("not divisible"),
        std::string::npos);
    EXPECT_NE(error_of([] { config_from_hf_json("{\"n_layer\": 2,"); }).find("config.json: JSON"), std::string::npos);
}

// A model runs on the converter's pages where they lie (what the browser does, so that converting holds one copy):
// the same tensors, checksum and logits as the file read whole.
TEST(Convert, AModelRunsOnTheConvertersPages) {
    ModelConfig c = tiny_config();
    const std::vector<uint8_t> st = safetensors_bytes(random_checkpoint(c, 9));
    for (DType type : {DType::F32, DType::Q8}) {
        Converter conv(c, type, st.size());
        conv.feed(st.data(), st.size());
        PagedBytes pages = std::move(conv.finish());
        const std::vector<uint8_t> whole = pages.to_vector();
        const std::vector<ByteSpan> spans = pages.spans();
        ASSERT_EQ(spans.size(), tensor_specs(c, type).size() + 1) << "a page for the table, then one a tensor";
        ModelFile paged = ModelFile::parse_pages(spans), flat = ModelFile::parse(whole.data(), whole.size());
        EXPECT_EQ(paged.checksum(), flat.checksum());
        EXPECT_EQ(paged.size(), flat.size());
        Decoder a(paged), b(flat);
        const std::vector<int> ids = {5, 17, 2, 99, 3};
        auto logits = [&](Decoder& g) {
            g.forward(ids.data(), int(ids.size()), ForwardOptions().with_all_logits());
            return std::vector<float>(g.logits(), g.logits() + ids.size() * size_t(c.n_vocab));
        };
        EXPECT_EQ(logits(a), logits(b)) << dtype_name(type);
    }
    // A table whose tensor would straddle two pages is refused, not read across the gap.
    Converter conv(c, DType::Q8, st.size());
    conv.feed(st.data(), st.size());
    std::vector<ByteSpan> spans = conv.finish().spans();
    std::vector<ByteSpan> split = {spans[0], {spans[1].data, 8}, {spans[1].data + 8, spans[1].size - 8}};
    split.insert(split.end(), spans.begin() + 2, spans.end());
    EXPECT_NE(error_of([&] { ModelFile::parse_pages(split, false); }).find("spans two pages"), std::string::npos);
}
