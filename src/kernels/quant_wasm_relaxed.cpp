// quant_wasm_relaxed.cpp: the q8 kernel on relaxed SIMD's i32x4.relaxed_dot_i8x16_i7x16_add_s (16 products and the
// add per instruction, one fused vpdpbusd / sdot where the CPU has it), exact: the same integers as the SIMD128 kernel.
// Only the relaxed-SIMD modules compile it (with -mrelaxed-simd, by clang 16: see CMakeLists.txt); q16 keeps SIMD128's.
//
// The relaxed dot is the same on every engine only while each byte of its second operand is in [0, 127], so the
// activations (14 bits) come split by split_7bit: a + 8192 = 128 hi + lo. Per block, for 8 rows x TT tokens:
//   pass 1: acc = sum(w hi) - 64 sum(w)   (64 sum(w) is one more relaxed dot, with 64 in every byte, shared by the TT)
//   acc <<= 7
//   pass 2: acc += sum(w lo)              -> sum(w a), exact in int32 (|acc| < 2^27)
// Weights: a column quad of 8 rows is 32 bytes of the record (two column pairs, see quant.h); two i16 interleaves
// make rows 0-3 and rows 4-7 of it, 4 consecutive columns per i32 lane, as the dot wants. The activation quad (4 bytes
// of hi or lo) is broadcast.
#if defined(__wasm_relaxed_simd__)
#include <wasm_simd128.h>

#include "quant_wasm.h"

namespace arcscope {

namespace {

// acc + per i32 lane the sum of 4 products of w's signed bytes with x's bytes (in [0, 127]).
inline v128_t dot_add(v128_t w, v128_t x, v128_t acc) {
    return v128_t(__builtin_wasm_relaxed_dot_i8x16_i7x16_add_s_i32x4(__i8x16(w), __i8x16(x), __i32x4(acc)));
}

// Column quad j (columns 4j..4j+3) of a record's 8 rows: rows 0-3 and rows 4-7, 4 columns per lane.
inline void load_quad(const uint8_t* q, int j, v128_t& rows03, v128_t& rows47) {
    const v128_t a = wasm_v128_load(q + 32 * j);       // column pair 2j:     (row, 2 columns) x 8 rows
    const v128_t b = wasm_v128_load(q + 32 * j + 16);  // column pair 2j + 1
    rows03 = wasm_i16x8_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
    rows47 = wasm_i16x8_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
}

// res (TT, 8) = the 8 rows of this group . TT tokens. xq holds each block as hi[32] then lo[32] bytes (split_7bit).
template <int TT>
void tile(const uint8_t* group, int blocks, const int16_t* xq, int ldq, const float* xs, int lds, float* res) {
    constexpr int kQuads = kQBlock / 4;
    const v128_t offset_hi = wasm_i8x16_splat(detail::kSplitOffset / 128);
    v128_t f_lo[TT], f_hi[TT];
    for (int t = 0; t < TT; ++t) f_lo[t] = f_hi[t] = wasm_f32x4_splat(0.0f);
    for (int b = 0; b < blocks; ++b) {
        const uint8_t* rec = group + size_t(b) * kQ8.record_bytes;
        const uint8_t* q = rec + 4 * kQRowGroup;
        const uint8_t* xb = reinterpret_cast<const uint8_t*>(xq + b * kQBlock);
        v128_t acc03[TT], acc47[TT];
        v128_t off03 = wasm_i32x4_splat(0), off47 = wasm_i32x4_splat(0);
        for (int t = 0; t < TT; ++t) acc03[t] = acc47[t] = wasm_i32x4_splat(0);
            // Rolled: unrolled, LLVM hoists the loads of every quad and V8 spills the accumulators (as quant_wasm.cpp).
#pragma clang loop unroll(disable)
        for (int j = 0; j < kQuads; ++j) {
            v128_t w03, w47;
            load_quad(q, j, w03, w47);
            off03 = dot_add(w03, offset_hi, off03);
            off47 = dot_add(w47, offset_hi, off47);
            for (int t = 0; t < TT; ++t) {
                const v128_t x = wasm_v128_load32_splat(xb + size_t(t) * 2 * ldq + 4 * j);
                acc03[t] = dot_add(w03, x, acc03[t]);
                acc47[t] = dot_add(w47, x, acc47[t]);
            }
        }
        for (int t = 0; t < TT; ++t) {
            acc03[t] = wasm_i32x4_shl(wasm_i32x4_sub(acc03[t], off03), 7);
            acc47[t] = wasm_i32x4_shl(wasm_i32x4_sub(acc47[t], off47), 7);
        }
#pragma clang loop unroll(disable)
        for (int j = 0; j < kQuads; ++j) {
            v128_t w03, w47;
            load_quad(q, j, w03, w47);
            for (int t = 0; t < TT; ++t) {
                const v128_t x = wasm_v128_load32_splat(xb + size_t(t) * 2 * ldq + kQBlock + 4 * j);
                acc03[t] = dot_add(w03, x, acc03[t]);
                acc47[t] = dot_add(w47, x, acc47[t]);
            }
        }
        detail::add_scaled_block<TT>(f_lo, f_hi, acc03, acc47, rec, xs, lds, b);  // as the SIMD128 kernel's
    }
    detail::store_tile<TT>(res, f_lo, f_hi);
}

constexpr detail::QTile kQ8Tiles[] = {tile<1>, tile<2>, tile<3>, tile<4>};

}  // namespace

detail::WasmKernel detail::wasm_kernel() {
    QTiles tiles = simd128_tiles();
    tiles.q8 = kQ8Tiles;
    tiles.q8_count = 4;
    tiles.q8_layout = split_7bit;
    return {tiles, "wasm-relaxed-simd"};
}

}  // namespace arcscope
#endif
