// quant_avx2.cpp: the q8 and q16 kernels for x86-64 with AVX2 (native builds use -march=native).
// Per column pair, 8 rows x 2 weights as 16 int16: q8 widens 16 bytes (vpmovsxbw), q16 loads 32 bytes as they are.
// Each token's activation pair is broadcast and vpmaddwd yields one row per 32-bit lane (with AVX512-VNNI, vpdpwssd
// fuses the add; 16-bit q16 shifts each pair's sum right by 4 before adding: quant.h). Per block of 32: the int32 sums
// become f32 and are scaled by (row scales x token scale).
#if defined(__AVX2__) && !defined(__wasm__)
#include <immintrin.h>

#include "quant_native.h"

namespace arcscope {

namespace {

template <int Shift>
inline __m256i dot_add(__m256i acc, __m256i w, __m256i x) {
    if constexpr (Shift > 0) return _mm256_add_epi32(acc, _mm256_srai_epi32(_mm256_madd_epi16(w, x), Shift));
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
    return _mm256_dpwssd_epi32(acc, w, x);
#else
    return _mm256_add_epi32(acc, _mm256_madd_epi16(w, x));
#endif
}

// Column pair p of 8 rows as 16 int16.
template <int WeightBytes>
inline __m256i load_pair(const uint8_t* q, int p) {
    if constexpr (WeightBytes == 1)
        return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 16 * p)));
    else return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32 * p));
}

template <int WeightBytes, int TT, int Shift = 0>
void tile(const uint8_t* group, int blocks, const int16_t* xq, int ldq, const float* xs, int lds, float* res) {
    constexpr size_t kRecordBytes = kQRowGroup * (4 + kQBlock * WeightBytes);
    __m256 f[TT];
    for (int t = 0; t < TT; ++t) f[t] = _mm256_setzero_ps();
    for (int b = 0; b < blocks; ++b) {
        const uint8_t* rec = group + size_t(b) * kRecordBytes;
        const uint8_t* q = rec + 4 * kQRowGroup;
        const int16_t* xb = xq + b * kQBlock;
        __m256i acc[TT];
        for (int t = 0; t < TT; ++t) acc[t] = _mm256_setzero_si256();
#pragma GCC unroll 16
        for (int p = 0; p < kQBlock / 2; ++p) {
            const __m256i w = load_pair<WeightBytes>(q, p);
            for (int t = 0; t < TT; ++t) {
                int32_t pair;
                __builtin_memcpy(&pair, xb + size_t(t) * ldq + 2 * p, 4);
                acc[t] = dot_add<Shift>(acc[t], w, _mm256_set1_epi32(pair));
            }
        }
        const __m256 ws = _mm256_loadu_ps(reinterpret_cast<const float*>(rec));
        for (int t = 0; t < TT; ++t) {
            const __m256 s = _mm256_mul_ps(ws, _mm256_set1_ps(xs[size_t(t) * lds + b]));
            // Multiply, then add (no FMA): the same two roundings as the wasm kernel, so both builds agree bit for bit.
            f[t] = _mm256_add_ps(f[t], _mm256_mul_ps(_mm256_cvtepi32_ps(acc[t]), s));
        }
    }
    for (int t = 0; t < TT; ++t) _mm256_storeu_ps(res + t * kQRowGroup, f[t]);
}

constexpr detail::QTile kQ8Tiles[] = {tile<1, 1>, tile<1, 2>, tile<1, 3>, tile<1, 4>, tile<1, 5>, tile<1, 6>};
constexpr detail::QTile kQ16Tiles[] = {tile<2, 1>, tile<2, 2>, tile<2, 3>, tile<2, 4>, tile<2, 5>, tile<2, 6>};
constexpr int kShift = kQ16Full.pair_shift;
constexpr detail::QTile kQ16FullTiles[] = {tile<2, 1, kShift>, tile<2, 2, kShift>, tile<2, 3, kShift>,
                                           tile<2, 4, kShift>, tile<2, 5, kShift>, tile<2, 6, kShift>};

}  // namespace

void linear_q(float* out, const float* x, int T, const QView& w, const float* bias) {
    detail::run_q_tiles(out, x, T, w, bias, detail::chosen_tiles({kQ8Tiles, 6, kQ16Tiles, 6, kQ16FullTiles, 6}));
}

const char* kernel_isa() {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
    return detail::chosen_isa("avx2+vnni");
#else
    return detail::chosen_isa("avx2");
#endif
}

}  // namespace arcscope
#endif
