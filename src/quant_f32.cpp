// quant_f32.cpp: linear layers with plain f32 weights (the f32 model). Eigen natively; in wasm, where Eigen has
// no SIMD backend, a hand-written SIMD128 kernel: tiles of 4 rows x 2 tokens, dot products along cols.
#include <algorithm>

#include "quant.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#else
#include <Eigen/Core>
#endif

namespace arcscope {

#ifdef __wasm_simd128__

namespace {

inline float hsum(v128_t v) {
    return wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 2) +
           wasm_f32x4_extract_lane(v, 3);
}

// out[t * ldo + r] = dot(x row t, w row r) for R rows x TT tokens.
template <int R, int TT>
void tile(const float* w, const float* x, int cols, float* out, int ldo) {
    v128_t acc[R][TT];
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < TT; ++t) acc[r][t] = wasm_f32x4_splat(0.0f);
    const int k4 = cols / 4 * 4;
    for (int k = 0; k < k4; k += 4) {
        v128_t xv[TT];
        for (int t = 0; t < TT; ++t) xv[t] = wasm_v128_load(x + size_t(t) * cols + k);
        for (int r = 0; r < R; ++r) {
            const v128_t wv = wasm_v128_load(w + size_t(r) * cols + k);
            for (int t = 0; t < TT; ++t) acc[r][t] = wasm_f32x4_add(acc[r][t], wasm_f32x4_mul(wv, xv[t]));
        }
    }
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < TT; ++t) {
            float s = hsum(acc[r][t]);
            for (int k = k4; k < cols; ++k) s += w[size_t(r) * cols + k] * x[size_t(t) * cols + k];
            out[size_t(t) * ldo + r] = s;
        }
}

}  // namespace

void linear_f32(float* out, const float* x, int T, const float* w, int rows, int cols, const float* bias) {
    // Tokens per pass over the weights: their activations stay in cache while the weights stream by.
    constexpr int kChunk = 16;
    for (int t0 = 0; t0 < T; t0 += kChunk) {
        const int t1 = std::min(T, t0 + kChunk);
        for (int r0 = 0; r0 < rows; r0 += 4) {
            const int nr = std::min(4, rows - r0);
            int t = t0;
            for (; t + 2 <= t1; t += 2) {
                if (nr == 4) tile<4, 2>(w + size_t(r0) * cols, x + size_t(t) * cols, cols, out + size_t(t) * rows + r0, rows);
                else for (int r = r0; r < r0 + nr; ++r) tile<1, 2>(w + size_t(r) * cols, x + size_t(t) * cols, cols, out + size_t(t) * rows + r, rows);
            }
            if (t < t1) {
                if (nr == 4) tile<4, 1>(w + size_t(r0) * cols, x + size_t(t) * cols, cols, out + size_t(t) * rows + r0, rows);
                else for (int r = r0; r < r0 + nr; ++r) tile<1, 1>(w + size_t(r) * cols, x + size_t(t) * cols, cols, out + size_t(t) * rows + r, rows);
            }
        }
    }
    if (bias)
        for (int t = 0; t < T; ++t)
            for (int r = 0; r < rows; ++r) out[size_t(t) * rows + r] += bias[r];
}

#else

void linear_f32(float* out, const float* x, int T, const float* w, int rows, int cols, const float* bias) {
    using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<RowMajor> o(out, T, rows);
    Eigen::Map<const RowMajor> xm(x, T, cols), wm(w, rows, cols);
    o.noalias() = xm * wm.transpose();
    if (bias) o.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias, rows);
}

#endif

}  // namespace arcscope
