// quant_q8_wasm.cpp: the q8 kernel in WebAssembly SIMD128 (base instruction set, no relaxed SIMD).
// Per column pair: 16 bytes = 8 rows x 2 int8 -> two i16x8 (rows 0-3, 4-7, widened by v128.load8x8_s); each token's
// activation pair is broadcast (v128.load32_splat) and i32x4.dot_i16x8_s yields one row per lane. Per block of 32: the
// int32 sums become f32 and are scaled by (row scales x token scale).
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include "kernels/quant_layout.h"

namespace arcscope {

namespace {

template <int TT>
constexpr int kUnroll = TT == 1 ? 4 : 1;

// res (TT, 8) = the 8 rows of this group . TT tokens (measured in Node: 4 tokens beat 3 and 5).
template <int TT>
void tile(const uint8_t* group, int blocks, const int16_t* xq, int ldq, const float* xs, int lds, float* res) {
    v128_t f_lo[TT], f_hi[TT];
    for (int t = 0; t < TT; ++t) f_lo[t] = f_hi[t] = wasm_f32x4_splat(0.0f);
    for (int b = 0; b < blocks; ++b) {
        const uint8_t* rec = group + size_t(b) * kQ8RecordBytes;
        const uint8_t* q = rec + 4 * kQ8RowGroup;
        const int16_t* xb = xq + b * kQ8Block;
        v128_t acc_lo[TT], acc_hi[TT];
        for (int t = 0; t < TT; ++t) acc_lo[t] = acc_hi[t] = wasm_i32x4_splat(0);
            // GEMV (TT = 1) streams best unrolled; wider tiles keep their accumulators in registers only if the
            // loop stays rolled (unrolled, LLVM hoists every load and V8 spills).
#pragma clang loop unroll_count(kUnroll <TT>)
        for (int p = 0; p < kQ8Block / 2; ++p) {
            // v128.load8x8_s widens as it loads (one pmovsxbw from memory on x86).
            const v128_t w_lo = wasm_i16x8_load8x8(q + 16 * p);
            const v128_t w_hi = wasm_i16x8_load8x8(q + 16 * p + 8);
            for (int t = 0; t < TT; ++t) {
                const v128_t xp = wasm_v128_load32_splat(xb + size_t(t) * ldq + 2 * p);
                acc_lo[t] = wasm_i32x4_add(acc_lo[t], wasm_i32x4_dot_i16x8(w_lo, xp));
                acc_hi[t] = wasm_i32x4_add(acc_hi[t], wasm_i32x4_dot_i16x8(w_hi, xp));
            }
        }
        const v128_t ws_lo = wasm_v128_load(rec);
        const v128_t ws_hi = wasm_v128_load(rec + 16);
        for (int t = 0; t < TT; ++t) {
            const v128_t s = wasm_f32x4_splat(xs[size_t(t) * lds + b]);
            f_lo[t] =
                wasm_f32x4_add(f_lo[t], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc_lo[t]), wasm_f32x4_mul(ws_lo, s)));
            f_hi[t] =
                wasm_f32x4_add(f_hi[t], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc_hi[t]), wasm_f32x4_mul(ws_hi, s)));
        }
    }
    for (int t = 0; t < TT; ++t) {
        wasm_v128_store(res + t * kQ8RowGroup, f_lo[t]);
        wasm_v128_store(res + t * kQ8RowGroup + 4, f_hi[t]);
    }
}

constexpr detail::Q8Tile kTiles[] = {tile<1>, tile<2>, tile<3>, tile<4>};

}  // namespace

void linear_q8(float* out, const float* x, int T, const Q8View& w, const float* bias) {
    detail::run_q8_tiles(out, x, T, w, bias, kTiles, sizeof(kTiles) / sizeof(kTiles[0]));
}

const char* kernel_isa() {
    return "wasm-simd128";
}

}  // namespace arcscope
#endif
