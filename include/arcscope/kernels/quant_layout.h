// quant_layout.h (internal): where each scale and integer weight lives in a packed record (see quant.h), and the
// run-time quantization of activations that every q8 and q16 kernel shares.
#pragma once
#include <cstdint>
#include <cstring>

#include "arcscope/kernels/quant.h"

namespace arcscope::detail {

// Index of weight (r, k) among its record's weights: r in [0, 8) row of the group, k in [0, 32) column of the block.
inline size_t q_index(int r, int k) {
    return (size_t(k / 2) * kQRowGroup + r) * 2 + (k % 2);
}
// Byte offset of that weight inside a record of this format (the 8 scales come first).
inline size_t q_offset(const QFormat& f, int r, int k) {
    return 4 * kQRowGroup + q_index(r, k) * f.weight_bytes;
}

// The record holding (row, col).
inline const uint8_t* record(const QView& w, int row, int col) {
    return w.data + (size_t(row / kQRowGroup) * w.blocks() + col / kQBlock) * w.format().record_bytes;
}

inline float record_scale(const uint8_t* rec, int r) {
    float s;
    std::memcpy(&s, rec + 4 * r, 4);
    return s;
}

inline int record_q(const QFormat& f, const uint8_t* rec, int r, int k) {
    const uint8_t* p = rec + q_offset(f, r, k);
    if (f.weight_bytes == 1) return static_cast<int8_t>(p[0]);
    return static_cast<int16_t>(uint16_t(p[0] | (p[1] << 8)));
}

// One activation block quantized to [-A, A] (A = limit): scale = max|x| / A, q = round(x * A / max|x|), ties to even
// (weights round ties away from zero at pack time; the difference only matters at exact halves).
inline float quantize_block(const float* x, int n, int16_t* q, int limit);

// The scale a kernel multiplies a block's int32 sum by, from its activations' quantizer scale: times 2^f.pair_shift,
// what 16-bit q16's shifted pair sums leave out (exact: a power of two; 1 for the other formats).
inline float kernel_scale(const QFormat& f, float quantizer_scale) {
    return float(1 << f.pair_shift) * quantizer_scale;
}

// A kernel's own layout of one token's quantized activations, rewritten in place (blocks * 32 int16).
using ActivationLayout = void (*)(int16_t* q, int blocks);

// x (T, cols) quantized per token and block into thread-local scratch that only grows:
//   q (T, ld) int16 in [-f.activation_max, f.activation_max], zero-padded to ld = blocks * 32; scale (T, blocks),
//   each kernel_scale's.
// With a layout, each token's row of q is then handed to it (e.g. split_7bit below).
struct QuantizedActs {
    const int16_t* q;
    const float* scale;
    int ld;
    int blocks;
};
QuantizedActs quantize_activations(const float* x, int T, int cols, const QFormat& f,
                                   ActivationLayout layout = nullptr);

// The relaxed-SIMD q8 layout: each block of 32 activations a in [-8191, 8191] becomes 64 bytes, hi[32] then lo[32],
// with a + 8192 = 128 hi + lo and hi, lo in [0, 127], the range where i32x4.relaxed_dot_i8x16_i7x16_add_s is the
// same on every engine. Then sum(w a) = 128 (sum(w hi) - 64 sum(w)) + sum(w lo), exactly, in int32.
constexpr int kSplitOffset = 8192;
void split_7bit(int16_t* q, int blocks);

// A kernel tile: one group of 8 rows x TT tokens over `blocks` consecutive blocks. group = the first record;
// xq (TT, ldq) / xs (TT, lds) = the first token's quantized activations and scales at the first block;
// res (TT, 8) receives the dot products (no bias).
using QTile = void (*)(const uint8_t* group, int blocks, const int16_t* xq, int ldq, const float* xs, int lds,
                       float* res);

// Runs tiles[tt - 1] (tt = 1..max_tt) over every group and token of out (T, rows) = x . W^T + bias, the tiles reading
// the activations in `layout` (null: plain int16).
void run_q_tiles(float* out, const float* x, int T, const QView& w, const float* bias, const QTile* tiles, int max_tt,
                 ActivationLayout layout = nullptr);

// One ISA's tiles for every format (what run_q_tiles is handed by linear_q), and the q8 tiles' activation layout.
struct QTiles {
    const QTile* q8;
    int q8_count;
    const QTile* q16;
    int q16_count;
    const QTile* q16_full;  // 16-bit q16: q16's tiles with each pair's sum shifted (quant.h)
    int q16_full_count;
    ActivationLayout q8_layout = nullptr;
};
inline void run_q_tiles(float* out, const float* x, int T, const QView& w, const float* bias, const QTiles& tiles) {
    if (w.type == DType::Q16Full) run_q_tiles(out, x, T, w, bias, tiles.q16_full, tiles.q16_full_count);
    else if (w.type == DType::Q16) run_q_tiles(out, x, T, w, bias, tiles.q16, tiles.q16_count);
    else run_q_tiles(out, x, T, w, bias, tiles.q8, tiles.q8_count, tiles.q8_layout);
}

// The plain C++ kernel (linear_q itself where there is no SIMD), kept callable so tests check it in every build.
void linear_q_portable(float* out, const float* x, int T, const QView& w, const float* bias);

}  // namespace arcscope::detail

#include <algorithm>
#include <cmath>

inline float arcscope::detail::quantize_block(const float* x, int n, int16_t* q, int limit) {
    float amax = 0.0f;
    bool nan = false;
    for (int k = 0; k < n; ++k) {
        // std::max, not fmax: fmax is a libm call natively (a fifth of a native forward pass was spent in it). Both
        // give the same amax unless x holds NaN, which is looked for separately.
        amax = std::max(amax, std::fabs(x[k]));
        nan |= x[k] != x[k];
    }
    const float a = float(limit);
    const float scale = amax / a;
    if (!(amax > 0.0f) || nan || amax == INFINITY) {  // all zero: q 0, scale 0. Not finite: q 0, scale NaN, so
        for (int k = 0; k < n; ++k) q[k] = 0;         // the product is NaN and the forward pass reports it
        return amax == 0.0f && !nan ? 0.0f : NAN;
    }
    // nearbyint (ties to even) is one instruction in wasm and x86; lround is a library call in wasm.
    const float inv = a / amax;
    for (int k = 0; k < n; ++k) q[k] = static_cast<int16_t>(std::min(a, std::max(-a, std::nearbyint(x[k] * inv))));
    return scale;
}
