// q8 and q16 blocks and the matrix kernels: packing round trip, bad input, every kernel against the scalar
// reference, the int32 sums at their overflow bound, and the quantized product against the exact f32 product.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/diagnostics/quant_check.h"
#include "arcscope/kernels/quant.h"
#include "arcscope/kernels/quant_layout.h"

using namespace arcscope;

namespace {

std::vector<float> random_vector(size_t n, uint64_t seed, float scale = 1.0f) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v) x = normal(rng);
    return v;
}

std::vector<uint8_t> pack(const std::vector<float>& w, int rows, int cols, DType type = DType::Q8) {
    std::vector<uint8_t> packed(q_packed_bytes(type, rows, cols));
    q_pack(type, w.data(), rows, cols, packed.data());
    return packed;
}

constexpr DType kPacked[] = {DType::Q8, DType::Q16, DType::Q16Full};

}  // namespace

TEST(Quant, EachFormatSaysItsBits) {
    const std::pair<DType, Precision> want[] = {
        {DType::F32, {32, 32}}, {DType::Q8, {8, 14}}, {DType::Q16, {14, 14}}, {DType::Q16Full, {16, 16}}};
    for (const auto& [type, bits] : want) {
        EXPECT_EQ(dtype_precision(type).weight_bits, bits.weight_bits) << int(type);
        EXPECT_EQ(dtype_precision(type).activation_bits, bits.activation_bits) << int(type);
    }
}

TEST(Quant, PackedSizeIsRecordsRoundedTo64) {
    EXPECT_EQ(q_packed_bytes(DType::Q8, 8, 32), 320u);                // one 288-byte record -> 320
    EXPECT_EQ(q_packed_bytes(DType::Q8, 768, 2304), 96u * 72 * 288);  // GPT-2 c_attn, transposed (out, in)
    EXPECT_EQ(q_packed_bytes(DType::Q8, 2304, 768), 288u * 24 * 288);
    EXPECT_EQ(q_packed_bytes(DType::Q8, 9, 33), ((2u * 2 * 288 + 63) / 64) * 64);  // padded rows and cols
    EXPECT_THROW(q_packed_bytes(DType::Q8, 0, 5), Error);
    EXPECT_THROW(q_packed_bytes(DType::Q8, 5, -1), Error);
    EXPECT_EQ(q_packed_bytes(DType::Q16, 8, 32), 576u);                 // one 544-byte record -> 576
    EXPECT_EQ(q_packed_bytes(DType::Q16, 2304, 768), 288u * 24 * 544);  // GPT-2 c_attn
    EXPECT_EQ(q_packed_bytes(DType::Q16, 9, 33), ((2u * 2 * 544 + 63) / 64) * 64);
    EXPECT_THROW(q_packed_bytes(DType::Q16, 0, 5), Error);
    EXPECT_THROW(q_packed_bytes(DType::F32, 8, 32), Error);  // f32 is not packed
}

TEST(Quant, DTypeNamesRoundTrip) {
    for (DType t : {DType::F32, DType::Q8, DType::Q16}) EXPECT_EQ(parse_dtype(dtype_name(t), "dtype"), t);
    try {
        parse_dtype("q4", "--dtype");
        FAIL() << "q4 accepted";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "--dtype must be q8, q16 or f32, got 'q4'");
    }
}

TEST(Quant, DequantizedWeightsAreWithinHalfAStep) {
    for (DType type : kPacked) {
        const int rows = 13, cols = 45;
        auto w = random_vector(size_t(rows) * cols, 1);
        w[7] = 0.0f;
        for (int k = 32; k < 45; ++k) w[size_t(2) * cols + k] = 0.0f;  // an all-zero block
        auto packed = pack(w, rows, cols, type);
        QView view = q_view(type, packed.data(), packed.size(), rows, cols);
        const double levels = q_format(type).weight_max;
        double worst = 0;
        std::vector<float> row(cols);
        for (int r = 0; r < rows; ++r) {
            q_dequantize_row(view, r, row.data());
            for (int c0 = 0; c0 < cols; c0 += 32) {
                float amax = 0;
                for (int k = c0; k < std::min(cols, c0 + 32); ++k)
                    amax = std::max(amax, std::fabs(w[size_t(r) * cols + k]));
                for (int k = c0; k < std::min(cols, c0 + 32); ++k) {
                    const double err = std::fabs(row[k] - w[size_t(r) * cols + k]);
                    worst = std::max(worst, err / (amax / levels));
                    EXPECT_LE(err, amax / levels * 0.5 + 1e-7) << r << "," << k;
                    EXPECT_EQ(row[k], q_weight(view, r, k));
                }
            }
        }
        q_dequantize_row(view, 2, row.data());
        for (int k = 32; k < 45; ++k) EXPECT_EQ(row[k], 0.0f) << k;
        std::printf("%s: largest |dequantized - w| in units of the block's step: %.4f\n", dtype_name(type), worst);
    }
}

TEST(Quant, BadInputIsRejected) {
    for (DType type : kPacked) {
        auto w = random_vector(8 * 32, 2);
        auto packed = pack(w, 8, 32, type);
        EXPECT_THROW(q_view(type, packed.data(), packed.size() - 64, 8, 32), Error);
        w[5] = std::nanf("");
        EXPECT_THROW(pack(w, 8, 32, type), Error);
    }
    auto w = random_vector(8 * 32, 2);
    auto packed = pack(w, 8, 32);
    EXPECT_THROW(q_view(DType::Q8, packed.data(), packed.size() - 1, 8, 32), Error);
    EXPECT_THROW(q_view(DType::Q8, packed.data(), packed.size(), 8, 64), Error);
    EXPECT_THROW(q_view(DType::Q8, nullptr, packed.size(), 8, 32), Error);
    QView view = q_view(DType::Q8, packed.data(), packed.size(), 8, 32);
    std::vector<float> row(32);
    EXPECT_THROW(q_dequantize_row(view, 8, row.data()), Error);
    EXPECT_THROW(q_dequantize_row(view, -1, row.data()), Error);
    EXPECT_THROW(q_weight(view, 0, 32), Error);
    w[5] = std::nanf("");
    EXPECT_THROW(pack(w, 8, 32), Error);
    w[5] = INFINITY;
    EXPECT_THROW(pack(w, 8, 32), Error);
}

TEST(Quant, EveryKernelMatchesItsReference) {
    for (uint64_t seed : {1u, 2u, 3u}) {
        KernelCheck c = check_kernels(seed);
        std::printf("[%s] seed %d: %d shapes, f32 %.3g, %d activation mismatches\n", kernel_isa(), int(seed), c.cases,
                    c.f32_max_diff, c.activation_mismatches);
        EXPECT_GT(c.cases, 0);
        EXPECT_EQ(c.activation_mismatches, 0);
        const std::pair<const char*, const FormatCheck&> formats[] = {
            {"q8", c.q8}, {"q16", c.q16}, {"q16 (16-bit)", c.q16_full}};
        for (const auto& [name, f] : formats) {
            std::printf("  %s: largest diff %.3g, portable %.3g\n", name, f.max_diff, f.portable_max_diff);
            EXPECT_LT(f.max_diff, 1e-4) << name;  // same int32 sums; only the f32 order of scale products differs
            EXPECT_LT(f.portable_max_diff, 1e-4) << name;
            EXPECT_EQ(f.bit_mismatches, 0) << name;  // the SIMD kernel and the plain one: the same bits
        }
        EXPECT_LT(c.f32_max_diff, 1e-4);  // f32 accumulation against a double reference
    }
}

// The relaxed-SIMD q8 kernel's arithmetic (quant_wasm_relaxed.cpp), with i32x4.relaxed_dot_i8x16_i7x16_add_s as the
// standard defines it for a second operand in [0, 127]: every 14-bit activation splits into two 7-bit parts, and
// 128 (sum(w hi) - 64 sum(w)) + sum(w lo) is sum(w a) for every block, at the limits too.
TEST(Quant, SevenBitSplitGivesTheSameSums) {
    std::vector<int16_t> all(16384 + kQBlock - 16384 % kQBlock, 0);
    for (int a = -kQ8.activation_max; a <= kQ8.activation_max; ++a) all[size_t(a + kQ8.activation_max)] = int16_t(a);
    const std::vector<int16_t> plain = all;
    detail::split_7bit(all.data(), int(all.size() / kQBlock));
    for (size_t b = 0; b < all.size() / kQBlock; ++b) {
        const auto* bytes = reinterpret_cast<const uint8_t*>(all.data() + b * kQBlock);
        for (int k = 0; k < kQBlock; ++k) {
            const int hi = bytes[k], lo = bytes[kQBlock + k], a = plain[b * kQBlock + k];
            ASSERT_LE(hi, 127);
            ASSERT_LE(lo, 127);
            ASSERT_EQ(128 * hi + lo - detail::kSplitOffset, a);
        }
    }
    // One lane of the relaxed dot: acc + 4 products of signed weights with bytes in [0, 127].
    const auto dot_lane = [](int32_t acc, const int8_t* w, const uint8_t* x) {
        for (int j = 0; j < 4; ++j) {
            EXPECT_LE(x[j], 127);
            acc += int32_t(w[j]) * x[j];
        }
        return acc;
    };
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> weight(-kQ8.weight_max, kQ8.weight_max),
        act(-kQ8.activation_max, kQ8.activation_max);
    for (int trial = 0; trial < 2000; ++trial) {
        int8_t w[kQBlock];
        int16_t a[kQBlock];
        for (int k = 0; k < kQBlock; ++k) {
            w[k] = int8_t(trial < 4 ? (trial % 2 ? kQ8.weight_max : -kQ8.weight_max) : weight(rng));
            a[k] = int16_t(trial < 4 ? (trial / 2 ? kQ8.activation_max : -kQ8.activation_max) : act(rng));
        }
        int64_t want = 0;
        for (int k = 0; k < kQBlock; ++k) want += int64_t(w[k]) * a[k];
        detail::split_7bit(a, 1);
        const auto* parts = reinterpret_cast<const uint8_t*>(a);
        const uint8_t offset[4] = {64, 64, 64, 64};
        int32_t acc = 0, off = 0;
        for (int j = 0; j < kQBlock; j += 4) {
            acc = dot_lane(acc, w + j, parts + j);
            off = dot_lane(off, w + j, offset);
        }
        acc = (acc - off) * 128;
        for (int j = 0; j < kQBlock; j += 4) acc = dot_lane(acc, w + j, parts + kQBlock + j);
        ASSERT_EQ(acc, want) << "trial " << trial;
    }
}

// Every weight and activation at its limit, signs chosen so that all 32 products of a block add up (the largest
// int32 sum either format can reach), over 200 blocks (GPT-2 XL's mlp.c_proj, the longest row of the family).
// Should a block's int32 sum overflow, it would wrap negative; the reference sums in 64 bits.
TEST(Quant, SumsAtTheOverflowBoundAreExact) {
    const int rows = 16, cols = 6400, T = 3;
    for (DType type : kPacked) {
        std::vector<float> w(size_t(rows) * cols), x(size_t(T) * cols);
        for (int r = 0; r < rows; ++r)
            for (int k = 0; k < cols; ++k) w[size_t(r) * cols + k] = ((k * 7 + r) % 3 == 0) ? -1.0f : 1.0f;
        for (int t = 0; t < T; ++t)
            for (int k = 0; k < cols; ++k) {  // token t agrees in sign with row t (rows t+8.. disagree)
                const float sign = w[size_t(t) * cols + k];
                x[size_t(t) * cols + k] = sign * 2.5f;
            }
        auto packed = pack(w, rows, cols, type);
        const QView view = q_view(type, packed.data(), packed.size(), rows, cols);
        const QFormat& f = q_format(type);
        EXPECT_EQ(std::abs(detail::record_q(f, detail::record(view, 0, 0), 0, 0)), f.weight_max);
        std::vector<float> fast(size_t(T) * rows), portable(fast.size()), ref(fast.size());
        linear_q(fast.data(), x.data(), T, view, nullptr);
        detail::linear_q_portable(portable.data(), x.data(), T, view, nullptr);
        linear_q_reference(ref.data(), x.data(), T, view, nullptr);
        for (int t = 0; t < T; ++t) {
            const float want = 2.5f * cols;  // row t . token t: every product +2.5
            for (const auto* out : {&fast, &portable, &ref})
                EXPECT_NEAR((*out)[size_t(t) * rows + t], want, want * 1e-6) << dtype_name(type) << " token " << t;
            for (int r = 0; r < rows; ++r) {
                EXPECT_EQ(fast[size_t(t) * rows + r], ref[size_t(t) * rows + r]) << dtype_name(type) << " " << r;
                EXPECT_EQ(portable[size_t(t) * rows + r], ref[size_t(t) * rows + r]);
            }
        }
    }
}

TEST(Quant, QuantizedProductIsCloseToTheExactOne) {
    // GPT-2-like magnitudes: x ~ N(0, 1), w ~ N(0, 1/cols). Per block, q8 weights with 14-bit activations cost well
    // under 1%; q16 (14-bit weights and activations) some 40 times less, and 16-bit q16 a quarter of that (two bits
    // more).
    for (DType type : kPacked) {
        const int rows = 96, cols = 768, T = 5;
        auto w = random_vector(size_t(rows) * cols, 3, 1.0f / std::sqrt(float(cols)));
        auto x = random_vector(size_t(T) * cols, 4);
        auto packed = pack(w, rows, cols, type);
        QView view = q_view(type, packed.data(), packed.size(), rows, cols);
        std::vector<float> q(size_t(T) * rows), exact(q.size());
        linear_q(q.data(), x.data(), T, view, nullptr);
        linear_f32_reference(exact.data(), x.data(), T, w.data(), rows, cols, nullptr);
        double dot = 0, nq = 0, ne = 0, worst = 0;
        for (size_t i = 0; i < q.size(); ++i) {
            dot += double(q[i]) * exact[i];
            nq += double(q[i]) * q[i];
            ne += double(exact[i]) * exact[i];
            worst = std::max(worst, double(std::fabs(q[i] - exact[i])));
        }
        const double cosine = dot / std::sqrt(nq * ne);
        std::printf("%s vs exact f32: largest diff %.4g, 1 - cosine %.3g\n", dtype_name(type), worst, 1 - cosine);
        EXPECT_LT(1 - cosine, type == DType::Q8 ? 2e-5 : type == DType::Q16 ? 1e-8 : 1e-9);
        EXPECT_LT(worst, type == DType::Q8 ? 0.025 : type == DType::Q16 ? 6e-4 : 1.5e-4);
    }
}

TEST(Quant, ZeroWeightsGiveTheBias) {
    std::vector<float> w(size_t(10) * 40, 0.0f), bias = random_vector(10, 5), x = random_vector(3 * 40, 6);
    auto packed = pack(w, 10, 40);
    QView view = q_view(DType::Q8, packed.data(), packed.size(), 10, 40);
    std::vector<float> out(3 * 10);
    linear_q(out.data(), x.data(), 3, view, bias.data());
    for (int t = 0; t < 3; ++t)
        for (int r = 0; r < 10; ++r) EXPECT_EQ(out[size_t(t) * 10 + r], bias[r]);
}

// A NaN or Inf activation must not become a finite integer (it once became -127, hiding an overflow): its block gets
// a NaN scale, so the product is NaN and the forward pass reports it. Zeros stay zeros with scale 0.
TEST(Quant, NonFiniteActivationsPropagate) {
    std::vector<float> x(32, 0.5f);
    std::vector<int16_t> q(32);
    x[7] = std::nanf("");
    for (const QFormat& f : {kQ8, kQ16, kQ16Full}) {
        const int limit = f.activation_max;
        std::fill(x.begin(), x.end(), 0.5f);
        x[7] = std::nanf("");
        EXPECT_TRUE(std::isnan(detail::quantize_block(x.data(), 32, q.data(), limit)));
        x[7] = INFINITY;
        EXPECT_TRUE(std::isnan(detail::quantize_block(x.data(), 32, q.data(), limit)));
        for (int16_t v : q) EXPECT_EQ(v, 0);
        std::fill(x.begin(), x.end(), 0.0f);
        EXPECT_EQ(detail::quantize_block(x.data(), 32, q.data(), limit), 0.0f);
        // Through the batched path (the SIMD128 quantizer in wasm) the same way.
        x[3] = std::nanf("");
        const detail::QuantizedActs a = detail::quantize_activations(x.data(), 1, 32, f);
        EXPECT_TRUE(std::isnan(a.scale[0]));
    }
}
