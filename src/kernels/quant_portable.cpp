// quant_portable.cpp: the q8 and q16 kernels in plain C++, linear_q in builds with neither SIMD128 nor AVX2 (and
// always compiled, so the tests check it everywhere). Same layout and order of operations as the SIMD kernels;
// the compiler vectorizes the 8-row inner loop where it can.
#include "arcscope/kernels/quant_layout.h"
#include "quant_native.h"

namespace arcscope {

namespace {

template <class Weight, int TT, int Shift = 0>
void tile(const uint8_t* group, int blocks, const int16_t* xq, int ldq, const float* xs, int lds, float* res) {
    constexpr size_t kRecordBytes = kQRowGroup * (4 + kQBlock * sizeof(Weight));
    float f[TT][kQRowGroup] = {};
    for (int b = 0; b < blocks; ++b) {
        const uint8_t* rec = group + size_t(b) * kRecordBytes;
        Weight q[kQBlock * kQRowGroup];
        std::memcpy(q, rec + 4 * kQRowGroup, sizeof q);  // the file is little-endian, as are wasm and x86
        for (int t = 0; t < TT; ++t) {
            const int16_t* xb = xq + size_t(t) * ldq + b * kQBlock;
            int32_t acc[kQRowGroup] = {};
            for (int p = 0; p < kQBlock / 2; ++p)
                for (int r = 0; r < kQRowGroup; ++r)
                    acc[r] += (int32_t(q[(p * kQRowGroup + r) * 2]) * xb[2 * p] +
                               int32_t(q[(p * kQRowGroup + r) * 2 + 1]) * xb[2 * p + 1]) >>
                              Shift;  // 16-bit q16's pair shift (quant.h)
            const float s = xs[size_t(t) * lds + b];
            for (int r = 0; r < kQRowGroup; ++r) f[t][r] += float(acc[r]) * (detail::record_scale(rec, r) * s);
        }
    }
    for (int t = 0; t < TT; ++t)
        for (int r = 0; r < kQRowGroup; ++r) res[t * kQRowGroup + r] = f[t][r];
}

constexpr detail::QTile kQ8Tiles[] = {tile<int8_t, 1>, tile<int8_t, 2>};
constexpr detail::QTile kQ16Tiles[] = {tile<int16_t, 1>, tile<int16_t, 2>};
constexpr detail::QTile kQ16FullTiles[] = {tile<int16_t, 1, kQ16Full.pair_shift>,
                                           tile<int16_t, 2, kQ16Full.pair_shift>};

}  // namespace

void detail::linear_q_portable(float* out, const float* x, int T, const QView& w, const float* bias) {
    detail::run_q_tiles(out, x, T, w, bias, {kQ8Tiles, 2, kQ16Tiles, 2, kQ16FullTiles, 2});
}

#if !defined(__wasm_simd128__) && !(defined(__AVX2__) && !defined(__wasm__))
void linear_q(float* out, const float* x, int T, const QView& w, const float* bias) {
    detail::run_q_tiles(out, x, T, w, bias, detail::chosen_tiles({kQ8Tiles, 2, kQ16Tiles, 2, kQ16FullTiles, 2}));
}

const char* kernel_isa() {
    return detail::chosen_isa("portable");
}
#endif

}  // namespace arcscope
