// rope.cpp: RoPE's frequencies, table and rotation (rope.h). The table's transcendental functions run in
// portable_math_double.h's double precision and are rounded to float once, so native and wasm give the same bits.
#include "arcscope/core/rope.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/core/portable_math_double.h"
#include "arcscope/core/threads.h"

namespace arcscope {

namespace {

// Llama 3's scaling of each frequency f, every step a float operation as torch's on float32 tensors (a Python
// number meeting a float32 tensor becomes a float; a number divided by a tensor is the tensor's reciprocal times it).
// With wavelength w = 2 pi / f and L the original context: w < L / high unchanged, w > L / low f / factor, otherwise
// s = (L / w - low) / (high - low) blends the two: (1 - s) f / factor + s f.
float llama3_scaled(float f, const RopeScaling& s) {
    const float factor = float(s.factor), low = float(s.low_freq_factor);
    const double L = s.original_max_position_embeddings;
    const float low_wavelen = float(L / s.low_freq_factor), high_wavelen = float(L / s.high_freq_factor);
    const float wavelen = (1.0f / f) * float(6.283185307179586);  // 2 pi
    const float scaled = wavelen > low_wavelen ? f / factor : f;
    const float smooth = ((1.0f / wavelen) * float(L) - low) / float(s.high_freq_factor - s.low_freq_factor);
    const float smoothed = (1.0f - smooth) * scaled / factor + smooth * scaled;
    const bool medium = !(wavelen < high_wavelen) && !(wavelen > low_wavelen);
    return medium ? smoothed : scaled;
}

}  // namespace

void rope_inv_freq(float* inv_freq, int rotary_dim, double theta, const RopeScaling& scaling) {
    require(rotary_dim > 0 && rotary_dim % 2 == 0,
            "rotary dimension " + std::to_string(rotary_dim) + " must be positive and even");
    const float base = float(theta);  // torch's pow(theta, float32 tensor) takes theta as a float
    require(std::isfinite(base) && base > 1.0f, "rope theta " + std::to_string(theta) + " must be above 1");
    if (scaling.kind == RopeScaling::Kind::llama3)
        require(scaling.factor > 0 && scaling.low_freq_factor > 0 &&
                    scaling.high_freq_factor > scaling.low_freq_factor && scaling.original_max_position_embeddings > 0,
                "llama3 rope scaling needs factor > 0 and high_freq_factor > low_freq_factor > 0");
    for (int j = 0; j < rotary_dim / 2; ++j) {
        const float exponent = float(2 * j) / float(rotary_dim);
        const float power = float(portable_pow_double(base, exponent));
        const float f = 1.0f / power;
        inv_freq[j] = scaling.kind == RopeScaling::Kind::llama3 ? llama3_scaled(f, scaling) : f;
    }
}

void rope_table(float* cos, float* sin, int n_positions, int rotary_dim, double theta, const RopeScaling& scaling) {
    const int half = rotary_dim / 2;
    std::vector<float> inv_freq(size_t(std::max(half, 0)));
    rope_inv_freq(inv_freq.data(), rotary_dim, theta, scaling);
    require(n_positions >= 0, "rope table: negative position count");
    if (n_positions > 0)
        require(double(n_positions - 1) * inv_freq[0] <= 1e6,
                "rope table: angles beyond 1e6 (" + std::to_string(n_positions) + " positions)");
    parallel_for(n_positions, 60.0 * n_positions * half, [&](int p0, int p1) {
        for (int p = p0; p < p1; ++p)
            for (int j = 0; j < half; ++j) {
                const float angle = float(p) * inv_freq[size_t(j)];  // a float product, as HF's
                double s, c;
                portable_sincos_double(angle, &s, &c);
                cos[size_t(p) * half + j] = float(c);
                sin[size_t(p) * half + j] = float(s);
            }
    });
}

void rope_forward(float* x, int T, int n_heads, int head_dim, int rotary_dim, const float* cos, const float* sin,
                  int ld) {
    const int half = rotary_dim / 2;
    parallel_for(T, 6.0 * T * n_heads * rotary_dim, [&](int t0, int t1) {
        for (int t = t0; t < t1; ++t) {
            const float* c = cos + size_t(t) * half;
            const float* s = sin + size_t(t) * half;
            for (int h = 0; h < n_heads; ++h) {
                float* a = x + size_t(t) * ld + size_t(h) * head_dim;
                float* b = a + half;
                for (int i = 0; i < half; ++i) {
                    const float ai = a[i], bi = b[i];
                    a[i] = ai * c[i] + -bi * s[i];
                    b[i] = bi * c[i] + ai * s[i];
                }
            }
        }
    });
}

}  // namespace arcscope
