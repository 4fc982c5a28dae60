// The modern decoders' layer functions (rmsnorm_forward, RoPE's frequencies, table and rotation, SiLU, SwiGLU, exact
// GELU, grouped-query heads) against values PyTorch computes with python/arcscope_reference/decoder_layers.py
// (decoder_layer_values.inc, written by arcscope_reference.decoder_layer_values), and their properties. Each test
// prints the largest difference it saw.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/core/rope.h"
#include "arcscope/core/threads.h"
#include "model/layers.h"

using namespace arcscope;

namespace {

#include "decoder_layer_values.inc"

// decoder_layer_values.py's inputs: ((i + offset) * 7919 mod 2003 - 1001) / scale, exact floats.
std::vector<float> input_values(int n, float scale, int offset = 0) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) v[size_t(i)] = float(int64_t(i + offset) * 7919 % 2003 - 1001) / scale;
    return v;
}

// How many floats apart a and b are (0: the same bits, but for +0 and -0).
int64_t ulps(float a, float b) {
    const auto key = [](float x) {
        int32_t i;
        std::memcpy(&i, &x, 4);
        return i < 0 ? int64_t(INT32_MIN) - i : int64_t(i);
    };
    return std::llabs(key(a) - key(b));
}

float ulp_of(float x) {
    x = std::fabs(x);
    return std::nextafter(x, INFINITY) - x;
}

struct FrequencyCase {
    const char* name;
    double theta;
    int rotary_dim;
    RopeScaling scaling;
    const float* inv_freq;
    const float* cos;
    const float* sin;
};

RopeScaling llama32_scaling() {
    RopeScaling s;
    s.kind = RopeScaling::Kind::llama3;
    s.factor = 32, s.low_freq_factor = 1, s.high_freq_factor = 4, s.original_max_position_embeddings = 8192;
    return s;
}

// decoder_layer_values.py's FREQUENCIES and TABLE_POSITIONS.
const FrequencyCase kCases[] = {
    {"SmolLM2 (theta 1e5, r 64)", 1e5, 64, {}, k_smollm2_inv_freq, k_smollm2_cos, k_smollm2_sin},
    {"Pythia (theta 1e4, r 16)", 1e4, 16, {}, k_pythia_inv_freq, k_pythia_cos, k_pythia_sin},
    {"Llama 3.2 (theta 5e5, r 64, llama3)", 5e5, 64, llama32_scaling(), k_llama32_inv_freq, k_llama32_cos,
     k_llama32_sin},
    {"Qwen3 (theta 1e6, r 128)", 1e6, 128, {}, k_qwen3_inv_freq, k_qwen3_cos, k_qwen3_sin},
};
const int kTablePositions[] = {0, 1, 3, 1000, 8191};

}  // namespace

TEST(DecoderLayers, RopeFrequenciesMatchTheReference) {
    // torch's float pow is within an ulp of the correctly rounded one, which ours is; what follows it (the
    // reciprocal, llama3's steps) is the same float operations.
    for (const FrequencyCase& c : kCases) {
        std::vector<float> f(static_cast<size_t>(c.rotary_dim / 2));
        rope_inv_freq(f.data(), c.rotary_dim, c.theta, c.scaling);
        int64_t worst = 0;
        int same = 0;
        for (size_t j = 0; j < f.size(); ++j) {
            worst = std::max(worst, ulps(f[j], c.inv_freq[j]));
            same += f[j] == c.inv_freq[j];
        }
        std::printf("%s: %d of %zu frequencies the same bits as PyTorch's, the others within %lld ulp\n", c.name, same,
                    f.size(), (long long)worst);
        EXPECT_LE(worst, 1) << c.name;
    }
}

TEST(DecoderLayers, RopeTableMatchesTheReference) {
    // Within an ulp of torch's cos and sin (vectorised, not correctly rounded), plus what a frequency an ulp apart
    // moves the angle by at that position.
    for (const FrequencyCase& c : kCases) {
        const int half = c.rotary_dim / 2, P = 8192;
        std::vector<float> cos(size_t(P) * half), sin(cos.size()), f(static_cast<size_t>(half));
        rope_table(cos.data(), sin.data(), P, c.rotary_dim, c.theta, c.scaling);
        rope_inv_freq(f.data(), c.rotary_dim, c.theta, c.scaling);
        int64_t worst = 0;
        for (size_t k = 0; k < std::size(kTablePositions); ++k) {
            const int p = kTablePositions[k];
            for (int j = 0; j < half; ++j) {
                const float angle_moved = float(p) * std::fabs(f[size_t(j)] - c.inv_freq[j]);
                for (const auto& [got, want] : {std::pair{cos[size_t(p) * half + j], c.cos[k * half + j]},
                                                std::pair{sin[size_t(p) * half + j], c.sin[k * half + j]}}) {
                    EXPECT_LE(std::fabs(got - want), ulp_of(want) + angle_moved)
                        << c.name << ", position " << p << ", pair " << j;
                    if (angle_moved == 0) worst = std::max(worst, ulps(got, want));
                }
            }
        }
        std::printf("%s: cos and sin at positions 0 .. 8191 within %lld ulp of PyTorch's\n", c.name, (long long)worst);
    }
}

TEST(DecoderLayers, PartialRopeMatchesTheReference) {
    // x (T 3, H 2, d 8), the first 4 dims of each head rotating, at positions 5, 6, 7 (theta 1e4).
    const int T = 3, H = 2, d = 8, r = 4, first = 5;
    std::vector<float> x = input_values(T * H * d, 256), cos(size_t(first + T) * r / 2), sin(cos.size());
    const std::vector<float> before = x;
    rope_table(cos.data(), sin.data(), first + T, r, 1e4, {});
    rope_forward(x.data(), T, H, d, r, cos.data() + first * r / 2, sin.data() + first * r / 2, H * d);
    float worst = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        worst = std::max(worst, std::fabs(x[i] - k_rope_partial_out[i]));
        if (int(i % d) >= r) {
            EXPECT_EQ(x[i], before[i]) << "dim " << i % d << " is past the rotary ones";
        }
    }
    std::printf("partial RoPE: largest difference from PyTorch %.3g\n", worst);
    EXPECT_LE(worst, 4 * ulp_of(4.0f));  // inputs below 4 in size
}

TEST(DecoderLayers, RopeAtPositionZeroIsTheIdentityAndRotationsKeepNorms) {
    const int T = 64, H = 3, d = 64, r = 64, ld = H * d + 7;  // rows further apart than the heads, as in a fused QKV
    std::vector<float> cos(size_t(8192) * r / 2), sin(cos.size());
    rope_table(cos.data(), sin.data(), 8192, r, 1e5, {});
    std::vector<float> x = input_values(T * ld, 256);
    const std::vector<float> before = x;
    rope_forward(x.data(), 1, H, d, r, cos.data(), sin.data(), ld);
    for (int i = 0; i < ld; ++i) EXPECT_EQ(x[size_t(i)], before[size_t(i)]) << "position 0 moved dim " << i;
    // positions 8128 .. 8191: each pair (i, i + r/2) keeps its length
    x = before;
    rope_forward(x.data(), T, H, d, r, cos.data() + size_t(8192 - T) * r / 2, sin.data() + size_t(8192 - T) * r / 2,
                 ld);
    double worst = 0;
    for (int t = 0; t < T; ++t)
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < r / 2; ++i) {
                const size_t a = size_t(t) * ld + size_t(h) * d + i, b = a + r / 2;
                const double n0 = std::hypot(double(before[a]), double(before[b]));
                const double n1 = std::hypot(double(x[a]), double(x[b]));
                if (n0 > 0) worst = std::max(worst, std::fabs(n1 - n0) / n0);
            }
    for (int t = 0; t < T; ++t)  // the padding past the heads is untouched
        for (int i = H * d; i < ld; ++i) EXPECT_EQ(x[size_t(t) * ld + i], before[size_t(t) * ld + i]);
    std::printf("RoPE at positions 8128 .. 8191 changes pair lengths by at most %.3g (relative)\n", worst);
    EXPECT_LE(worst, 4e-7);
}

TEST(DecoderLayers, Llama3ScalingHasItsThreeBands) {
    // Llama 3.2's numbers: wavelengths below 8192 / 4 keep their frequency, above 8192 / 1 divide it by 32, and
    // between the two blend, staying between f / 32 and f.
    const int r = 64;
    std::vector<float> plain(r / 2), scaled(r / 2);
    rope_inv_freq(plain.data(), r, 5e5, {});
    rope_inv_freq(scaled.data(), r, 5e5, llama32_scaling());
    int high = 0, low = 0, medium = 0;
    for (int j = 0; j < r / 2; ++j) {
        const double wavelen = 2 * M_PI / plain[size_t(j)];
        if (wavelen < 2048) {
            EXPECT_EQ(scaled[size_t(j)], plain[size_t(j)]) << j;
            ++high;
        } else if (wavelen > 8192) {
            EXPECT_EQ(scaled[size_t(j)], plain[size_t(j)] / 32.0f) << j;
            ++low;
        } else {
            EXPECT_LT(scaled[size_t(j)], plain[size_t(j)]) << j;
            EXPECT_GT(scaled[size_t(j)], plain[size_t(j)] / 32.0f) << j;
            ++medium;
        }
    }
    std::printf("llama3 scaling, theta 5e5, r 64: %d high, %d medium, %d low frequencies\n", high, medium, low);
    EXPECT_GT(high, 0);
    EXPECT_GT(medium, 0);
    EXPECT_GT(low, 0);
}

TEST(DecoderLayers, RopeRefusesWhatItCannotCompute) {
    std::vector<float> f(64), cos(64), sin(64);
    EXPECT_THROW(rope_inv_freq(f.data(), 7, 1e4, {}), Error);
    EXPECT_THROW(rope_inv_freq(f.data(), 0, 1e4, {}), Error);
    EXPECT_THROW(rope_inv_freq(f.data(), 8, 1.0, {}), Error);
    EXPECT_THROW(rope_inv_freq(f.data(), 8, NAN, {}), Error);
    RopeScaling bad = llama32_scaling();
    bad.high_freq_factor = 0.5;
    EXPECT_THROW(rope_inv_freq(f.data(), 8, 1e4, bad), Error);
    EXPECT_THROW(rope_table(cos.data(), sin.data(), 2000000, 2, 1e4, {}), Error);
}

TEST(DecoderLayers, RmsnormMatchesTheReference) {
    // x (2, 40): two full lane blocks and a tail of 8. torch sums in another order: a few ulps.
    const int T = 2, C = 40;
    const std::vector<float> x = input_values(T * C, 256), w = input_values(C, 512, 100);
    std::vector<float> out(x.size());
    rmsnorm_forward(out.data(), x.data(), T, C, w.data(), 1e-6f);
    int64_t worst = 0;
    for (size_t i = 0; i < out.size(); ++i) worst = std::max(worst, ulps(out[i], k_rmsnorm_out[i]));
    std::printf("RMSNorm: within %lld ulp of PyTorch's\n", (long long)worst);
    EXPECT_LE(worst, 4);

    // in place, and the weight applied afterwards (hook_normalized, then the weight), give the same bits
    std::vector<float> y = x;
    rmsnorm_forward(y.data(), y.data(), T, C, nullptr, 1e-6f);
    scale_shift_forward(y.data(), T, C, w.data(), nullptr);
    for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], out[i]) << i;
}

TEST(DecoderLayers, RmsnormOfAConstantRow) {
    // c a power of two: mean(c^2) = c^2 exactly, so with eps 0 the row becomes sign(c) w, bit for bit; with eps 1e-6,
    // c / sqrt(c^2 + eps) w within 2 ulp.
    const int C = 37;
    const std::vector<float> w = input_values(C, 512, 3);
    for (float c : {-4.0f, 0.5f, 64.0f}) {
        std::vector<float> x(C, c), exact(C), with_eps(C);
        rmsnorm_forward(exact.data(), x.data(), 1, C, w.data(), 0.0f);
        rmsnorm_forward(with_eps.data(), x.data(), 1, C, w.data(), 1e-6f);
        for (int i = 0; i < C; ++i) {
            const size_t k = size_t(i);
            EXPECT_EQ(exact[k], std::copysign(1.0f, c) * w[k]) << "c " << c << ", channel " << i;
            const double want = c / std::sqrt(double(c) * c + double(1e-6f)) * w[k];
            EXPECT_LE(ulps(with_eps[k], float(want)), 2) << "c " << c << ", channel " << i;
        }
    }
}

TEST(DecoderLayers, ActivationsMatchTheReference) {
    // SwiGLU of gate, up (2, 10), an odd width: the last values go through a padded vector.
    std::vector<float> gate = input_values(20, 128);
    const std::vector<float> up = input_values(20, 256, 50);
    swiglu_forward(gate.data(), up.data(), 2, 10);
    int64_t swiglu_worst = 0;
    for (size_t i = 0; i < gate.size(); ++i) swiglu_worst = std::max(swiglu_worst, ulps(gate[i], k_swiglu_out[i]));

    // SiLU and exact GELU of 60 values in about [-8, 8]: SiLU within a few ulps (its e^-x within 2); GELU within
    // 2.5e-7 |x| (its erfc's error) plus an ulp, as torch's own is (its vectorised erf is within 1.5e-7 absolute).
    const std::vector<float> v = input_values(60, 125, 7);
    std::vector<float> silu = v, gelu = v;
    silu_forward(silu.data(), 6, 10);
    gelu_erf_forward(gelu.data(), 6, 10);
    int64_t silu_worst = 0;
    float gelu_worst = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        silu_worst = std::max(silu_worst, ulps(silu[i], k_silu_out[i]));
        const float err = std::fabs(gelu[i] - k_gelu_erf_out[i]);
        gelu_worst = std::max(gelu_worst, err / std::fabs(v[i]));
        EXPECT_LE(err, 2.5e-7f * std::fabs(v[i]) + ulp_of(k_gelu_erf_out[i])) << "gelu(" << v[i] << ")";
    }
    std::printf("SwiGLU within %lld ulp, SiLU within %lld ulp of PyTorch's; exact GELU within %.3g |x|\n",
                (long long)swiglu_worst, (long long)silu_worst, gelu_worst);
    EXPECT_LE(swiglu_worst, 4);
    EXPECT_LE(silu_worst, 4);
}

TEST(DecoderLayers, GroupedQueryHeadsReadTheirKeyValueHead) {
    // Hugging Face's repeat_kv: consecutive query heads share one key/value head.
    const int smollm2[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};  // 9 query heads, 3 key/value heads
    for (int h = 0; h < 9; ++h) EXPECT_EQ(kv_head_of(h, 9, 3), smollm2[h]);
    for (int h = 0; h < 32; ++h) EXPECT_EQ(kv_head_of(h, 32, 8), h / 4);  // Llama 3.2 1B
    for (int h = 0; h < 14; ++h) EXPECT_EQ(kv_head_of(h, 14, 2), h / 7);  // Qwen2.5-0.5B
    for (int h = 0; h < 12; ++h) EXPECT_EQ(kv_head_of(h, 12, 12), h);     // ungrouped
    for (int h = 0; h < 8; ++h) EXPECT_EQ(kv_head_of(h, 8, 1), 0);        // multi-query
}

namespace {

// FNV-1a over the bits of some floats, continuing from h.
uint32_t fnv1a(uint32_t h, const std::vector<float>& v) {
    for (float x : v) {
        uint32_t b;
        std::memcpy(&b, &x, 4);
        for (int k = 0; k < 4; ++k) h = (h ^ ((b >> (8 * k)) & 0xff)) * 16777619u;
    }
    return h;
}

// Every function's output over inputs large enough to be split over the threads, hashed.
uint32_t decoder_layers_hash() {
    uint32_t h = 2166136261u;
    for (const FrequencyCase& c : kCases) {
        const int half = c.rotary_dim / 2, P = 4096;
        std::vector<float> cos(size_t(P) * half), sin(cos.size());
        rope_table(cos.data(), sin.data(), P, c.rotary_dim, c.theta, c.scaling);
        h = fnv1a(fnv1a(h, cos), sin);
        const int T = 256, H = 4, d = c.rotary_dim * 2;  // enough work for the threads, as the others below
        std::vector<float> x = input_values(T * H * d, 64);
        rope_forward(x.data(), T, H, d, c.rotary_dim, cos.data() + size_t(P - T) * half,
                     sin.data() + size_t(P - T) * half, H * d);
        h = fnv1a(h, x);
    }
    const int rows = 64, width = 1000;
    std::vector<float> x = input_values(rows * width, 100), out(x.size());
    rmsnorm_forward(out.data(), x.data(), rows, width, input_values(width, 300, 5).data(), 1e-5f);
    h = fnv1a(h, out);
    std::vector<float> act = input_values(rows * width, 60, 11);
    gelu_erf_forward(act.data(), rows, width);
    h = fnv1a(h, act);
    act = input_values(rows * width, 60, 13);
    silu_forward(act.data(), rows, width);
    h = fnv1a(h, act);
    act = input_values(rows * width, 60, 17);
    swiglu_forward(act.data(), x.data(), rows, width);
    return fnv1a(h, act);
}

}  // namespace

TEST(DecoderLayers, SameBitsInEveryBuildAndWithThreads) {
    // The wasm build gives this same hash: this file and test_portable_math.cpp built by em++ (-O3 -msimd128
    // -ffp-contract=off) with googletest's sources, layers.cpp, rope.cpp and threads.cpp, and run under Node, pass
    // whole. A change of the value here is a change of the engine's numbers.
    const int before = threads();
    set_threads(1);
    const uint32_t one = decoder_layers_hash();
    const int n = set_threads(kMaxThreads);
    const uint32_t many = decoder_layers_hash();
    set_threads(before);
    std::printf("decoder layers' output hash: %08x with one thread, %08x with %d\n", one, many, n);
    EXPECT_EQ(one, many);
    EXPECT_EQ(one, 0x2253dd65u);
}
