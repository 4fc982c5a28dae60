// quant_check.h: runs every kernel of this build against its scalar reference on random shapes (odd ones, T = 1
// and T > 1). Shared by the C++ tests and the wasm module, so the SIMD128 code is checked where it runs.
#pragma once
#include <cstdint>

namespace arcscope {

// One packed format's kernels against the reference.
struct FormatCheck {
    double max_diff = 0;           // largest |linear_q - linear_q_reference|
    double portable_max_diff = 0;  // the same for the plain C++ kernel
    int bit_mismatches = 0;        // outputs whose bits differ between linear_q and the plain C++ kernel (same
                                   // integers, same order of float operations: must be 0 in every build)
    uint32_t bits = 2166136261u;   // FNV-1a of linear_q's output bits over all shapes: equal across the wasm builds
                                   // (SIMD128, relaxed SIMD), whose random inputs are the same
};

struct KernelCheck {
    int cases = 0;                  // shapes tried
    FormatCheck q8, q16, q16_full;  // q16_full: 16-bit q16 (DType::Q16Full)
    double f32_max_diff = 0;        // largest |linear_f32 - linear_f32_reference|
    int activation_mismatches = 0;  // int16 values or scales where the kernels' activation quantizer and the
                                    // reference's differ, at every format's limit (must be 0: the int32 sums are
                                    // meant to be identical)
};

KernelCheck check_kernels(uint64_t seed);

}  // namespace arcscope
