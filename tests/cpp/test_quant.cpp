// int8 blocks and matrix kernels: packing round trip, bad input, every kernel against the scalar reference, and
// the quantized product against the exact f32 product.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "arcscope/error.h"
#include "arcscope/quant.h"
#include "diagnostics/quant_check.h"
#include "kernels/quant_layout.h"

using namespace arcscope;

namespace {

std::vector<float> random_vector(size_t n, uint64_t seed, float scale = 1.0f) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v) x = normal(rng);
    return v;
}

std::vector<uint8_t> pack(const std::vector<float>& w, int rows, int cols) {
    std::vector<uint8_t> packed(q8_packed_bytes(rows, cols));
    q8_pack(w.data(), rows, cols, packed.data());
    return packed;
}

}  // namespace

TEST(Quant, PackedSizeIsRecordsRoundedTo64) {
    EXPECT_EQ(q8_packed_bytes(8, 32), 320u);                // one 288-byte record -> 320
    EXPECT_EQ(q8_packed_bytes(768, 2304), 96u * 72 * 288);  // GPT-2 c_attn, transposed (out, in)
    EXPECT_EQ(q8_packed_bytes(2304, 768), 288u * 24 * 288);
    EXPECT_EQ(q8_packed_bytes(9, 33), ((2u * 2 * 288 + 63) / 64) * 64);  // padded rows and cols
    EXPECT_THROW(q8_packed_bytes(0, 5), Error);
    EXPECT_THROW(q8_packed_bytes(5, -1), Error);
}

TEST(Quant, DequantizedWeightsAreWithinHalfAStep) {
    const int rows = 13, cols = 45;
    auto w = random_vector(size_t(rows) * cols, 1);
    w[7] = 0.0f;
    for (int k = 32; k < 45; ++k) w[size_t(2) * cols + k] = 0.0f;  // an all-zero block
    auto packed = pack(w, rows, cols);
    Q8View view = q8_view(packed.data(), packed.size(), rows, cols);
    double worst = 0;
    std::vector<float> row(cols);
    for (int r = 0; r < rows; ++r) {
        q8_dequantize_row(view, r, row.data());
        for (int c0 = 0; c0 < cols; c0 += 32) {
            float amax = 0;
            for (int k = c0; k < std::min(cols, c0 + 32); ++k)
                amax = std::max(amax, std::fabs(w[size_t(r) * cols + k]));
            for (int k = c0; k < std::min(cols, c0 + 32); ++k) {
                const double err = std::fabs(row[k] - w[size_t(r) * cols + k]);
                worst = std::max(worst, err / (amax / 127.0));
                EXPECT_LE(err, amax / 127.0 * 0.5 + 1e-7) << r << "," << k;
                EXPECT_EQ(row[k], q8_weight(view, r, k));
            }
        }
    }
    q8_dequantize_row(view, 2, row.data());
    for (int k = 32; k < 45; ++k) EXPECT_EQ(row[k], 0.0f) << k;
    std::printf("largest |dequantized - w| in units of the block's step: %.4f\n", worst);
}

TEST(Quant, BadInputIsRejected) {
    auto w = random_vector(8 * 32, 2);
    auto packed = pack(w, 8, 32);
    EXPECT_THROW(q8_view(packed.data(), packed.size() - 1, 8, 32), Error);
    EXPECT_THROW(q8_view(packed.data(), packed.size(), 8, 64), Error);
    EXPECT_THROW(q8_view(nullptr, packed.size(), 8, 32), Error);
    Q8View view = q8_view(packed.data(), packed.size(), 8, 32);
    std::vector<float> row(32);
    EXPECT_THROW(q8_dequantize_row(view, 8, row.data()), Error);
    EXPECT_THROW(q8_dequantize_row(view, -1, row.data()), Error);
    EXPECT_THROW(q8_weight(view, 0, 32), Error);
    w[5] = std::nanf("");
    EXPECT_THROW(pack(w, 8, 32), Error);
    w[5] = INFINITY;
    EXPECT_THROW(pack(w, 8, 32), Error);
}

TEST(Quant, EveryKernelMatchesItsReference) {
    for (uint64_t seed : {1u, 2u, 3u}) {
        KernelCheck c = check_kernels(seed);
        std::printf(
            "[%s] seed %d: %d shapes, largest diff q8 %.3g, q8 portable %.3g, f32 %.3g; %d activation mismatches\n",
            kernel_isa(), int(seed), c.cases, c.q8_max_diff, c.q8_portable_max_diff, c.f32_max_diff,
            c.activation_mismatches);
        EXPECT_GT(c.cases, 0);
        EXPECT_LT(c.q8_max_diff, 1e-4);  // same int32 sums; only the f32 order of scale products differs
        EXPECT_LT(c.q8_portable_max_diff, 1e-4);
        EXPECT_EQ(c.activation_mismatches, 0);
        EXPECT_LT(c.f32_max_diff, 1e-4);  // f32 accumulation against a double reference
    }
}

TEST(Quant, QuantizedProductIsCloseToTheExactOne) {
    // GPT-2-like magnitudes: x ~ N(0, 1), w ~ N(0, 1/cols); per-block int8 of both costs well under 1%.
    const int rows = 96, cols = 768, T = 5;
    auto w = random_vector(size_t(rows) * cols, 3, 1.0f / std::sqrt(float(cols)));
    auto x = random_vector(size_t(T) * cols, 4);
    auto packed = pack(w, rows, cols);
    Q8View view = q8_view(packed.data(), packed.size(), rows, cols);
    std::vector<float> q(size_t(T) * rows), exact(q.size());
    linear_q8(q.data(), x.data(), T, view, nullptr);
    linear_f32_reference(exact.data(), x.data(), T, w.data(), rows, cols, nullptr);
    double dot = 0, nq = 0, ne = 0, worst = 0;
    for (size_t i = 0; i < q.size(); ++i) {
        dot += double(q[i]) * exact[i];
        nq += double(q[i]) * q[i];
        ne += double(exact[i]) * exact[i];
        worst = std::max(worst, double(std::fabs(q[i] - exact[i])));
    }
    const double cosine = dot / std::sqrt(nq * ne);
    std::printf("q8 vs exact f32: largest diff %.4g, cosine %.6f\n", worst, cosine);
    EXPECT_GT(cosine, 0.9999);
    EXPECT_LT(worst, 0.05);
}

TEST(Quant, ZeroWeightsGiveTheBias) {
    std::vector<float> w(size_t(10) * 40, 0.0f), bias = random_vector(10, 5), x = random_vector(3 * 40, 6);
    auto packed = pack(w, 10, 40);
    Q8View view = q8_view(packed.data(), packed.size(), 10, 40);
    std::vector<float> out(3 * 10);
    linear_q8(out.data(), x.data(), 3, view, bias.data());
    for (int t = 0; t < 3; ++t)
        for (int r = 0; r < 10; ++r) EXPECT_EQ(out[size_t(t) * 10 + r], bias[r]);
}

// A NaN or Inf activation must not become a finite int8 (it once became -127, hiding an overflow): its block gets
// a NaN scale, so the product is NaN and the forward pass reports it. Zeros stay zeros with scale 0.
TEST(Quant, NonFiniteActivationsPropagate) {
    std::vector<float> x(32, 0.5f);
    std::vector<int16_t> q(32);
    x[7] = std::nanf("");
    EXPECT_TRUE(std::isnan(detail::quantize_block(x.data(), 32, q.data())));
    x[7] = INFINITY;
    EXPECT_TRUE(std::isnan(detail::quantize_block(x.data(), 32, q.data())));
    for (int16_t v : q) EXPECT_EQ(v, 0);
    std::fill(x.begin(), x.end(), 0.0f);
    EXPECT_EQ(detail::quantize_block(x.data(), 32, q.data()), 0.0f);
    // Through the batched path (the SIMD128 quantizer in wasm) the same way.
    x[3] = std::nanf("");
    const detail::QuantizedActs a = detail::quantize_activations(x.data(), 1, 32);
    EXPECT_TRUE(std::isnan(a.scale[0]));
}
