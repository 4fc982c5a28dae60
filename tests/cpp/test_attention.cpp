// The article's printed checks, plus small cases computed by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "arcscope/article/attention.h"
#include "arcscope/core/error.h"

using namespace arcscope;

TEST(Attention, SingleHeadShapesAndRowSums) {
    // The article: d_model 64, d_head 16, batch 2, seq 8.
    SingleHeadAttention attn(64, 16, 42);
    Tensor x = random_normal({2, 8, 64}, 42);
    auto o = attn.forward(x);
    EXPECT_EQ(o.out.shape, (std::vector<int>{2, 8, 16}));
    EXPECT_EQ(o.weights.shape, (std::vector<int>{2, 8, 8}));
    double worst = 0;
    for (int b = 0; b < 2; ++b)
        for (int i = 0; i < 8; ++i) worst = std::max(worst, std::abs(o.weights.matrix(b).row(i).sum() - 1.0));
    std::printf("largest |row sum - 1|: %.3g\n", worst);
    EXPECT_LT(worst, 1e-6);
}

TEST(Attention, CausalMaskIsLowerTriangular) {
    Matrix m = causal_mask(5);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) EXPECT_EQ(m(i, j), j <= i ? 1.0f : 0.0f) << i << "," << j;
    EXPECT_THROW(causal_mask(0), Error);
}

TEST(Attention, CausalMaskZeroesTheUpperTriangle) {
    SingleHeadAttention attn(64, 16, 7);
    Tensor x = random_normal({2, 8, 64}, 42);
    Matrix mask = causal_mask(8);
    auto o = attn.forward(x, &mask);
    double upper = 0;
    for (int b = 0; b < 2; ++b)
        upper += o.weights.matrix(b).triangularView<Eigen::StrictlyUpper>().toDenseMatrix().sum();
    std::printf("upper-triangle weight sum: %.3g\n", upper);
    EXPECT_EQ(upper, 0.0);
    // Position 0 attends only to itself.
    EXPECT_FLOAT_EQ(o.weights.matrix(0)(0, 0), 1.0f);
}

TEST(Attention, HandComputedTwoTokens) {
    // d_model = d_head = 2, identity projections. x0 = (1, 0), x1 = (0, 2).
    SingleHeadAttention attn(2, 2);
    for (const char* w : {"W_q", "W_k", "W_v"}) attn.set_weight(w, Matrix::Identity(2, 2));
    Tensor x({1, 2, 2}, {1, 0, 0, 2});
    auto o = attn.forward(x);
    // scores = x xᵀ / sqrt(2) = [[1, 0], [0, 4]] / sqrt(2)
    const double s = std::sqrt(2.0);
    const double w00 = std::exp(1 / s) / (std::exp(1 / s) + 1);
    const double w11 = std::exp(4 / s) / (1 + std::exp(4 / s));
    EXPECT_NEAR(o.weights.data[0], w00, 1e-6);
    EXPECT_NEAR(o.weights.data[1], 1 - w00, 1e-6);
    EXPECT_NEAR(o.weights.data[3], w11, 1e-6);
    // out = weights · V
    EXPECT_NEAR(o.out.data[0], w00 * 1, 1e-6);
    EXPECT_NEAR(o.out.data[1], (1 - w00) * 2, 1e-6);
    EXPECT_NEAR(o.out.data[3], w11 * 2, 1e-6);
}

TEST(Attention, MultiHeadKeepsTheInputShape) {
    MultiHeadAttention mha(64, 4, 1);
    Tensor x = random_normal({2, 8, 64}, 42);
    Matrix mask = causal_mask(8);
    auto o = mha.forward(x, &mask);
    EXPECT_EQ(o.out.shape, x.shape);
    EXPECT_EQ(o.weights.shape, (std::vector<int>{2, 4, 8, 8}));
    for (int i = 0; i < 2 * 4; ++i) {
        EXPECT_NEAR(o.weights.matrix(i).sum(), 8.0, 1e-5);
        EXPECT_EQ(o.weights.matrix(i).triangularView<Eigen::StrictlyUpper>().toDenseMatrix().sum(), 0.0f);
    }
}

TEST(Attention, MultiHeadRejectsIndivisibleWidth) {
    try {
        MultiHeadAttention mha(64, 5);
        FAIL() << "expected an Error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "d_model (64) is not divisible by n_heads (5)");
    }
}

TEST(Attention, MultiHeadEqualsSingleHeadsConcatenated) {
    // Each head of the MHA is a SingleHeadAttention on its slice of the projections.
    const int d_model = 12, H = 3, d = 4, T = 5;
    MultiHeadAttention mha(d_model, H, 3);
    Tensor x = random_normal({1, T, d_model}, 9);
    auto o = mha.forward(x);
    Matrix merged(T, d_model);
    for (int h = 0; h < H; ++h) {
        SingleHeadAttention head(d_model, d);
        head.set_weight("W_q", mha.weight("W_q").middleCols(h * d, d));
        head.set_weight("W_k", mha.weight("W_k").middleCols(h * d, d));
        head.set_weight("W_v", mha.weight("W_v").middleCols(h * d, d));
        auto s = head.forward(x);
        merged.middleCols(h * d, d) = s.out.matrix(0);
        EXPECT_LT((s.weights.matrix(0) - o.weights.matrix(h)).cwiseAbs().maxCoeff(), 1e-6);
    }
    const double err = (merged * mha.weight("W_o") - Matrix(o.out.matrix(0))).cwiseAbs().maxCoeff();
    std::printf("largest |MHA - concatenated single heads|: %.3g\n", err);
    EXPECT_LT(err, 1e-5);
}

TEST(Attention, SplitAndMergeAreInverse) {
    Tensor x = random_normal({2, 3, 8}, 5);
    Tensor s = split_heads(x, 4);
    EXPECT_EQ(s.shape, (std::vector<int>{2, 4, 3, 2}));
    EXPECT_EQ(merge_heads(s).data, x.data);
}

TEST(Attention, PositionalEncodingKnownValues) {
    PositionalEncoding pe(64, 100);
    const Matrix& t = pe.table();
    EXPECT_FLOAT_EQ(t(0, 0), 0.0f);  // sin(0)
    EXPECT_FLOAT_EQ(t(0, 1), 1.0f);  // cos(0)
    EXPECT_NEAR(t(1, 0), std::sin(1.0), 1e-7);
    EXPECT_NEAR(t(1, 1), std::cos(1.0), 1e-7);
    // dims 2 and 3 use frequency 10000^(-2/64)
    EXPECT_NEAR(t(5, 2), std::sin(5 * std::pow(10000.0, -2.0 / 64)), 1e-6);
    EXPECT_NEAR(t(5, 3), std::cos(5 * std::pow(10000.0, -2.0 / 64)), 1e-6);
    EXPECT_NEAR(t(99, 63), std::cos(99 * std::pow(10000.0, -62.0 / 64)), 1e-6);
    Tensor x({1, 3, 64});
    Tensor y = pe.forward(x);
    EXPECT_EQ(Matrix(y.matrix(0)), Matrix(t.topRows(3)));
    EXPECT_THROW(pe.forward(Tensor({1, 101, 64})), Error);
}

TEST(Attention, BadInputsAreErrors) {
    SingleHeadAttention attn(8, 4);
    EXPECT_THROW(attn.forward(Tensor({1, 3, 7})), Error);
    Matrix small = causal_mask(2);
    EXPECT_THROW(attn.forward(Tensor({1, 3, 8}), &small), Error);
    Matrix blocked = Matrix::Zero(3, 3);
    EXPECT_THROW(attn.forward(Tensor({1, 3, 8}), &blocked), Error);
    EXPECT_THROW(attn.set_weight("W_o", Matrix::Zero(8, 4)), Error);
    EXPECT_THROW(attn.set_weight("W_q", Matrix::Zero(4, 8)), Error);
}

TEST(Attention, SeedsAreDeterministic) {
    SingleHeadAttention a(16, 4, 11), b(16, 4, 11), c(16, 4, 12);
    EXPECT_EQ(a.weight("W_q"), b.weight("W_q"));
    EXPECT_NE(a.weight("W_q"), c.weight("W_q"));
}
