// quant_check.cpp: kernels against their references on random shapes (see quant_check.h).
#include "arcscope/diagnostics/quant_check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "arcscope/kernels/quant.h"
#include "arcscope/kernels/quant_layout.h"

namespace arcscope {

namespace {

struct Shape {
    int rows, cols, T;
};

// Outputs whose bits differ, and the FNV-1a hash h of a's bits folded on.
int bit_mismatches(const std::vector<float>& a, const std::vector<float>& b, uint32_t& h) {
    int n = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        uint32_t x, y;
        std::memcpy(&x, &a[i], 4);
        std::memcpy(&y, &b[i], 4);
        n += x != y;
        for (int k = 0; k < 4; ++k) h = (h ^ ((x >> (8 * k)) & 0xff)) * 16777619u;
    }
    return n;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double m = 0;
    for (size_t i = 0; i < a.size(); ++i) m = std::max(m, double(std::fabs(a[i] - b[i])));
    return m;
}

}  // namespace

KernelCheck check_kernels(uint64_t seed) {
    // Odd rows/cols exercise the padding; T spans the GEMV path, every tile width and the token chunking.
    const Shape shapes[] = {{1, 1, 1},     {8, 32, 1},    {13, 45, 3},   {37, 100, 7}, {9, 33, 5},   {64, 96, 33},
                            {200, 768, 1}, {72, 768, 64}, {40, 3072, 2}, {31, 63, 70}, {17, 1000, 5}};
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    KernelCheck check;
    for (const Shape& s : shapes) {
        std::vector<float> w(size_t(s.rows) * s.cols), x(size_t(s.T) * s.cols), bias(s.rows);
        const float wscale = 1.0f / std::sqrt(float(s.cols));
        for (float& v : w) v = normal(rng) * wscale;
        for (float& v : x) v = normal(rng);
        for (float& v : bias) v = normal(rng);
        const float* b = (check.cases % 2) ? bias.data() : nullptr;  // alternate with and without bias

        std::vector<float> fast(size_t(s.T) * s.rows), ref(fast.size());
        for (DType type : {DType::Q8, DType::Q16, DType::Q16Full}) {
            std::vector<uint8_t> packed(q_packed_bytes(type, s.rows, s.cols));
            q_pack(type, w.data(), s.rows, s.cols, packed.data());
            const QView view = q_view(type, packed.data(), packed.size(), s.rows, s.cols);
            linear_q(fast.data(), x.data(), s.T, view, b);
            linear_q_reference(ref.data(), x.data(), s.T, view, b);
            const double simd = max_abs_diff(fast, ref);
            std::vector<float> portable_out(fast.size());
            detail::linear_q_portable(portable_out.data(), x.data(), s.T, view, b);
            const double portable = max_abs_diff(portable_out, ref);
            FormatCheck& fc = type == DType::Q8 ? check.q8 : type == DType::Q16 ? check.q16 : check.q16_full;
            fc.bit_mismatches += bit_mismatches(fast, portable_out, fc.bits);
            fc.max_diff = std::max(fc.max_diff, simd);
            fc.portable_max_diff = std::max(fc.portable_max_diff, portable);

            const QFormat& f = view.format();
            const int limit = f.activation_max;
            const detail::QuantizedActs acts = detail::quantize_activations(x.data(), s.T, s.cols, f);
            int16_t q[kQBlock];
            for (int t = 0; t < s.T; ++t)
                for (int blk = 0; blk < acts.blocks; ++blk) {
                    const int n = std::min(kQBlock, s.cols - blk * kQBlock);
                    const float scale = detail::kernel_scale(
                        f, detail::quantize_block(x.data() + size_t(t) * s.cols + blk * kQBlock, n, q, limit));
                    check.activation_mismatches += scale != acts.scale[size_t(t) * acts.blocks + blk];
                    for (int k = 0; k < n; ++k)
                        check.activation_mismatches += q[k] != acts.q[size_t(t) * acts.ld + blk * kQBlock + k];
                }
        }

        linear_f32(fast.data(), x.data(), s.T, w.data(), s.rows, s.cols, b);
        linear_f32_reference(ref.data(), x.data(), s.T, w.data(), s.rows, s.cols, b);
        check.f32_max_diff = std::max(check.f32_max_diff, max_abs_diff(fast, ref));
        ++check.cases;
    }
    return check;
}

}  // namespace arcscope
