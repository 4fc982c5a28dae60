// linear_f32.cpp: linear layers with plain f32 weights (the f32 model). One implementation for every build, written
// with float4.h's 4-lane vectors, so native and wasm sum in the same order and give the same bits. Tiles of 4 rows x 2
// tokens, dot products along cols in 4 lane-wise partial sums, added lane 0..3, then the scalar tail.
#include <algorithm>

#include "arcscope/core/float4.h"
#include "arcscope/core/threads.h"
#include "arcscope/kernels/quant.h"

namespace arcscope {

namespace {

// out[t * ldo + r] = dot(x row t, w row r) for R rows x TT tokens.
template <int R, int TT>
void tile(const float* w, const float* x, int cols, float* out, int ldo) {
    F4 acc[R][TT];
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < TT; ++t) acc[r][t] = F4{};
    const int k4 = cols / 4 * 4;
    for (int k = 0; k < k4; k += 4) {
        F4 xv[TT];
        for (int t = 0; t < TT; ++t) xv[t] = load4(x + size_t(t) * cols + k);
        for (int r = 0; r < R; ++r) {
            const F4 wv = load4(w + size_t(r) * cols + k);
            for (int t = 0; t < TT; ++t) acc[r][t] += wv * xv[t];  // builds use -ffp-contract=off: no FMA
        }
    }
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < TT; ++t) {
            float s = ((acc[r][t][0] + acc[r][t][1]) + acc[r][t][2]) + acc[r][t][3];
            for (int k = k4; k < cols; ++k) s += w[size_t(r) * cols + k] * x[size_t(t) * cols + k];
            out[size_t(t) * ldo + r] = s;
        }
}

}  // namespace

void linear_f32(float* out, const float* x, int T, const float* w, int rows, int cols, const float* bias) {
    if (T == 1) {
        // GEMV (decode): 8 rows per pass read more of the matrix at once (measured: 768x2304 in wasm 13-17 ->
        // 21 GB/s). Each output's sum runs in the same order as in the tiles below, so the bits do not change.
        parallel_for((rows + 7) / 8, double(rows) * cols, [&](int begin, int end) {
            for (int r = 8 * begin; r < std::min(rows, 8 * end); r += 8) {
                if (r + 8 <= rows) tile<8, 1>(w + size_t(r) * cols, x, cols, out + r, rows);
                else
                    for (int i = r; i < rows; ++i) tile<1, 1>(w + size_t(i) * cols, x, cols, out + i, rows);
            }
        });
        if (bias)
            for (int i = 0; i < rows; ++i) out[i] += bias[i];
        return;
    }
    // Tokens per pass over the weights: their activations stay in cache while the weights stream by.
    constexpr int kChunk = 16;
    // Each thread takes a contiguous range of 4-row blocks.
    parallel_for((rows + 3) / 4, double(T) * rows * cols, [&](int begin, int end) {
        for (int t0 = 0; t0 < T; t0 += kChunk) {
            const int t1 = std::min(T, t0 + kChunk);
            for (int r0 = 4 * begin; r0 < std::min(rows, 4 * end); r0 += 4) {
                const int nr = std::min(4, rows - r0);
                const float* wr = w + size_t(r0) * cols;
                int t = t0;
                for (; t + 2 <= t1; t += 2) {
                    float* o = out + size_t(t) * rows + r0;
                    if (nr == 4) tile<4, 2>(wr, x + size_t(t) * cols, cols, o, rows);
                    else
                        for (int r = 0; r < nr; ++r)
                            tile<1, 2>(wr + size_t(r) * cols, x + size_t(t) * cols, cols, o + r, rows);
                }
                if (t < t1) {
                    float* o = out + size_t(t) * rows + r0;
                    if (nr == 4) tile<4, 1>(wr, x + size_t(t) * cols, cols, o, rows);
                    else
                        for (int r = 0; r < nr; ++r)
                            tile<1, 1>(wr + size_t(r) * cols, x + size_t(t) * cols, cols, o + r, rows);
                }
            }
        }
    });
    if (bias)
        for (int t = 0; t < T; ++t)
            for (int r = 0; r < rows; ++r) out[size_t(t) * rows + r] += bias[r];
}

}  // namespace arcscope
