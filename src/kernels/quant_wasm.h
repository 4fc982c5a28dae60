// quant_wasm.h (internal): how a wasm module picks its q8 and q16 tiles. Every module links quant_wasm.cpp, whose weak
// wasm_kernel() gives the SIMD128 tiles; the relaxed-SIMD modules also link quant_wasm_relaxed.cpp (compiled apart,
// by a clang that has the relaxed dot product), whose strong definition replaces it with its own q8 tiles.
#pragma once
#ifdef __wasm_simd128__
#include "arcscope/kernels/quant_layout.h"

namespace arcscope::detail {

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
