// quant_wasm.cpp: the q8 and q16 kernels in WebAssembly SIMD128 (base instruction set, no relaxed SIMD).
// Per column pair, 8 rows x 2 weights as two i16x8 (rows 0-3, 4-7): q8 widens 16 bytes with v128.load8x8_s, q16
// loads 32 bytes as they are. Each token's activation pair is broadcast (v128.load32_splat) and i32x4.dot_i16x8_s
// yields one row per lane (16-bit q16 shifts each pair's sum right by 4 first: quant.h). Per block of 32: the int32
// sums become f32 and are scaled by (row scales x token scale).
#ifdef __wasm_simd128__
#include "quant_wasm.h"

#include <wasm_simd128.h>

namespace arcscope {

namespace {

template <int TT>
constexpr int kUnroll = TT == 1 ? 4 : 1;

// The two i16x8 halves (rows 0-3, rows 4-7) of column pair p.
template <int WeightBytes>
inline void load_pair(const uint8_t* q, int p, v128_t& lo, v128_t& hi) {
    if constexpr (WeightBytes == 1) {
        // v128.load8x8_s widens as it loads (one pmovsxbw from memory on x86).
        lo = wasm_i16x8_load8x8(q + 16 * p);
        hi = wasm_i16x8_load8x8(q + 16 * p + 8);
    } else {
        lo = wasm_v128_load(q + 32 * p);
        hi = wasm_v128_load(q + 32 * p + 16);
    }
}

// A column pair's dot product, shifted right by Shift (0: as it is).
template <int Shift>
inline v128_t pair_dot(v128_t w, v128_t x) {
    const v128_t d = wasm_i32x4_dot_i16x8(w, x);
    if constexpr (Shift == 0) return d;
    else return wasm_i32x4_shr(d, Shift);
}

// res (TT, 8) = the 8 rows of this group . TT tokens (measured in Node: 4 tokens beat 3 and 5).
template <int WeightBytes, int TT, int Shift = 0>
void tile(const uint8_t* group, int blocks, const int16_t* xq, int ldq, const float* xs, int lds, float* res) {
    constexpr size_t kRecordBytes = kQRowGroup * (4 + kQBlock * WeightBytes);
    v128_t f_lo[TT], f_hi[TT];
    for (int t = 0; t < TT; ++t) f_lo[t] = f_hi[t] = wasm_f32x4_splat(0.0f);
    for (int b = 0; b < blocks; ++b) {
        const uint8_t* rec = group + size_t(b) * kRecordBytes;
        const uint8_t* q = rec + 4 * kQRowGroup;
        const int16_t* xb = xq + b * kQBlock;
        v128_t acc_lo[TT], acc_hi[TT];
        for (int t = 0; t < TT; ++t) acc_lo[t] = acc_hi[t] = wasm_i32x4_splat(0);
            // GEMV (TT = 1) streams best unrolled; wider tiles keep their accumulators in registers only if the
            // loop stays rolled (unrolled, LLVM hoists every load and V8 spills).
#pragma clang loop unroll_count(kUnroll <TT>)
        for (int p = 0; p < kQBlock / 2; ++p) {
            v128_t w_lo, w_hi;
            load_pair<WeightBytes>(q, p, w_lo, w_hi);
            for (int t = 0; t < TT; ++t) {
                const v128_t xp = wasm_v128_load32_splat(xb + size_t(t) * ldq + 2 * p);
                acc_lo[t] = wasm_i32x4_add(acc_lo[t], pair_dot<Shift>(w_lo, xp));
                acc_hi[t] = wasm_i32x4_add(acc_hi[t], pair_dot<Shift>(w_hi, xp));
            }
        }
        detail::add_scaled_block<TT>(f_lo, f_hi, acc_lo, acc_hi, rec, xs, lds, b);
    }
    detail::store_tile<TT>(res, f_lo, f_hi);
}

constexpr detail::QTile kQ8Tiles[] = {tile<1, 1>, tile<1, 2>, tile<1, 3>, tile<1, 4>};
constexpr detail::QTile kQ16Tiles[] = {tile<2, 1>, tile<2, 2>, tile<2, 3>, tile<2, 4>};
constexpr int kShift = kQ16Full.pair_shift;
constexpr detail::QTile kQ16FullTiles[] = {tile<2, 1, kShift>, tile<2, 2, kShift>, tile<2, 3, kShift>,
                                           tile<2, 4, kShift>};
static_assert(kQ8.record_bytes == kQRowGroup * (4 + kQBlock) && kQ16.record_bytes == kQRowGroup * (4 + 2 * kQBlock));

}  // namespace

detail::QTiles detail::simd128_tiles() {
    return {kQ8Tiles, 4, kQ16Tiles, 4, kQ16FullTiles, 4};
}

// Weak: the relaxed-SIMD modules link a strong one (quant_wasm_relaxed.cpp).
__attribute__((weak)) detail::WasmKernel detail::wasm_kernel() {
    return {simd128_tiles(), "wasm-simd128"};
}

void linear_q(float* out, const float* x, int T, const QView& w, const float* bias) {
    detail::run_q_tiles(out, x, T, w, bias, detail::wasm_kernel().tiles);
}

const char* kernel_isa() {
    return detail::wasm_kernel().isa;
}

}  // namespace arcscope
#endif
