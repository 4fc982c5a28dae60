// test_rotary.cpp: the article's RotaryEmbedding: the angles it turns by, its promise (a query at m and a key at n
// score by m - n alone), and that it is the rotation the decoders run (their hook_rot_q from their hook_q).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "arcscope/article/rotary.h"
#include "arcscope/model/hooks.h"
#include "decoder_fixture.h"

using namespace arcscope;
using namespace arcscope::testing;

namespace {

float dot(const float* a, const float* b, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += double(a[i]) * b[i];
    return float(s);
}

// One (1, d) vector turned to position p.
std::vector<float> at(const RotaryEmbedding& rope, const Tensor& v, int p) {
    return rope.forward(v, {p}).data;
}

}  // namespace

TEST(Rotary, PairIWithIPlusHalfTurnsByPositionTimesItsFrequency) {
    // d = 4: dims (0, 2) turn at frequency 1, dims (1, 3) at 1 / 10000^(2/4) = 0.01.
    RotaryEmbedding rope(4, 64);
    for (int p : {0, 1, 7, 63}) {
        const std::vector<float> e0 = at(rope, Tensor({1, 4}, {1, 0, 0, 0}), p);
        const std::vector<float> e1 = at(rope, Tensor({1, 4}, {0, 1, 0, 0}), p);
        EXPECT_NEAR(e0[0], std::cos(double(p)), 1e-6);
        EXPECT_NEAR(e0[2], std::sin(double(p)), 1e-6);
        EXPECT_EQ(e0[1], 0.0f);
        EXPECT_NEAR(e1[1], std::cos(0.01 * p), 1e-6);
        EXPECT_NEAR(e1[3], std::sin(0.01 * p), 1e-6);
    }
}

TEST(Rotary, AQueryAndAKeyScoreByTheirOffsetAlone) {
    const int d = 64;
    RotaryEmbedding rope(d, 4096);
    const Tensor q = random_normal({1, d}, 1), k = random_normal({1, d}, 2);
    for (int offset : {0, 1, 5, 40}) {
        const std::vector<float> k0 = at(rope, k, 0);
        const float first = dot(at(rope, q, offset).data(), k0.data(), d);
        for (int n : {3, 100, 1000, 4000}) {
            const float score = dot(at(rope, q, n + offset).data(), at(rope, k, n).data(), d);
            EXPECT_NEAR(score, first, 2e-4f * std::max(1.0f, std::fabs(first)))
                << "offset " << offset << ", key at " << n;
        }
    }
    // and the offset matters: a query 0 and 40 positions after the key score differently
    const float near = dot(at(rope, q, 0).data(), at(rope, k, 0).data(), d);
    const float far = dot(at(rope, q, 40).data(), at(rope, k, 0).data(), d);
    EXPECT_GT(std::fabs(near - far), 0.1f);
}

TEST(Rotary, RowsTurnByTheirPositionsAndOnlyTheRotaryDims) {
    RotaryEmbedding rope(8, 16, 10000, 4);  // Pythia's way: 4 of 8 dims turn
    const Tensor x = random_normal({2, 3, 8}, 5);
    const Tensor all = rope.forward(x), shifted = rope.forward(x, {5, 6, 7});
    for (int b = 0; b < 2; ++b)
        for (int t = 0; t < 3; ++t) {
            const float* row = x.data.data() + (b * 3 + t) * 8;
            EXPECT_EQ(at(rope, Tensor({1, 8}, std::vector<float>(row, row + 8)), t),
                      std::vector<float>(all.data.begin() + (b * 3 + t) * 8, all.data.begin() + (b * 3 + t + 1) * 8));
            for (int i = 4; i < 8; ++i) EXPECT_EQ(shifted.data[(b * 3 + t) * 8 + i], row[i]) << "dim " << i;
        }
}

TEST(Rotary, BadArgumentsAreErrors) {
    EXPECT_THROW(RotaryEmbedding(8, 16, 10000, 3), Error);
    EXPECT_THROW(RotaryEmbedding(8, 16, 10000, 10), Error);
    EXPECT_THROW(RotaryEmbedding(0, 16), Error);
    EXPECT_THROW(RotaryEmbedding(8, 16, 1.0), Error);
    RotaryEmbedding rope(8, 16);
    EXPECT_THROW(rope.forward(random_normal({1, 4, 6}, 1)), Error);           // d 6, not 8
    EXPECT_THROW(rope.forward(random_normal({1, 2, 8}, 1), {0, 16}), Error);  // past max_seq_len
    EXPECT_THROW(rope.forward(random_normal({1, 2, 8}, 1), {0}), Error);      // one position for two rows
    EXPECT_THROW(rope.forward(random_normal({1, 17, 8}, 1)), Error);          // 17 rows, 16 positions
}

// GPT-NeoX (4 of 16 dims turn) and Qwen2 (theta 1e6): each head's hook_rot_q and hook_rot_k are its hook_q and hook_k
// turned by this block, bit for bit.
TEST(Rotary, IsTheRotationTheDecodersRun) {
    for (Arch arch : {Arch::gpt_neox, Arch::qwen2}) {
        const ModelConfig c = tiny_arch_config(arch);
        Loaded m(random_model_bytes(c, DType::F32, 3));
        const int T = 30, d = c.head_dim();
        const std::vector<int> ids = some_ids(T, c.n_vocab, 4);
        ActivationCache cache(c, {{HookPoint::Q, 1}, {HookPoint::RotQ, 1}, {HookPoint::K, 1}, {HookPoint::RotK, 1}}, T);
        m.model->forward(ids.data(), T, ForwardOptions().with_hooks(&cache));
        RotaryEmbedding rope(d, T, c.rope_theta, c.rotary_dim);
        for (int pair : {0, 2}) {
            const std::vector<float>& plain = cache.entries()[size_t(pair)].data;
            const std::vector<float>& turned = cache.entries()[size_t(pair) + 1].data;
            const int heads = int(plain.size()) / (T * d);
            for (int h = 0; h < heads; ++h) {
                Tensor head({T, d}), expected({T, d});
                for (int t = 0; t < T; ++t)
                    for (int i = 0; i < d; ++i) {
                        head.data[size_t(t) * d + i] = plain[(size_t(t) * heads + h) * d + i];
                        expected.data[size_t(t) * d + i] = turned[(size_t(t) * heads + h) * d + i];
                    }
                EXPECT_EQ(rope.forward(head).data, expected.data)
                    << arch_name(arch) << " hook " << pair << " head " << h;
            }
        }
    }
}
