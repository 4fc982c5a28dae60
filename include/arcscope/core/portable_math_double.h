// portable_math_double.h: exp, log, pow, sin and cos in double precision from IEEE additions, multiplications and
// divisions only, for tables the engine computes once (RoPE's frequencies and angles). libm's double functions differ
// in their last bit between glibc (which also picks FMA variants at run time) and Emscripten's libc; rounded to float
// that rarely shows, but rarely is not never. These give the same bits in every build (with -ffp-contract=off) and
// are close to exact (tests/cpp/test_portable_math.cpp: exp and log within 2 double ulps, pow within 16, sin and cos
// within 2^-52), so their float roundings are the correctly rounded floats but for ties closer than that.
#pragma once
#include <cstdint>
#include <cstring>

namespace arcscope {

namespace math_double_detail {

// Round to the nearest integer, ties to even, for |x| < 2^51: adding and removing 1.5 x 2^52.
inline double round_to_int(double x) {
    return (x + 6755399441055744.0) - 6755399441055744.0;
}

// 2^k for k in [-1022, 1023].
inline double two_to(int k) {
    const uint64_t bits = uint64_t(k + 1023) << 52;
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
}

// ln 2 as hi + lo, hi with 32 significant bits, so k * hi is exact for |k| < 2^21.
constexpr double kLn2Hi = 0x1.62e42fee00000p-1;
constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;

}  // namespace math_double_detail

// e^x for |x| <= 700.
inline double portable_exp_double(double x) {
    using namespace math_double_detail;
    const double k = round_to_int(x * 0x1.71547652b82fep+0);  // x / ln 2
    const double r = (x - k * kLn2Hi) - k * kLn2Lo;           // |r| <= ln2 / 2
    // Taylor to r^15 (the next term is below 1e-19 of the sum), Horner from the top.
    constexpr double c[] = {1.0,
                            1.0,
                            1.0 / 2.0,
                            1.0 / 6.0,
                            1.0 / 24.0,
                            1.0 / 120.0,
                            1.0 / 720.0,
                            1.0 / 5040.0,
                            1.0 / 40320.0,
                            1.0 / 362880.0,
                            1.0 / 3628800.0,
                            1.0 / 39916800.0,
                            1.0 / 479001600.0,
                            1.0 / 6227020800.0,
                            1.0 / 87178291200.0,
                            1.0 / 1307674368000.0};
    double p = c[15];
    for (int i = 14; i >= 0; --i) p = p * r + c[i];
    return p * two_to(int(k));
}

// ln x for positive normal x.
inline double portable_log_double(double x) {
    using namespace math_double_detail;
    uint64_t bits;
    std::memcpy(&bits, &x, 8);
    int e = int(bits >> 52) - 1023;
    bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;  // m in [1, 2)
    double m;
    std::memcpy(&m, &bits, 8);
    if (m > 1.4142135623730951) {  // m in [sqrt(1/2), sqrt(2)): |s| below 0.172
        m *= 0.5;
        ++e;
    }
    // ln m = 2 atanh(s), s = (m - 1) / (m + 1): 2 (s + s^3/3 + ... + s^23/23), the next term below 1e-18 of it.
    const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    double p = 1.0 / 23.0;
    for (int n = 21; n >= 1; n -= 2) p = p * s2 + 1.0 / n;
    return e * kLn2Hi + (e * kLn2Lo + 2.0 * s * p);
}

// base^y = e^(y ln base) for positive normal base and |y ln base| <= 700.
inline double portable_pow_double(double base, double y) {
    return portable_exp_double(y * portable_log_double(base));
}

// sin x and cos x for |x| <= 1e6 (RoPE's angles: a position times a frequency of at most 1).
inline void portable_sincos_double(double x, double* sin_out, double* cos_out) {
    using namespace math_double_detail;
    // x = k pi/2 + r, |r| <= pi/4, with pi/2 in three parts of which the first two have 33 bits: k * part is exact
    // for |k| < 2^20.
    const double k = round_to_int(x * 0x1.45f306dc9c883p-1);  // x * 2/pi
    const double r = ((x - k * 0x1.921fb54400000p+0) - k * 0x1.0b4611a600000p-34) - k * 0x1.3198a2e037073p-69;
    const double r2 = r * r;
    // Taylor series to r^19 and r^20 (the next terms are below 1e-21).
    constexpr double sc[] = {1.0,
                             -1.0 / 6.0,
                             1.0 / 120.0,
                             -1.0 / 5040.0,
                             1.0 / 362880.0,
                             -1.0 / 39916800.0,
                             1.0 / 6227020800.0,
                             -1.0 / 1307674368000.0,
                             1.0 / 355687428096000.0,
                             -1.0 / 121645100408832000.0};
    constexpr double cc[] = {1.0,
                             -1.0 / 2.0,
                             1.0 / 24.0,
                             -1.0 / 720.0,
                             1.0 / 40320.0,
                             -1.0 / 3628800.0,
                             1.0 / 479001600.0,
                             -1.0 / 87178291200.0,
                             1.0 / 20922789888000.0,
                             -1.0 / 6402373705728000.0,
                             1.0 / 2432902008176640000.0};
    double ps = sc[9], pc = cc[10];
    for (int i = 8; i >= 0; --i) ps = ps * r2 + sc[i];
    for (int i = 9; i >= 0; --i) pc = pc * r2 + cc[i];
    const double s = r * ps, c = pc;
    switch (int64_t(k) & 3) {  // the quadrant: two's complement keeps & 3 right for negative k
        case 0:
            *sin_out = s, *cos_out = c;
            break;
        case 1:
            *sin_out = c, *cos_out = -s;
            break;
        case 2:
            *sin_out = -s, *cos_out = -c;
            break;
        default:
            *sin_out = -c, *cos_out = s;
            break;
    }
}

}  // namespace arcscope
