// portable_math.h: exp, tanh and erfc for the forward pass, computed with the same float operations in every build, so
// the native and wasm engines give bit-identical activations (libm's expf/tanhf differ in the last bit between
// glibc and Emscripten's libc, and one flipped bit can flip an int8 activation rounding downstream).
// Four lanes at a time (SSE natively, SIMD128 in wasm), each lane exactly what the one-value formula gives: the
// special cases are selected by masks, not branches. Accuracy (tests/cpp/test_portable_math.cpp): exp within 2 ulp;
// tanh within 2^-22 absolute, 2.5 ulp where |x| >= 0.5 (near 0, e^2x - 1 cancels; GELU adds tanh to 1 anyway); erfc
// within 2e-6 relative where it is above 1e-8 (exact GELU's x Phi(x) within 2.5e-7 |x|). Needs
// -ffp-contract=off natively (set in CMakeLists.txt): a fused multiply-add would round differently from wasm, which has
// none.
#pragma once
#include <cstring>

#include "arcscope/core/float4.h"

namespace arcscope {

namespace math_detail {

// e^x for x in [-87, 88].
inline F4 exp_in_range(F4 x) {
    // x = n ln2 + r with |r| <= ln2 / 2 (ln2 split in two so n ln2 is exact), then e^r by a minimax polynomial.
    // Adding and removing 1.5 x 2^23 rounds to the nearest integer, ties to even, as nearbyint does for |v| < 2^22.
    const F4 n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    F4 r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    F4 p = splat4(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    // times 2^n, n in [-126, 127]
    const I4 bits = (__builtin_convertvector(n, I4) + 127) << 23;
    F4 scale;
    std::memcpy(&scale, &bits, 16);
    return p * scale;
}

}  // namespace math_detail

// e^x: 0 below -87 (softmax underflow), e^88 above 88, NaN for NaN.
inline F4 portable_exp(F4 x) {
    using namespace math_detail;
    const I4 nan = x != x, low = x < -87.0f;
    F4 y = select4(x > 88.0f, splat4(88.0f), x);
    y = select4(nan | low, splat4(0.0f), y);  // those lanes are replaced below; keep their arithmetic in range
    const F4 e = select4(low, splat4(0.0f), exp_in_range(y));
    return select4(nan, x, e);
}

// tanh(x) = (e^2x - 1) / (e^2x + 1); exactly +-1 beyond |x| = 9, where float cannot tell the difference.
inline F4 portable_tanh(F4 x) {
    using namespace math_detail;
    const I4 nan = x != x, high = x > 9.0f, low = x < -9.0f;
    const F4 u = select4(nan | high | low, splat4(0.0f), x);
    const F4 e = exp_in_range(2.0f * u);
    F4 t = (e - 1.0f) / (e + 1.0f);
    t = select4(high, splat4(1.0f), t);
    t = select4(low, splat4(-1.0f), t);
    return select4(nan, x, t);
}

// erfc(x) = 1 - erf(x), from |x|: t = 1 / (1 + |x|/2), erfc(|x|) = t e^(-x^2 + P(t)), P of degree 9 fitted by
// Chebyshev (Numerical Recipes' erfcc, relative error 1.2e-7 in exact arithmetic; float's roundings in x^2 and P
// bring it to 2e-6 relative where erfc(|x|) > 1e-8), then 2 - erfc(|x|) for negative x. NaN for NaN.
inline F4 portable_erfc(F4 x) {
    using namespace math_detail;
    const I4 nan = x != x, negative = x < 0.0f;
    const F4 z = select4(nan, splat4(0.0f), select4(negative, -x, x));
    const F4 t = 1.0f / (1.0f + 0.5f * z);
    F4 p = splat4(0.17087277f);
    p = p * t + -0.82215223f;
    p = p * t + 1.48851587f;
    p = p * t + -1.13520398f;
    p = p * t + 0.27886807f;
    p = p * t + -0.18628806f;
    p = p * t + 0.09678418f;
    p = p * t + 0.37409196f;
    p = p * t + 1.00002368f;
    p = p * t + -1.26551223f;
    const F4 e = t * portable_exp(p - z * z);  // portable_exp gives 0 below -87: erfc(9.3) is below float's range
    return select4(nan, x, select4(negative, 2.0f - e, e));
}

}  // namespace arcscope
