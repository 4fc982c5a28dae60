// quant_native.h (internal): which q8 kernel a native build's linear_q runs, chosen at run time (q8_kernels() and
// use_q8_kernel() in quant.h). The compiled kernel (quant_avx2.cpp, or quant_portable.cpp) is "int16"; "vnni-int8"
// (quant_vnni.cpp) is there on x86-64 CPUs with AVX512-VNNI and AVX512VL.
#pragma once
#ifndef __wasm__
#include "arcscope/kernels/quant_layout.h"

namespace arcscope::detail {

// Whether this CPU runs quant_vnni.cpp's tiles (false off x86-64).
bool cpu_has_vnni_int8();

// Puts quant_vnni.cpp's q8 tiles and their activation layout (split_7bit) into `tiles` (only where the CPU has them).
void use_vnni_int8_tiles(QTiles& tiles);

// The compiled kernel's tiles, with q8's replaced by the chosen kernel's: what linear_q runs.
QTiles chosen_tiles(QTiles compiled);

// kernel_isa(): the compiled kernel's name, or the chosen q8 kernel's where that is not the compiled one.
const char* chosen_isa(const char* compiled);

}  // namespace arcscope::detail
#endif
