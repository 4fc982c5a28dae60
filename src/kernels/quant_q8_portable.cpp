// quant_q8_portable.cpp: the q8 kernel in plain C++, linear_q8 in builds with neither SIMD128 nor AVX2 (and
// always compiled, so the tests check it everywhere). Same layout and order of operations as the SIMD kernels;
// the compiler vectorizes the 8-row inner loop where it can.
#include "kernels/quant_layout.h"

namespace arcscope {

namespace {

template <int TT>
void tile(const uint8_t* group, int blocks, const int16_t* xq, int ldq, const float* xs, int lds, float* res) {
    float f[TT][kQ8RowGroup] = {};
    for (int b = 0; b < blocks; ++b) {
        const uint8_t* rec = group + size_t(b) * kQ8RecordBytes;
        const int8_t* q = reinterpret_cast<const int8_t*>(rec + 4 * kQ8RowGroup);
        for (int t = 0; t < TT; ++t) {
            const int16_t* xb = xq + size_t(t) * ldq + b * kQ8Block;
            int32_t acc[kQ8RowGroup] = {};
            for (int p = 0; p < kQ8Block / 2; ++p)
                for (int r = 0; r < kQ8RowGroup; ++r)
                    acc[r] +=
                        q[(p * kQ8RowGroup + r) * 2] * xb[2 * p] + q[(p * kQ8RowGroup + r) * 2 + 1] * xb[2 * p + 1];
            const float s = xs[size_t(t) * lds + b];
            for (int r = 0; r < kQ8RowGroup; ++r) f[t][r] += float(acc[r]) * (detail::record_scale(rec, r) * s);
        }
    }
    for (int t = 0; t < TT; ++t)
        for (int r = 0; r < kQ8RowGroup; ++r) res[t * kQ8RowGroup + r] = f[t][r];
}

constexpr detail::Q8Tile kTiles[] = {tile<1>, tile<2>};

}  // namespace

void detail::linear_q8_portable(float* out, const float* x, int T, const Q8View& w, const float* bias) {
    detail::run_q8_tiles(out, x, T, w, bias, kTiles, sizeof(kTiles) / sizeof(kTiles[0]));
}

#if !defined(__wasm_simd128__) && !(defined(__AVX2__) && !defined(__wasm__))
void linear_q8(float* out, const float* x, int T, const Q8View& w, const float* bias) {
    detail::linear_q8_portable(out, x, T, w, bias);
}

const char* kernel_isa() {
    return "portable";
}
#endif

}  // namespace arcscope
