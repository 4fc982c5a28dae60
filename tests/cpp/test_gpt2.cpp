// test_gpt2.cpp: forward pass invariants, KV-cache decoding == full forward, bad input, sampling and generation.
// (Agreement with the PyTorch reference is tests/reference/test_engine.py.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "arcscope/analysis/sampling.h"
#include "arcscope/model/decoder.h"
#include "decoder_fixture.h"

using namespace arcscope;
using namespace arcscope::testing;

namespace {

// Adds `by` to one column of every row it sees at one hook point: an intervention the test can tell apart.
class ShiftColumn : public Hooks {
public:
    ShiftColumn(HookName hook, int column, float by) : hook_(hook), column_(column), by_(by) {}
    bool wants(const HookName& h) const override { return h == hook_; }
    void visit(const HookSite& site, float* values) override {
        for (int r = 0; r < site.rows; ++r) values[size_t(r) * site.stride + column_] += by_;
    }

private:
    HookName hook_;
    int column_;
    float by_;
};

}  // namespace

TEST(Decoder, VariantsInABatchGiveTheBitsOfEachAlone) {
    // resume_variants runs variants of different starts, lengths and hooks as one batch: each must get the bits that
    // resume() gives it alone, the batches split wherever they fill, and the KV cache must be left as it was.
    ModelConfig c = tiny_config();
    c.n_ctx = 400;
    for (DType type : {DType::Q8, DType::Q16, DType::F32})
        for (KVType kv : {KVType::F32, KVType::F16}) {
            std::vector<uint8_t> bytes = tiny_model_bytes(type, 3, c);
            Decoder g(ModelFile::parse(bytes.data(), bytes.size()));
            g.set_kv_type(kv);
            const int T = 300, C = c.n_embd, layer = 1;
            const std::vector<int> ids = some_ids(T, c.n_vocab, 5), tokens = {3, 250, 7, 299};
            ActivationCache cache(c, {{HookPoint::ResidPre, layer}}, T);
            g.forward(ids.data(), T, ForwardOptions().with_hooks(&cache));
            const std::vector<float> after_base(g.logits(), g.logits() + c.n_vocab);
            std::vector<float> resid = cache.entries()[0].data;
            for (float& x : resid) x *= 1.25f;  // a residual stream no tokens give
            ShiftColumn shift_z({HookPoint::Z, layer}, 5, 0.5f),
                shift_mlp({HookPoint::MlpOut, c.n_layer - 1}, 2, -1.0f);
            const std::vector<Variant> variants = {
                {0, T, resid.data(), nullptr},               // longer than a batch: alone
                {5, T - 5, resid.data() + 5 * C, &shift_z},  // batched from here on
                {T - 1, 1, resid.data() + size_t(T - 1) * C, nullptr},
                {200, 40, resid.data() + 200 * C, &shift_mlp},  // ends before the prompt does
                {200, 40, resid.data() + 200 * C, nullptr},
            };
            std::vector<float> batched(variants.size() * tokens.size());
            g.resume_variants(layer, variants, tokens, batched.data());
            EXPECT_EQ(g.logits_rows(), 0);
            EXPECT_EQ(g.cached_prefix(ids.data(), T), T - 1) << "the KV cache is as the pass left it";
            g.forward_from(T - 1, ids.data(), T);
            EXPECT_TRUE(std::equal(g.logits(), g.logits() + c.n_vocab, after_base.begin()));
            for (size_t v = 0; v < variants.size(); ++v) {
                g.forward(ids.data(), T);
                g.resume(layer, variants[v].first, variants[v].resid, variants[v].rows, variants[v].hooks);
                for (size_t i = 0; i < tokens.size(); ++i)
                    EXPECT_EQ(batched[v * tokens.size() + i], g.logits()[tokens[i]])
                        << dtype_name(type) << ", kv " << kv_type_name(kv) << ", variant " << v << ", token "
                        << tokens[i];
            }
            std::vector<float> one(2);
            const int wrong[] = {3, 300};
            EXPECT_THROW(g.unembed_tokens(resid.data(), wrong, 2, one.data()), Error);
        }
}

TEST(Decoder, AttentionIsCausalAndRowsSumToOne) {
    Loaded m = load_tiny(DType::F32);
    Decoder& g = *m.model;
    const int T = 20, L = 2, H = 4;
    std::vector<int> ids = some_ids(T, 300);
    g.forward(ids.data(), T, ForwardOptions().with_attention());
    ASSERT_NE(g.attention(), nullptr);
    EXPECT_EQ(g.attention_queries(), T);
    EXPECT_EQ(g.attention_keys(), T);
    EXPECT_EQ(g.logits_rows(), 1);
    double worst_sum = 0, upper = 0, peak = 0;
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < T; ++i) {
                const float* row = g.attention() + ((size_t(l) * H + h) * T + i) * T;
                double s = 0;
                for (int j = 0; j < T; ++j) {
                    s += row[j];
                    if (j > i) upper += std::fabs(row[j]);
                    else if (i > 0) peak = std::max(peak, double(row[j]));
                }
                worst_sum = std::max(worst_sum, std::fabs(s - 1));
            }
    std::printf("  worst |row sum - 1| %.3g, upper triangle total %.3g, largest weight %.3f\n", worst_sum, upper, peak);
    EXPECT_LT(worst_sum, 1e-5);
    EXPECT_EQ(upper, 0.0);
    EXPECT_GT(peak, 0.2);  // the random heads are not uniform: the comparisons below mean something

    g.forward(ids.data(), T);
    EXPECT_EQ(g.attention(), nullptr);
}

TEST(Decoder, LastLogitsEqualLastRowOfAllLogits) {
    Loaded m = load_tiny(DType::Q8);
    std::vector<int> ids = some_ids(17, 300);
    m.model->forward(ids.data(), 17, ForwardOptions().with_all_logits());
    ASSERT_EQ(m.model->logits_rows(), 17);
    std::vector<float> all(m.model->logits(), m.model->logits() + 17 * 300);
    m.model->forward(ids.data(), 17);
    // The same bits: the pass for the last position skips the last block's other rows after their keys and values.
    EXPECT_TRUE(std::equal(m.model->logits(), m.model->logits() + 300, all.begin() + 16 * 300));
}

TEST(Decoder, KVCacheDecodingEqualsFullForward) {
    for (DType t : {DType::F32, DType::Q8, DType::Q16}) {
        Loaded m = load_tiny(t);
        Decoder& g = *m.model;
        const int T = 40, P = 5, L = 2, H = 4, V = 300;
        std::vector<int> ids = some_ids(T, V);
        g.forward(ids.data(), T, ForwardOptions().with_attention().with_all_logits());
        std::vector<float> logits(g.logits(), g.logits() + size_t(T) * V);
        std::vector<float> att(g.attention(), g.attention() + size_t(L) * H * T * T);

        g.forward(ids.data(), P);
        double logit_err = 0, att_err = 0;
        const float* first_logits_buffer = nullptr;
        for (int pos = P; pos < T; ++pos) {
            g.append(ids[pos], ForwardOptions().with_attention());
            ASSERT_EQ(g.length(), pos + 1);
            ASSERT_EQ(g.attention_queries(), 1);
            ASSERT_EQ(g.attention_keys(), pos + 1);
            if (pos == P + 1) first_logits_buffer = g.logits();
            if (pos > P + 1) {
                EXPECT_EQ(g.logits(), first_logits_buffer);  // buffers reused, not reallocated
            }
            for (int v = 0; v < V; ++v)
                logit_err = std::max(logit_err, double(std::fabs(g.logits()[v] - logits[size_t(pos) * V + v])));
            for (int l = 0; l < L; ++l)
                for (int h = 0; h < H; ++h)
                    for (int j = 0; j <= pos; ++j) {
                        float full = att[((size_t(l) * H + h) * T + pos) * T + j];
                        float row = g.attention()[(size_t(l) * H + h) * (pos + 1) + j];
                        att_err = std::max(att_err, double(std::fabs(full - row)));
                    }
        }
        std::printf(
            "  %s: KV-cache decode vs full forward, %d positions: logits max diff %.3g, attention max diff %.3g\n",
            dtype_name(t), T - P, logit_err, att_err);
        EXPECT_LT(logit_err, 1e-4);
        EXPECT_LT(att_err, 1e-5);
    }
}

TEST(Decoder, LongInputsInChunksEqualTokenByToken) {
    // 290 positions pass through the blocks in chunks of 64; appending them one at a time must give the same bits
    // (q8: every step of the forward pass is position-wise or sums in a fixed order).
    ModelConfig c = tiny_config();
    c.n_ctx = 300;
    std::vector<uint8_t> bytes = tiny_model_bytes(DType::Q8, 2, c);
    Decoder g(ModelFile::parse(bytes.data(), bytes.size()));
    const int T = 290, L = 2, H = 4, V = 300;
    std::vector<int> ids = some_ids(T, V, 11);
    g.forward(ids.data(), T, ForwardOptions().with_attention().with_all_logits());
    std::vector<float> logits(g.logits(), g.logits() + size_t(T) * V);
    std::vector<float> att(g.attention(), g.attention() + size_t(L) * H * T * T);
    g.forward(ids.data(), T);
    EXPECT_EQ(std::vector<float>(g.logits(), g.logits() + V), std::vector<float>(logits.end() - V, logits.end()));
    g.reset();
    double logit_err = 0, att_err = 0;
    for (int pos = 0; pos < T; ++pos) {
        g.append(ids[pos], ForwardOptions().with_attention());
        for (int v = 0; v < V; ++v)
            logit_err = std::max(logit_err, double(std::fabs(g.logits()[v] - logits[size_t(pos) * V + v])));
        for (int lh = 0; lh < L * H; ++lh)
            for (int j = 0; j < T; ++j) {
                float full = att[(size_t(lh) * T + pos) * T + j];
                float row = j <= pos ? g.attention()[size_t(lh) * (pos + 1) + j] : 0.0f;
                att_err = std::max(att_err, double(std::fabs(full - row)));
            }
    }
    std::printf("  T=%d in chunks vs one token at a time: logits max diff %.3g, attention max diff %.3g\n", T,
                logit_err, att_err);
    EXPECT_EQ(logit_err, 0.0);
    EXPECT_EQ(att_err, 0.0);
}

TEST(Decoder, AttentionPatternFromHookedQueriesAndKeysIsTheCapture) {
    // 150 positions: two chunks of the pass, one recomputation.
    ModelConfig c = tiny_config();
    c.n_ctx = 160;
    std::vector<uint8_t> bytes = tiny_model_bytes(DType::Q8, 2, c);
    Decoder g(ModelFile::parse(bytes.data(), bytes.size()));
    const int T = 150, H = 4;
    std::vector<int> ids = some_ids(T, 300, 12);
    g.forward(ids.data(), T, ForwardOptions().with_attention());
    const std::vector<float> att(g.attention(), g.attention() + g.attention_values());
    const int layer = 1;
    ActivationCache cache(c, {{HookPoint::Q, layer}, {HookPoint::K, layer}}, T);
    g.forward(ids.data(), T, ForwardOptions().with_hooks(&cache));
    std::vector<float> out(size_t(T) * T);
    for (int h = 0; h < H; ++h) {
        g.attention_pattern(cache.entries()[0].data.data(), cache.entries()[1].data.data(), T, h, out.data());
        const float* want = att.data() + (size_t(layer) * H + h) * T * T;
        EXPECT_TRUE(std::equal(out.begin(), out.end(), want)) << "head " << h;
    }
    EXPECT_THROW(g.attention_pattern(out.data(), out.data(), T, H, out.data()), Error);
}

TEST(Decoder, ForwardFromAKeptPrefixIsAFreshPassAtTheNewPositions) {
    // An edit keeps the positions before it: the pass from there, on the KV cache the earlier text left, must give
    // the same bits as a fresh pass over the new text (logits, attention rows, hooks), at any split of the chunks.
    ModelConfig c = tiny_config();
    c.n_ctx = 200;
    for (DType type : {DType::Q8, DType::Q16, DType::F32}) {
        std::vector<uint8_t> bytes = tiny_model_bytes(type, 2, c);
        Decoder g(ModelFile::parse(bytes.data(), bytes.size()));
        const int T = 170, L = 2, H = 4, V = 300;
        const std::vector<int> before = some_ids(T, V, 21);
        for (int edit : {0, 1, 63, 64, 100, 169}) {
            std::vector<int> after = before;
            after[size_t(edit)] = (after[size_t(edit)] + 1) % V;
            ActivationCache fresh_cache(c, {{HookPoint::Q, 1}, {HookPoint::Pattern, 0}}, T);
            g.forward(after.data(), T, ForwardOptions().with_attention().with_all_logits().with_hooks(&fresh_cache));
            const std::vector<float> logits(g.logits(), g.logits() + size_t(T) * V);
            const std::vector<float> att(g.attention(), g.attention() + g.attention_values());

            g.forward(before.data(), T);
            const int first = g.cached_prefix(after.data(), T);
            ASSERT_EQ(first, edit);
            const int n = T - first;
            ActivationCache cache(c, {{HookPoint::Q, 1}, {HookPoint::Pattern, 0}}, n, first);
            g.forward_from(first, after.data(), T,
                           ForwardOptions().with_attention().with_all_logits().with_hooks(&cache));
            ASSERT_EQ(g.logits_rows(), n);
            ASSERT_EQ(g.attention_queries(), n);
            ASSERT_EQ(g.attention_keys(), T);
            EXPECT_TRUE(std::equal(g.logits(), g.logits() + size_t(n) * V, logits.begin() + ptrdiff_t(first) * V))
                << dtype_name(type) << ", edit at " << edit;
            for (int lh = 0; lh < L * H; ++lh)
                EXPECT_TRUE(std::equal(g.attention() + size_t(lh) * n * T, g.attention() + size_t(lh + 1) * n * T,
                                       att.begin() + ptrdiff_t((size_t(lh) * T + first) * T)))
                    << dtype_name(type) << ", edit at " << edit << ", layer x head " << lh;
            const std::vector<float>& q = fresh_cache.entries()[0].data;
            EXPECT_TRUE(std::equal(cache.entries()[0].data.begin(), cache.entries()[0].data.end(),
                                   q.begin() + ptrdiff_t(first) * c.n_embd));
            const std::vector<float>& pattern = fresh_cache.entries()[1].data;  // [H, T, T]
            for (int h = 0; h < H; ++h)
                EXPECT_TRUE(std::equal(cache.entries()[1].data.begin() + ptrdiff_t(size_t(h) * n * T),
                                       cache.entries()[1].data.begin() + ptrdiff_t(size_t(h + 1) * n * T),
                                       pattern.begin() + ptrdiff_t((size_t(h) * T + first) * T)));
        }
    }
}

TEST(Decoder, OnlyTokensTheCacheHoldsAsTheyAreCanBeKept) {
    Loaded m = load_tiny(DType::Q8);
    Decoder& g = *m.model;
    const std::vector<int> ids = some_ids(12, 300);
    EXPECT_EQ(g.cached_prefix(ids.data(), 12), 0);  // nothing run yet
    g.forward(ids.data(), 12);
    EXPECT_EQ(g.cached_prefix(ids.data(), 12), 11);  // the last position always runs
    EXPECT_EQ(g.cached_prefix(ids.data(), 5), 4);
    std::vector<int> longer = ids;
    longer.push_back(7);
    EXPECT_EQ(g.cached_prefix(longer.data(), 13), 12);
    // A pass whose hooks change values leaves a cache no tokens alone give.
    struct Doubler : Hooks {
        bool wants(const HookName& h) const override { return h.point == HookPoint::ResidPost && h.layer == 0; }
        void visit(const HookSite& s, float* v) override {
            for (int r = 0; r < s.rows; ++r)
                for (int i = 0; i < s.width; ++i) v[size_t(r) * s.stride + i] *= 2;
        }
    } doubler;
    g.forward(ids.data(), 12, ForwardOptions().with_hooks(&doubler));
    EXPECT_EQ(g.cached_prefix(ids.data(), 12), 0);
    // resume() writes positions from a residual stream: those are not any tokens' either.
    g.forward(ids.data(), 12);
    std::vector<float> resid(size_t(4) * g.config().n_embd, 0.5f);
    g.resume(1, 8, resid.data(), 4);
    EXPECT_EQ(g.cached_prefix(ids.data(), 12), 8);
    g.set_kv_type(KVType::F16);
    EXPECT_EQ(g.cached_prefix(ids.data(), 12), 0);
    EXPECT_THROW(g.forward_from(1, ids.data(), 12), Error);
}

TEST(Decoder, RejectsBadInputClearly) {
    Loaded m = load_tiny(DType::Q8);
    Decoder& g = *m.model;
    std::vector<int> ids = some_ids(48, 300);
    EXPECT_NE(error_of([&] { g.forward(ids.data(), 0); }).find("empty input"), std::string::npos);
    std::vector<int> long_ids = some_ids(49, 300);
    EXPECT_NE(error_of([&] {
                  g.forward(long_ids.data(), 49);
              }).find("49 tokens is longer than the model's context (n_ctx 48)"),
              std::string::npos);
    std::vector<int> bad = {1, 2, 300};
    EXPECT_NE(error_of([&] {
                  g.forward(bad.data(), 3);
              }).find("token id 300 at position 2 is outside the vocabulary [0, 300)"),
              std::string::npos);
    bad = {-1};
    EXPECT_NE(error_of([&] { g.forward(bad.data(), 1); }).find("token id -1"), std::string::npos);

    g.forward(ids.data(), 48);  // the context is now full
    EXPECT_NE(error_of([&] { g.append(5); }).find("longer than the model's context"), std::string::npos);
    EXPECT_EQ(g.length(), 48);  // a rejected append leaves the cache as it was
    g.reset();
    EXPECT_EQ(g.length(), 0);
    g.append(5);
    EXPECT_EQ(g.length(), 1);
}

TEST(Sampling, GreedyTopKTopPAndSeeds) {
    std::vector<float> logits = {1.0f, 3.0f, 2.0f, 3.0f, -1.0f};
    SamplingParams greedy;
    greedy.temperature = 0;
    EXPECT_EQ(Sampler(greedy).sample(logits.data(), 5), 1);  // ties go to the lower id

    SamplingParams top1;
    top1.top_k = 1;
    top1.seed = 3;
    Sampler s1(top1);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(s1.sample(logits.data(), 5), 1);

    SamplingParams nucleus;
    nucleus.top_p = 0.5f;  // ids 1 and 3 hold 2 x 0.39 of the mass: the first alone is under 0.5
    Sampler sp(nucleus);
    std::vector<int> counts(5, 0);
    for (int i = 0; i < 2000; ++i) counts[sp.sample(logits.data(), 5)]++;
    EXPECT_EQ(counts[0] + counts[2] + counts[4], 0);
    EXPECT_GT(counts[1], 800);
    EXPECT_GT(counts[3], 800);

    SamplingParams hot;
    hot.seed = 42;
    Sampler a(hot), b(hot);
    std::vector<int> sa, sb;
    for (int i = 0; i < 200; ++i) {
        sa.push_back(a.sample(logits.data(), 5));
        sb.push_back(b.sample(logits.data(), 5));
    }
    EXPECT_EQ(sa, sb);
    std::vector<int> c(5, 0);
    for (int v : sa) c[v]++;
    EXPECT_GT(c[4], 0);  // temperature 1 reaches the unlikely token now and then

    SamplingParams bad;
    bad.temperature = -1;
    EXPECT_NE(error_of([&] { Sampler x(bad); }).find("temperature"), std::string::npos);
    bad = SamplingParams{};
    bad.top_p = 0;
    EXPECT_NE(error_of([&] { Sampler x(bad); }).find("top_p"), std::string::npos);
}

TEST(Sampling, TopKProbabilities) {
    std::vector<float> logits = {0.0f, 2.0f, 1.0f, 2.0f};
    std::vector<TokenProb> top = top_k_probs(logits.data(), 4, 3);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[0].id, 1);
    EXPECT_EQ(top[1].id, 3);
    EXPECT_EQ(top[2].id, 2);
    double z = 1 + 2 * std::exp(2.0) + std::exp(1.0);
    EXPECT_NEAR(top[0].prob, std::exp(2.0) / z, 1e-6);
    EXPECT_NEAR(top[2].prob, std::exp(1.0) / z, 1e-6);
    EXPECT_EQ(top_k_probs(logits.data(), 4, 10).size(), 4u);
    EXPECT_NE(error_of([&] { top_k_probs(logits.data(), 4, 0); }).find("k must be positive"), std::string::npos);
}

TEST(Generate, ReproducibleAndStopsAtTheContext) {
    Loaded m = load_tiny(DType::Q8);
    std::vector<int> prompt = some_ids(6, 300);
    SamplingParams p;
    p.seed = 7;
    p.top_k = 40;
    auto run = [&](const SamplingParams& params, int n, StopReason* why = nullptr) {
        std::vector<int> out;
        StopReason r = generate(*m.model, prompt, n, params, [&](int id) {
            out.push_back(id);
            return true;
        });
        if (why) *why = r;
        return out;
    };
    std::vector<int> a = run(p, 20), b = run(p, 20);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.size(), 20u);
    p.seed = 8;
    EXPECT_NE(run(p, 20), a);

    // Greedy generation equals repeatedly taking the argmax of a full forward pass.
    SamplingParams greedy;
    greedy.temperature = 0;
    std::vector<int> g = run(greedy, 8);
    std::vector<int> seq = prompt;
    for (int i = 0; i < 8; ++i) {
        m.model->forward(seq.data(), int(seq.size()));
        const float* lg = m.model->logits();
        int best = int(std::max_element(lg, lg + 300) - lg);
        EXPECT_EQ(g[i], best) << "token " << i;
        seq.push_back(best);
    }

    StopReason why;
    std::vector<int> full = run(p, 1000, &why);
    EXPECT_EQ(why, StopReason::ContextFull);
    EXPECT_EQ(prompt.size() + full.size(), 48u);  // exactly n_ctx tokens in all
}
