// portable_math.h: exp and tanh for the forward pass, computed with the same float operations in every build, so
// the native and wasm engines give bit-identical activations (libm's expf/tanhf differ in the last bit between
// glibc and Emscripten's libc, and one flipped bit can flip an int8 activation rounding downstream).
// Accuracy: within 2 ulp of the true value over the ranges the model uses. Needs -ffp-contract=off natively
// (set in CMakeLists.txt): a fused multiply-add would round differently from wasm, which has none.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace arcscope {

// e^x for x in [-87, 88]; 0 below (softmax underflow), e^88 above, NaN for NaN.
inline float portable_exp(float x) {
    if (x != x) return x;  // NaN: converting it to an int below would be undefined behaviour
    if (x < -87.0f) return 0.0f;
    if (x > 88.0f) x = 88.0f;
    // x = n ln2 + r with |r| <= ln2 / 2 (ln2 split in two so n ln2 is exact), then e^r by a minimax polynomial.
    const float n = std::nearbyint(x * 1.44269504088896341f);
    float r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    // times 2^n, n in [-126, 127]
    const uint32_t bits = uint32_t(int32_t(n) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, 4);
    return p * scale;
}

// tanh(x) = (e^2x - 1) / (e^2x + 1); exactly +-1 beyond |x| = 9, where float cannot tell the difference.
inline float portable_tanh(float x) {
    if (x > 9.0f) return 1.0f;
    if (x < -9.0f) return -1.0f;
    const float e = portable_exp(2.0f * x);
    return (e - 1.0f) / (e + 1.0f);
}

}  // namespace arcscope
