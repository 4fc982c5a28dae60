// quant_wasm.h (internal): how a wasm module picks its q8 and q16 tiles. Every module links quant_wasm.cpp, whose weak
// wasm_kernel() gives the SIMD128 tiles; the relaxed-SIMD modules also link quant_wasm_relaxed.cpp (compiled apart,
// by a clang that has the relaxed dot product), whose strong definition replaces it with its own q8 tiles.
#pragma once
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include "arcscope/kernels/quant_layout.h"

namespace arcscope::detail {

// Block b's int32 sums of TT tokens (rows 0-3 and 4-7 of a row group) added into the tile's f32 sums: each sum becomes
// f32 and is multiplied by (the record's row scales x the token's scale). Every wasm q8/q16 kernel ends its blocks
// here, so their roundings, and so their bits, are the same.
template <int TT>
inline void add_scaled_block(v128_t (&f_lo)[TT], v128_t (&f_hi)[TT], const v128_t (&acc_lo)[TT],
                             const v128_t (&acc_hi)[TT], const uint8_t* rec, const float* xs, int lds, int b) {
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

// res (TT, 8) = the tile's f32 sums.
template <int TT>
inline void store_tile(float* res, const v128_t (&f_lo)[TT], const v128_t (&f_hi)[TT]) {
    for (int t = 0; t < TT; ++t) {
        wasm_v128_store(res + t * kQRowGroup, f_lo[t]);
        wasm_v128_store(res + t * kQRowGroup + 4, f_hi[t]);
    }
}

struct WasmKernel {
    QTiles tiles;
    const char* isa;  // what kernel_isa() reports
};

// The SIMD128 tiles of both formats (the relaxed kernel keeps the q16 ones).
QTiles simd128_tiles();

// The tiles linear_q runs in this module.
WasmKernel wasm_kernel();

}  // namespace arcscope::detail
#endif
