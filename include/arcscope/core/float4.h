// float4.h: the 4-lane float vector the engine's float loops are written in (GCC/Clang vector extensions: SSE
// natively, SIMD128 in wasm; Eigen has no wasm SIMD backend), and its loads, stores and masks. One type for every
// build, so native and wasm sum in the same order and give the same bits (with -ffp-contract=off: no FMA).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace arcscope {

using F4 = float __attribute__((vector_size(16)));
using I4 = int32_t __attribute__((vector_size(16)));
using U4 = uint32_t __attribute__((vector_size(16)));

// Unaligned, through memcpy: no alignment or aliasing assumptions, one vector load in both builds.
inline F4 load4(const float* p) {
    F4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store4(float* p, F4 v) {
    std::memcpy(p, &v, sizeof v);
}
inline F4 splat4(float x) {
    return F4{x, x, x, x};
}

// Lanes of a where mask is all ones, of b where it is zero.
inline F4 select4(I4 mask, F4 a, F4 b) {
    I4 ai, bi;
    std::memcpy(&ai, &a, 16);
    std::memcpy(&bi, &b, 16);
    const I4 r = (mask & ai) | (~mask & bi);
    F4 out;
    std::memcpy(&out, &r, 16);
    return out;
}

// f applied in place to n values, four at a time; the last one to three go through a zero-padded vector.
template <class F>
inline void map4(float* x, size_t n, F f) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) store4(x + i, f(load4(x + i)));
    if (i < n) {
        F4 v{};
        std::memcpy(&v, x + i, (n - i) * sizeof(float));
        v = f(v);
        std::memcpy(x + i, &v, (n - i) * sizeof(float));
    }
}

}  // namespace arcscope
