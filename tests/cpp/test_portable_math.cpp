// The four-lane exp and tanh against the one-value formulas they replaced (bit for bit, over a sweep of every
// 4099th float pattern and the edges of each range), and against libm in double precision; erfc and the double
// functions of portable_math_double.h against libm.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <vector>

#include "arcscope/core/portable_math.h"
#include "arcscope/core/portable_math_double.h"

using namespace arcscope;

namespace {

// The one-value formulas, with branches and nearbyint, as the forward pass computed them before.
float exp_one(float x) {
    if (x != x) return x;
    if (x < -87.0f) return 0.0f;
    if (x > 88.0f) x = 88.0f;
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
    const uint32_t bits = uint32_t(int32_t(n) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, 4);
    return p * scale;
}

float tanh_one(float x) {
    if (x > 9.0f) return 1.0f;
    if (x < -9.0f) return -1.0f;
    const float e = exp_one(2.0f * x);
    return (e - 1.0f) / (e + 1.0f);
}

uint32_t bits_of(float x) {
    uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
}

float from_bits(uint32_t b) {
    float x;
    std::memcpy(&x, &b, 4);
    return x;
}

// Every 4099th bit pattern (all signs, exponents, NaN and inf included) and the floats either side of each edge.
std::vector<float> sweep() {
    std::vector<float> xs;
    for (uint64_t b = 0; b <= 0xffffffffu; b += 4099) xs.push_back(from_bits(uint32_t(b)));
    for (float edge : {0.0f, 9.0f, -9.0f, 87.0f, -87.0f, 88.0f, -88.0f, 0.5f, -0.5f, 1e-20f, INFINITY, -INFINITY}) {
        float lo = edge, hi = edge;
        for (int i = 0; i < 64; ++i) {
            xs.push_back(lo = std::nextafter(lo, -INFINITY));
            xs.push_back(hi = std::nextafter(hi, INFINITY));
        }
        xs.push_back(edge);
    }
    return xs;
}

// Same bits, or both NaN.
bool same(float got, float want) {
    return std::isnan(want) ? std::isnan(got) : bits_of(got) == bits_of(want);
}

template <class F>
std::vector<float> four_at_a_time(const std::vector<float>& xs, F f) {
    std::vector<float> out = xs;
    map4(out.data(), out.size(), f);
    return out;
}

}  // namespace

TEST(PortableMath, FourLanesGiveTheOneValueFormulasBitForBit) {
    const std::vector<float> xs = sweep();
    const std::vector<float> e = four_at_a_time(xs, [](F4 v) { return portable_exp(v); });
    const std::vector<float> t = four_at_a_time(xs, [](F4 v) { return portable_tanh(v); });
    size_t mismatches = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
        for (const auto& [got, want, what] :
             {std::tuple{e[i], exp_one(xs[i]), "exp"}, {t[i], tanh_one(xs[i]), "tanh"}}) {
            if (same(got, want)) continue;
            if (++mismatches <= 10) ADD_FAILURE() << what << "(" << xs[i] << ") = " << got << ", formula " << want;
        }
    }
    EXPECT_EQ(mismatches, 0u);
    std::printf("exp and tanh: %zu values, four lanes and the one-value formulas agree bit for bit\n", xs.size());
}

TEST(PortableMath, CloseToLibm) {
    // exp within 2 ulp; tanh within 2^-22 absolute, since GELU adds it to 1 (near 0 its relative error grows: e^2x - 1
    // cancels), and within 2.5 ulp where |x| >= 0.5.
    double exp_ulp = 0, tanh_abs = 0, tanh_ulp = 0;
    std::vector<float> xs;
    for (float x = -87.0f; x <= 88.0f; x += 0.01171875f) xs.push_back(x);
    for (float x = -1.0f; x <= 1.0f; x += 1.0f / 4096) xs.push_back(x);
    const std::vector<float> e = four_at_a_time(xs, [](F4 v) { return portable_exp(v); });
    const std::vector<float> t = four_at_a_time(xs, [](F4 v) { return portable_tanh(v); });
    const auto ulp = [](double v) {
        const float f = float(std::fabs(v));
        return double(std::nextafter(f, INFINITY)) - f;
    };
    for (size_t i = 0; i < xs.size(); ++i) {
        const double x = xs[i], want_e = std::exp(x), want_t = std::tanh(x);
        exp_ulp = std::max(exp_ulp, std::fabs(e[i] - want_e) / ulp(want_e));
        tanh_abs = std::max(tanh_abs, std::fabs(t[i] - want_t));
        if (std::fabs(x) >= 0.5) tanh_ulp = std::max(tanh_ulp, std::fabs(t[i] - want_t) / ulp(want_t));
    }
    std::printf(
        "largest error against libm (double), %zu values: exp %.2f ulp; tanh %.3g absolute, %.2f ulp where "
        "|x| >= 0.5\n",
        xs.size(), exp_ulp, tanh_abs, tanh_ulp);
    EXPECT_LE(exp_ulp, 2.0);
    EXPECT_LE(tanh_abs, std::ldexp(1.0, -22));
    EXPECT_LE(tanh_ulp, 2.5);
}

TEST(PortableMath, TailsGoThroughTheSameLanes) {
    // map4 over 1..9 values: the padded last vector gives each value what a full vector gives it.
    const float base[9] = {-3.5f, 0.25f, 9.5f, -87.5f, 1e-30f, -0.0f, 4.0f, -9.0f, 2.0f};
    for (size_t n = 1; n <= 9; ++n) {
        std::vector<float> xs(base, base + n);
        const std::vector<float> t = four_at_a_time(xs, [](F4 v) { return portable_tanh(v); });
        for (size_t i = 0; i < n; ++i) EXPECT_TRUE(same(t[i], tanh_one(xs[i]))) << "tanh(" << xs[i] << "), n = " << n;
    }
}

TEST(PortableMath, ErfcCloseToLibm) {
    // Relative error within 2e-6 where erfc is above 1e-8; beyond, exact GELU's x erfc(|x|/sqrt 2) / 2 is below
    // 1e-7 |x|, and what matters is that erfc goes to 0 (and 2 - erfc to 2) there.
    std::vector<float> xs;
    for (float x = -12.0f; x <= 12.0f; x += 1.0f / 1024) xs.push_back(x);
    const std::vector<float> e = four_at_a_time(xs, [](F4 v) { return portable_erfc(v); });
    double worst = 0, worst_abs = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
        const double want = std::erfc(double(xs[i]));
        worst_abs = std::max(worst_abs, std::fabs(e[i] - want));
        if (want > 1e-8) worst = std::max(worst, std::fabs(e[i] - want) / want);
    }
    std::printf("erfc, %zu values in [-12, 12]: largest relative error %.3g (where above 1e-8), absolute %.3g\n",
                xs.size(), worst, worst_abs);
    EXPECT_LE(worst, 2e-6);
    EXPECT_LE(worst_abs, 2.5e-7);
    const std::vector<float> edges =
        four_at_a_time({INFINITY, -INFINITY, NAN, 0.0f}, [](F4 v) { return portable_erfc(v); });
    EXPECT_EQ(edges[0], 0.0f);
    EXPECT_EQ(edges[1], 2.0f);
    EXPECT_TRUE(std::isnan(edges[2]));
    EXPECT_EQ(edges[3], 1.0f);
}

TEST(PortableMath, DoubleFunctionsCloseToLibm) {
    // Within a few double ulps of glibc's (itself within one of exact), over the ranges RoPE's tables use.
    const auto ulps = [](double got, double want) {
        return std::fabs(got - want) / std::fabs(std::nextafter(want, INFINITY) - want);
    };
    double exp_u = 0, log_u = 0, pow_u = 0, sin_abs = 0, cos_abs = 0;
    for (double x = -700; x <= 700; x += 0.0137) exp_u = std::max(exp_u, ulps(portable_exp_double(x), std::exp(x)));
    for (double x = 1e-300; x < 1e300; x *= 1.0123) log_u = std::max(log_u, ulps(portable_log_double(x), std::log(x)));
    for (double theta : {10000.0, 100000.0, 500000.0, 1000000.0, 1.5})
        for (double y = 0; y < 1; y += 1.0 / 512)
            pow_u = std::max(pow_u, ulps(portable_pow_double(theta, y), std::pow(theta, y)));
    // sin and cos: absolute, against values of at most 1 (an ulp of which is 2^-52 near 1)
    for (double x = -1e6; x <= 1e6; x += 0.9173) {
        double s, c;
        portable_sincos_double(x, &s, &c);
        sin_abs = std::max(sin_abs, std::fabs(s - std::sin(x)));
        cos_abs = std::max(cos_abs, std::fabs(c - std::cos(x)));
    }
    std::printf(
        "double functions against libm: exp %.2f ulp, log %.2f ulp, pow %.2f ulp; sin %.3g, cos %.3g absolute "
        "over [-1e6, 1e6]\n",
        exp_u, log_u, pow_u, sin_abs, cos_abs);
    EXPECT_LE(exp_u, 2.0);
    EXPECT_LE(log_u, 2.0);
    EXPECT_LE(pow_u, 16.0);  // y ln(theta) is rounded near 14: its ulp is 8 of the power's
    EXPECT_LE(sin_abs, 4e-16);
    EXPECT_LE(cos_abs, 4e-16);
}

TEST(PortableMath, SinCosRoundToLibmsFloats) {
    // RoPE rounds sin and cos of float angles to float: every such rounding here equals libm's.
    size_t mismatches = 0, n = 0;
    for (float x = 0.0f; x < 140000.0f; x = x * 1.0001f + 1e-3f, ++n) {
        double s, c;
        portable_sincos_double(x, &s, &c);
        if (float(s) != float(std::sin(double(x))) || float(c) != float(std::cos(double(x)))) {
            if (++mismatches <= 10) ADD_FAILURE() << "sincos(" << x << ")";
        }
    }
    std::printf("sin and cos of %zu float angles in [0, 1.4e5), rounded to float: %zu differ from libm's\n", n,
                mismatches);
    EXPECT_EQ(mismatches, 0u);
}
