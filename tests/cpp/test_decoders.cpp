// test_decoders.cpp: what holds for every architecture the one forward pass runs, in every weight format: the KV
// cache gives a full pass's bits, chunks give one-at-a-time's, threads change no bit, the hooks' queries and keys give
// the captured attention, variants give their bits alone, the f16 KV cache stays close, and a grouped-query model's
// cache holds only its key/value heads. (The values against PyTorch: tests/reference/test_decoder_engine.py.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>

#include "arcscope/core/threads.h"
#include "arcscope/model/hooks.h"
#include "decoder_fixture.h"

using namespace arcscope;
using namespace arcscope::testing;

namespace {

using Case = std::tuple<Arch, DType>;

class Decoders : public ::testing::TestWithParam<Case> {
protected:
    Loaded load(uint64_t seed = 1, int n_ctx = 0) const {
        ModelConfig c = tiny_arch_config(std::get<0>(GetParam()));
        if (n_ctx) c.n_ctx = n_ctx;
        return Loaded(random_model_bytes(c, std::get<1>(GetParam()), seed));
    }
};

std::vector<float> values(const float* p, size_t n) {
    return std::vector<float>(p, p + n);
}

TEST_P(Decoders, DecodingThroughTheKVCacheGivesTheFullPassBits) {
    Loaded m = load();
    Decoder& g = *m.model;
    const int T = 40, P = 5, L = g.config().n_layer, H = g.config().n_head, V = g.config().n_vocab;
    const std::vector<int> ids = some_ids(T, V);
    g.forward(ids.data(), T, ForwardOptions().with_attention().with_all_logits());
    const std::vector<float> logits = values(g.logits(), size_t(T) * V);
    const std::vector<float> att = values(g.attention(), g.attention_values());
    g.forward(ids.data(), P);
    for (int pos = P; pos < T; ++pos) {
        g.append(ids[size_t(pos)], ForwardOptions().with_attention());
        ASSERT_EQ(values(g.logits(), size_t(V)),
                  std::vector<float>(logits.begin() + ptrdiff_t(pos) * V, logits.begin() + ptrdiff_t(pos + 1) * V))
            << "position " << pos;
        for (int lh = 0; lh < L * H; ++lh)
            ASSERT_EQ(values(g.attention() + size_t(lh) * (pos + 1), size_t(pos + 1)),
                      values(att.data() + (size_t(lh) * T + pos) * T, size_t(pos + 1)))
                << "position " << pos << ", layer x head " << lh;
    }
}

TEST_P(Decoders, LongInputsInChunksGiveOneTokenAtATimesBits) {
    Loaded m = load(2, 200);
    Decoder& g = *m.model;
    const int T = 150, V = g.config().n_vocab;  // three chunks of the pass
    const std::vector<int> ids = some_ids(T, V, 11);
    g.forward(ids.data(), T, ForwardOptions().with_all_logits());
    const std::vector<float> logits = values(g.logits(), size_t(T) * V);
    g.reset();
    for (int pos = 0; pos < T; ++pos) {
        g.append(ids[size_t(pos)]);
        ASSERT_EQ(values(g.logits(), size_t(V)),
                  std::vector<float>(logits.begin() + ptrdiff_t(pos) * V, logits.begin() + ptrdiff_t(pos + 1) * V))
            << "position " << pos;
    }
}

TEST_P(Decoders, ThreadsChangeNoBit) {
    Loaded m = load(3, 128);
    Decoder& g = *m.model;
    const int T = 100;
    const std::vector<int> ids = some_ids(T, g.config().n_vocab, 5);
    g.forward(ids.data(), T, ForwardOptions().with_attention().with_all_logits());
    const std::vector<float> logits = values(g.logits(), size_t(T) * g.config().n_vocab);
    const std::vector<float> att = values(g.attention(), g.attention_values());
    Threads threads(3);
    g.forward(ids.data(), T, ForwardOptions().with_attention().with_all_logits());
    EXPECT_EQ(values(g.logits(), logits.size()), logits);
    EXPECT_EQ(values(g.attention(), att.size()), att);
}

TEST_P(Decoders, TheHookedQueriesAndKeysGiveTheCapturedAttention) {
    Loaded m = load(4, 200);
    Decoder& g = *m.model;
    const ModelConfig& c = g.config();
    const int T = 150, H = c.n_head;
    const std::vector<int> ids = some_ids(T, c.n_vocab, 6);
    const HookPoint qp = c.rotary() ? HookPoint::RotQ : HookPoint::Q, kp = c.rotary() ? HookPoint::RotK : HookPoint::K;
    ActivationCache cache(c, {{qp, 1}, {kp, 1}}, T);
    g.forward(ids.data(), T, ForwardOptions().with_attention().with_hooks(&cache));
    const std::vector<float>& q = cache.entries()[0].data;
    const std::vector<float>& k = cache.entries()[1].data;
    ASSERT_EQ(k.size(), size_t(T) * c.kv_width());
    std::vector<float> pattern(size_t(T) * T);
    for (int h = 0; h < H; ++h) {
        g.attention_pattern(q.data(), k.data(), T, h, pattern.data());
        EXPECT_EQ(pattern, values(g.attention() + (size_t(1) * H + h) * T * T, size_t(T) * T)) << "head " << h;
    }
}

TEST_P(Decoders, ResumingAtAnyLayerGivesTheForwardPassBits) {
    Loaded m = load(5);
    Decoder& g = *m.model;
    const ModelConfig& c = g.config();
    const std::vector<int> ids = some_ids(12, c.n_vocab, 7);
    const int T = int(ids.size()), C = c.n_embd, V = c.n_vocab;
    for (int l = 0; l < c.n_layer; ++l) {
        ActivationCache cache(c, {{HookPoint::ResidPre, l}}, T);
        g.forward(ids.data(), T, ForwardOptions().with_hooks(&cache));
        const std::vector<float> expected = values(g.logits(), size_t(V));
        const std::vector<float>& resid = cache.entries()[0].data;
        for (int p : {0, 5, T - 1}) {
            g.resume(l, p, resid.data() + size_t(p) * C, T - p);
            EXPECT_EQ(values(g.logits(), size_t(V)), expected) << "layer " << l << ", from " << p;
        }
        // The same as variants in one batch, read at two tokens.
        std::vector<Variant> variants;
        for (int p : {0, 5, T - 1}) variants.push_back({p, T - p, resid.data() + size_t(p) * C, nullptr});
        std::vector<float> out(variants.size() * 2);
        g.resume_variants(l, variants, {3, 77}, out.data());
        for (size_t v = 0; v < variants.size(); ++v) {
            EXPECT_EQ(out[v * 2], expected[3]) << "variant " << v;
            EXPECT_EQ(out[v * 2 + 1], expected[77]) << "variant " << v;
        }
    }
}

TEST_P(Decoders, AnF16KVCacheStaysClose) {
    Loaded m = load(6);
    Decoder& g = *m.model;
    const std::vector<int> ids = some_ids(40, g.config().n_vocab, 8);
    g.forward(ids.data(), 40, ForwardOptions().with_attention());
    const std::vector<float> att = values(g.attention(), g.attention_values());
    g.set_kv_type(KVType::F16);
    g.forward(ids.data(), 40, ForwardOptions().with_attention());
    float largest = 0;
    for (size_t i = 0; i < att.size(); ++i) largest = std::max(largest, std::fabs(g.attention()[i] - att[i]));
    EXPECT_LT(largest, std::get<1>(GetParam()) == DType::Q8 ? 0.2f : 0.01f);
}

TEST_P(Decoders, EveryHookNameIsTheModelsOwn) {
    const ModelConfig c = tiny_arch_config(std::get<0>(GetParam()));
    const std::vector<HookName> names = all_hooks(c);
    const auto has = [&](const std::string& n) {
        for (const HookName& h : names)
            if (hook_name(h) == n) return true;
        return false;
    };
    EXPECT_EQ(has("blocks.1.attn.hook_rot_q"), c.rotary());
    EXPECT_EQ(has("blocks.1.attn.hook_rot_k"), c.rotary());
    EXPECT_EQ(has("blocks.1.hook_resid_mid"), !c.parallel_residual);
    for (const HookName& h : names) EXPECT_TRUE(parse_hook_name(hook_name(h), c) == h) << hook_name(h);
    EXPECT_EQ(hook_shape({HookPoint::K, 0}, c, 7), (std::vector<int>{7, c.kv_heads(), c.head_dim()}));
    EXPECT_EQ(hook_shape({HookPoint::Pattern, 0}, c, 7), (std::vector<int>{c.n_head, 7, 7}));
    if (c.parallel_residual) {
        EXPECT_EQ(error_of([&] { parse_hook_name("blocks.0.hook_resid_mid", c); }),
                  "hook blocks.0.hook_resid_mid: gpt_neox runs attention and MLP side by side (parallel residual): "
                  "there is no stream between them");
    }
    if (!c.rotary()) {
        EXPECT_EQ(error_of([&] { parse_hook_name("blocks.0.attn.hook_rot_q", c); }),
                  "hook blocks.0.attn.hook_rot_q: gpt2 learns its positions: nothing rotates");
    }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    return std::string(arch_name(std::get<0>(info.param))) + "_" + dtype_name(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(EveryArchitecture, Decoders,
                         ::testing::Combine(::testing::ValuesIn(kEveryArch),
                                            ::testing::Values(DType::F32, DType::Q8, DType::Q16)),
                         case_name);

TEST(Decoders, AGroupedModelsCacheHoldsItsKeyValueHeadsOnly) {
    ModelConfig grouped = tiny_arch_config(Arch::llama), plain = grouped;
    plain.n_kv_head = plain.n_head;
    Loaded a(random_model_bytes(grouped, DType::Q8, 1)), b(random_model_bytes(plain, DType::Q8, 1));
    const std::vector<int> ids = some_ids(40, grouped.n_vocab);
    a.model->forward(ids.data(), 40);
    b.model->forward(ids.data(), 40);
    const size_t mine = a.model->kv_bytes(), theirs = b.model->kv_bytes();
    std::printf("  KV cache at 40 positions: %zu bytes for 2 key/value heads, %zu for 4\n", mine, theirs);
    EXPECT_EQ(mine * 2, theirs);
}

TEST(Decoders, TheArchitectureRoundTripsThroughTheFile) {
    for (Arch arch : kEveryArch) {
        const ModelConfig c = tiny_arch_config(arch);
        const std::vector<uint8_t> bytes = random_model_bytes(c, DType::Q8, 1);
        const ModelConfig read = ModelFile::parse(bytes.data(), bytes.size()).config();
        EXPECT_EQ(read.describe(), c.describe());
        EXPECT_EQ(file_version(read, DType::Q8), arch == Arch::gpt2 ? 1u : 3u);
        EXPECT_EQ(read.rope_scaling.factor, c.rope_scaling.factor);
        EXPECT_EQ(read.rope_theta, c.rope_theta);
        EXPECT_EQ(read.qkv_bias, c.qkv_bias);
        EXPECT_EQ(read.qk_norm, c.qk_norm);
    }
}

// q16 is 16-bit in these architectures' files (version 4). The 14-bit q16 files of version 3, written before, still
// load and run on the 14-bit kernels; the same weights in 16 bits land closer to float32.
TEST(Decoders, FourteenBitQ16FilesOfVersion3StillLoad) {
    const ModelConfig c = tiny_arch_config(Arch::llama);
    Loaded f32(random_model_bytes(c, DType::F32, 4)), q14(random_model_bytes_of_type(c, DType::Q16, 4)),
        q16(random_model_bytes(c, DType::Q16, 4));
    auto version = [](const Loaded& m) {
        uint32_t v;
        std::memcpy(&v, m.bytes.data() + 8, 4);  // the header's version (models/README.md)
        return v;
    };
    EXPECT_EQ(version(q14), 3u);
    EXPECT_EQ(q14.model->weight_type(), DType::Q16);
    EXPECT_EQ(version(q16), 4u);
    EXPECT_EQ(q16.model->weight_type(), DType::Q16Full);
    const int T = 40, V = c.n_vocab;
    const std::vector<int> ids = some_ids(T, V);
    auto largest_difference = [&](Loaded& m) {
        m.model->forward(ids.data(), T, ForwardOptions().with_attention());
        f32.model->forward(ids.data(), T, ForwardOptions().with_attention());
        double d = 0;
        for (size_t i = 0; i < m.model->attention_values(); ++i)
            d = std::max(d, double(std::fabs(m.model->attention()[i] - f32.model->attention()[i])));
        return d;
    };
    const double fourteen = largest_difference(q14), sixteen = largest_difference(q16);
    std::printf("  attention against f32: 14-bit q16 %.3g, 16-bit q16 %.3g\n", fourteen, sixteen);
    EXPECT_LT(fourteen, 0.01);
    EXPECT_LT(sixteen, fourteen);
}

}  // namespace
