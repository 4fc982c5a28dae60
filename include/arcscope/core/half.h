// half.h: IEEE binary16 ("f16") storage for float32 values: round to nearest even on the way in, exact on the way
// out. Plain integer and float operations, so every build gives the same bits (no F16C, no libm).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "arcscope/core/float4.h"

namespace arcscope {

inline uint16_t f16_from_float(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint16_t sign = uint16_t((x >> 16) & 0x8000);
    const uint32_t ax = x & 0x7fffffff;
    if (ax > 0x7f800000) return sign | 0x7e00;   // NaN stays NaN
    if (ax >= 0x477ff000) return sign | 0x7c00;  // 65520 and above (and inf) round to inf
    if (ax < 0x38800000) {                       // below 2^-14: a subnormal f16, m * 2^-24 with m rounded
        float a;
        std::memcpy(&a, &ax, 4);
        return sign | uint16_t(std::nearbyint(a * 16777216.0f));  // exact scaling; nearbyint rounds to even
    }
    const uint32_t m = ax - 0x38000000u;  // exponent rebiased from 127 to 15
    return sign | uint16_t((m + 0x0fffu + ((m >> 13) & 1u)) >> 13);
}

inline float f16_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    uint32_t bits;
    if (e == 0x1f) {
        bits = sign | 0x7f800000 | (m << 13);
    } else if (e == 0) {
        const float v = float(m) * 5.9604644775390625e-8f;  // m * 2^-24, exact
        return sign ? -v : v;
    } else {
        bits = sign | ((e + 112) << 23) | (m << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// n values f16 -> f32, four at a time where the compiler vectorizes (SSE natively, SIMD128 in wasm): the magnitude
// shifted into a float's mantissa and rescaled by 2^112 is exact for normals and subnormals alike; inf and NaN
// are put back by a mask. The same values as f16_to_float.
inline void f16_to_float_n(const uint16_t* in, float* out, int n) {
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        const U4 h = {in[i], in[i + 1], in[i + 2], in[i + 3]};
        const U4 sign = (h & 0x8000u) << 16, mag = (h & 0x7fffu) << 13;
        F4 f;
        std::memcpy(&f, &mag, 16);
        f *= 5.192296858534828e33f;  // 2^112
        U4 bits;
        std::memcpy(&bits, &f, 16);
        const U4 special = (h & 0x7c00u) == 0x7c00u;  // all ones where inf or NaN
        bits = (bits & ~special) | ((mag | 0x7f800000u) & special) | sign;
        std::memcpy(out + i, &bits, 16);
    }
    for (; i < n; ++i) out[i] = f16_to_float(in[i]);
}

}  // namespace arcscope
