// quant_layout.h (internal): where each scale and int8 weight lives in a packed q8 record (see quant.h), and the
// run-time quantization of activations that every q8 kernel shares.
#pragma once
#include <cstdint>
#include <cstring>

#include "arcscope/quant.h"

namespace arcscope::detail {

// Offset of weight (r, k) inside its record: r in [0, 8) row of the group, k in [0, 32) column of the block.
inline size_t q_offset(int r, int k) {
    return 4 * kQ8RowGroup + (size_t(k / 2) * kQ8RowGroup + r) * 2 + (k % 2);
}

// The record holding (row, col).
inline const uint8_t* record(const Q8View& w, int row, int col) {
    return w.data + (size_t(row / kQ8RowGroup) * w.blocks() + col / kQ8Block) * kQ8RecordBytes;
}

inline float record_scale(const uint8_t* rec, int r) {
    float s;
    std::memcpy(&s, rec + 4 * r, 4);
    return s;
}

inline int record_q(const uint8_t* rec, int r, int k) {
    return static_cast<int8_t>(rec[q_offset(r, k)]);
}

// One activation block quantized: scale = max|x| / 127, q = round(x * 127 / max|x|), ties to even (weights round ties
// away from zero at pack time; the difference only matters at exact halves).
inline float quantize_block(const float* x, int n, int16_t* q);

// x (T, cols) quantized per token and block into thread-local scratch that only grows:
//   q (T, ld) int16 holding int8 values, zero-padded to ld = blocks * 32; scale (T, blocks).
struct QuantizedActs {
    const int16_t* q;
    const float* scale;
    int ld;
    int blocks;
};
QuantizedActs quantize_activations(const float* x, int T, int cols);

// A kernel tile: one group of 8 rows x TT tokens over `blocks` consecutive blocks. group = the first record;
// xq (TT, ldq) / xs (TT, lds) = the first token's quantized activations and scales at the first block;
// res (TT, 8) receives the dot products (no bias).
using Q8Tile = void (*)(const uint8_t* group, int blocks, const int16_t* xq, int ldq, const float* xs, int lds,
                        float* res);

// Runs tiles[tt - 1] (tt = 1..max_tt) over every group and token of out (T, rows) = x . W^T + bias.
void run_q8_tiles(float* out, const float* x, int T, const Q8View& w, const float* bias, const Q8Tile* tiles,
                  int max_tt);

// The plain C++ kernel (linear_q8 itself where there is no SIMD), kept callable so tests check it in every build.
void linear_q8_portable(float* out, const float* x, int T, const Q8View& w, const float* bias);

}  // namespace arcscope::detail

#include <algorithm>
#include <cmath>

inline float arcscope::detail::quantize_block(const float* x, int n, int16_t* q) {
    float amax = 0.0f;
    bool nan = false;
    for (int k = 0; k < n; ++k) {
        // std::max, not fmax: fmax is a libm call natively (a fifth of a native forward pass was spent in it). Both
        // give the same amax unless x holds NaN, which is looked for separately.
        amax = std::max(amax, std::fabs(x[k]));
        nan |= x[k] != x[k];
    }
    const float scale = amax / 127.0f;
    if (!(amax > 0.0f) || nan || amax == INFINITY) {  // all zero: q 0, scale 0. Not finite: q 0, scale NaN, so
        for (int k = 0; k < n; ++k) q[k] = 0;         // the product is NaN and the forward pass reports it
        return amax == 0.0f && !nan ? 0.0f : NAN;
    }
    // nearbyint (ties to even) is one instruction in wasm and x86; lround is a library call in wasm.
    const float inv = 127.0f / amax;
    for (int k = 0; k < n; ++k)
        q[k] = static_cast<int16_t>(std::min(127.0f, std::max(-127.0f, std::nearbyint(x[k] * inv))));
    return scale;
}
