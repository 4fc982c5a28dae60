// test_heads.cpp: head scores on attention patterns built by hand, the random repeated sequence, and the analysis
// on a tiny random model (the shipped model's documented scores are checked in test_default_model.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "arcscope/analysis/heads.h"
#include "engine_fixture.h"

using namespace arcscope;
using namespace arcscope::testing;

namespace {

// (1, 3, T, T): head 0 attends to the previous token, head 1 is an induction head on the second copy (uniform before
// it), head 2 attends to position 0 only.
std::vector<float> hand_made_attention(int N) {
    const int T = 2 * N;
    std::vector<float> a(size_t(3) * T * T, 0.0f);
    auto at = [&](int h, int i, int j) -> float& { return a[(size_t(h) * T + i) * T + j]; };
    for (int i = 0; i < T; ++i) {
        at(0, i, std::max(0, i - 1)) = 1;
        if (i >= N) {
            at(1, i, i - N + 1) = 1;
        } else {
            for (int j = 0; j <= i; ++j) at(1, i, j) = 1.0f / float(i + 1);
        }
        at(2, i, 0) = 1;
    }
    return a;
}

}  // namespace

TEST(Heads, ScoresHandMadePatterns) {
    const int N = 5, T = 2 * N;
    HeadScores s = score_heads(hand_made_attention(N).data(), 1, 3, N);
    ASSERT_EQ(s.previous_token.size(), 3u);
    // head 0: every row i >= 1 puts 1 on i - 1; only row 1's is also position 0; never i - N + 1 (N > 2)
    EXPECT_FLOAT_EQ(s.previous_token[0], 1.0f);
    EXPECT_FLOAT_EQ(s.first_token[0], 1.0f / (T - 1));
    EXPECT_FLOAT_EQ(s.induction[0], 0.0f);
    // head 1: all second-copy rows on the induction target; rows 1..N-1 uniform over i + 1 keys
    EXPECT_FLOAT_EQ(s.induction[1], 1.0f);
    double uniform = 0;
    for (int i = 1; i < N; ++i) uniform += 1.0 / (i + 1);
    // second-copy targets i - N + 1 are never i - 1 nor 0, so only the uniform rows count
    EXPECT_NEAR(s.previous_token[1], uniform / (T - 1), 1e-6);
    EXPECT_NEAR(s.first_token[1], uniform / (T - 1), 1e-6);
    // head 2: the sink
    EXPECT_FLOAT_EQ(s.first_token[2], 1.0f);
    EXPECT_FLOAT_EQ(s.previous_token[2], 1.0f / (T - 1));
    EXPECT_FLOAT_EQ(s.induction[2], 0.0f);
}

TEST(Heads, RepeatedRandomTokens) {
    std::vector<int> pool = {7, 11, 13, 17, 19};
    std::vector<int> a = repeated_random_tokens(pool, 40, 1), b = repeated_random_tokens(pool, 40, 1);
    std::vector<int> c = repeated_random_tokens(pool, 40, 2);
    ASSERT_EQ(a.size(), 80u);
    EXPECT_EQ(a, b);  // seeded
    EXPECT_NE(a, c);
    for (int i = 0; i < 40; ++i) {
        EXPECT_EQ(a[i], a[i + 40]);
        EXPECT_NE(std::find(pool.begin(), pool.end(), a[i]), pool.end());
    }
    EXPECT_THROW(repeated_random_tokens({}, 10, 1), Error);
    EXPECT_THROW(repeated_random_tokens(pool, 1, 1), Error);
}

TEST(Heads, AnalyzeTinyModelMatchesScoringItsAttention) {
    std::vector<uint8_t> bytes = tiny_model_bytes(DType::F32, 5);
    Decoder model(ModelFile::parse(bytes.data(), bytes.size()));
    const ModelConfig& c = model.config();
    std::vector<int> pool = default_candidates(c);
    EXPECT_EQ(pool.size(), size_t(c.n_vocab));  // the tiny vocabulary (300) has no end-of-text id
    HeadScores s = analyze_heads(model, pool, 12, 3);

    // The same numbers by reading the attention of the same sequence directly.
    std::vector<int> ids = repeated_random_tokens(pool, 12, 3);
    model.forward(ids.data(), int(ids.size()), ForwardOptions().with_attention());
    const int T = 24;
    double worst = 0;
    for (int lh = 0; lh < c.n_layer * c.n_head; ++lh) {
        const float* a = model.attention() + size_t(lh) * T * T;
        double prev = 0, ind = 0;
        for (int i = 1; i < T; ++i) prev += a[i * T + i - 1];
        for (int i = 12; i < T; ++i) ind += a[i * T + i - 11];
        worst = std::max({worst, std::abs(prev / 23 - s.previous_token[lh]), std::abs(ind / 12 - s.induction[lh])});
        EXPECT_GE(s.first_token[lh], 0.0f);
        EXPECT_LE(s.first_token[lh], 1.0f);
    }
    std::printf("largest difference to scoring the attention by hand: %.3g\n", worst);
    EXPECT_LT(worst, 1e-6);

    EXPECT_NE(error_of([&] { analyze_heads(model, pool, c.n_ctx, 0); }).find("do not fit"), std::string::npos);
    EXPECT_NE(error_of([&] { analyze_heads(model, {c.n_vocab}, 8, 0); }).find("outside the vocabulary"),
              std::string::npos);
}
