// quant_tiles.cpp: what every q8 and q16 kernel shares: activation quantization into reused scratch, and the loop that
// walks tiles of 8 rows x TT tokens over the output.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "arcscope/core/threads.h"
#include "arcscope/kernels/quant_layout.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace arcscope::detail {

namespace {

// A full block of 32: quantize_block's exact arithmetic (same amax, same inv, same rounding and clamp), in SIMD128
// where the scalar loop would not vectorize.
inline float quantize_full_block(const float* x, int16_t* q, int limit) {
#ifdef __wasm_simd128__
    v128_t v[8];
    v128_t m = wasm_f32x4_splat(0.0f), nan = wasm_i32x4_splat(0);
    for (int i = 0; i < 8; ++i) {
        v[i] = wasm_v128_load(x + 4 * i);
        m = wasm_f32x4_pmax(m, wasm_f32x4_abs(v[i]));
        nan = wasm_v128_or(nan, wasm_f32x4_ne(v[i], v[i]));
    }
    const float amax = std::fmax(std::fmax(wasm_f32x4_extract_lane(m, 0), wasm_f32x4_extract_lane(m, 1)),
                                 std::fmax(wasm_f32x4_extract_lane(m, 2), wasm_f32x4_extract_lane(m, 3)));
    if (!(amax > 0.0f) || !std::isfinite(amax) || wasm_v128_any_true(nan))
        return quantize_block(x, kQBlock, q, limit);  // zeros, NaN, inf: scalar
    const float a = float(limit);
    const v128_t inv = wasm_f32x4_splat(a / amax);
    const v128_t lo = wasm_f32x4_splat(-a), hi = wasm_f32x4_splat(a);
    for (int i = 0; i < 8; i += 2) {
        const v128_t a = wasm_f32x4_min(hi, wasm_f32x4_max(lo, wasm_f32x4_nearest(wasm_f32x4_mul(v[i], inv))));
        const v128_t b = wasm_f32x4_min(hi, wasm_f32x4_max(lo, wasm_f32x4_nearest(wasm_f32x4_mul(v[i + 1], inv))));
        wasm_v128_store(q + 4 * i,
                        wasm_i16x8_narrow_i32x4(wasm_i32x4_trunc_sat_f32x4(a), wasm_i32x4_trunc_sat_f32x4(b)));
    }
    return amax / a;
#else
    return quantize_block(x, kQBlock, q, limit);
#endif
}

}  // namespace

void split_7bit(int16_t* q, int blocks) {
    for (int b = 0; b < blocks; ++b) {
        int16_t* block = q + size_t(b) * kQBlock;
        uint8_t parts[2 * kQBlock];
        for (int k = 0; k < kQBlock; ++k) {
            const int u = block[k] + kSplitOffset;  // [1, 16383]
            parts[k] = uint8_t(u >> 7);
            parts[kQBlock + k] = uint8_t(u & 127);
        }
        std::memcpy(block, parts, sizeof parts);
    }
}

QuantizedActs quantize_activations(const float* x, int T, int cols, const QFormat& f, ActivationLayout layout) {
    // Grows to the largest (T, cols) seen, then never allocates again.
    thread_local std::vector<int16_t> q;
    thread_local std::vector<float> scale;
    const int blocks = (cols + kQBlock - 1) / kQBlock;
    const int ld = blocks * kQBlock;
    if (q.size() < size_t(T) * ld) q.resize(size_t(T) * ld);
    if (scale.size() < size_t(T) * blocks) scale.resize(size_t(T) * blocks);
    // Tokens apart on the threads, into the caller's scratch.
    int16_t* const q_data = q.data();
    float* const s_data = scale.data();
    const int limit = f.activation_max;
    parallel_for(T, 4.0 * T * cols, [&](int t0, int t1) {
        for (int t = t0; t < t1; ++t) {
            int16_t* qt = q_data + size_t(t) * ld;
            for (int b = 0; b < blocks; ++b) {
                const int n = std::min(kQBlock, cols - b * kQBlock);
                const float* xb = x + size_t(t) * cols + b * kQBlock;
                s_data[size_t(t) * blocks + b] =
                    kernel_scale(f, n == kQBlock ? quantize_full_block(xb, qt + b * kQBlock, limit)
                                                 : quantize_block(xb, n, qt + b * kQBlock, limit));
                std::fill(qt + b * kQBlock + n, qt + (b + 1) * kQBlock, int16_t(0));
            }
            if (layout) layout(qt, blocks);
        }
    });
    return {q.data(), scale.data(), ld, blocks};
}

void run_q_tiles(float* out, const float* x, int T, const QView& w, const float* bias, const QTile* tiles, int max_tt,
                 ActivationLayout layout) {
    const QFormat& f = w.format();
    const QuantizedActs a = quantize_activations(x, T, w.cols, f, layout);
    const int blocks = w.blocks();
    // Tokens per pass over the weights: their activations stay in L2 while the weights stream by.
    constexpr int kTokenChunk = 32;
    // Blocks per pass over those tokens: a group's slice of weights (24 x 288 bytes = 7 KB for q8, 13 KB for q16)
    // stays in L1 while every token tile reads it. At T = 1 the records are still read in file order.
    constexpr int kBlockChunk = 24;
    // Each thread takes a contiguous range of row groups: its own slice of the weights, the same sums per row.
    parallel_for(w.groups(), double(T) * w.rows * w.cols, [&](int g_begin, int g_end) {
        float res[16 * kQRowGroup];
        for (int t0 = 0; t0 < T; t0 += kTokenChunk) {
            const int t1 = std::min(T, t0 + kTokenChunk);
            for (int g = g_begin; g < g_end; ++g) {
                const int row0 = g * kQRowGroup;
                const int nr = std::min(kQRowGroup, w.rows - row0);
                for (int b0 = 0; b0 < blocks; b0 += kBlockChunk) {
                    const int nb = std::min(kBlockChunk, blocks - b0);
                    const uint8_t* slice = w.data + (size_t(g) * blocks + b0) * f.record_bytes;
                    for (int t = t0; t < t1;) {
                        const int tt = std::min(max_tt, t1 - t);
                        tiles[tt - 1](slice, nb, a.q + size_t(t) * a.ld + b0 * kQBlock, a.ld,
                                      a.scale + size_t(t) * blocks + b0, blocks, res);
                        for (int i = 0; i < tt; ++i) {
                            float* o = out + size_t(t + i) * w.rows + row0;
                            const float* s = res + i * kQRowGroup;
                            if (b0 > 0)
                                for (int r = 0; r < nr; ++r) o[r] += s[r];
                            else if (bias)
                                for (int r = 0; r < nr; ++r) o[r] = s[r] + bias[row0 + r];
                            else
                                for (int r = 0; r < nr; ++r) o[r] = s[r];
                        }
                        t += tt;
                    }
                }
            }
        }
    });
}

}  // namespace arcscope::detail
