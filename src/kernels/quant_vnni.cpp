// quant_vnni.cpp: the q8 kernel on vpdpbusd (AVX512-VNNI with AVX512VL, 256-bit), for native x86-64 builds whatever
// their -march: each function carries its own target attribute, and linear_q runs it only where the CPU has the
// instructions (quant_native.cpp). It is the relaxed-SIMD kernel's arithmetic (quant_wasm_relaxed.cpp): activations
// split by split_7bit (a + 8192 = 128 hi + lo, both in [0, 127]), then per block and row
//   acc = 128 (sum(w hi) - 64 sum(w)) + sum(w lo)  = sum(w a), exact in int32,
// so the integers, and with quant_avx2.cpp's epilogue the bits, are the same as every other kernel's.
// vpdpbusd multiplies 4 unsigned bytes (the activation parts) by 4 signed bytes (the weights) per i32 lane and adds
// without saturating. A column quad of 8 rows (two column pairs of the record, see quant.h) becomes one ymm, a row
// per lane; the activation quad (4 bytes of hi or lo) is broadcast.
#if defined(__x86_64__) && !defined(__wasm__)
#include <immintrin.h>

#include "quant_native.h"

#define ARCSCOPE_VNNI __attribute__((target("avx2,avx512f,avx512vl,avx512vnni")))

namespace arcscope {

namespace {

// Column quad j (columns 4j..4j+3) of a record's 8 rows, one row per i32 lane.
ARCSCOPE_VNNI inline __m256i load_quad(const uint8_t* q, int j) {
    // [pair 2j: rows 0-3, rows 4-7 | pair 2j+1: rows 0-3, rows 4-7] -> [2j rows 0-3, 2j+1 rows 0-3 | rows 4-7 alike]
    const __m256i v = _mm256_permute4x64_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32 * j)),
                                               _MM_SHUFFLE(3, 1, 2, 0));
    const __m256i rows = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,  //
                                          0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    return _mm256_shuffle_epi8(v, rows);
}

ARCSCOPE_VNNI inline __m256i broadcast_quad(const uint8_t* x) {
    int32_t quad;
    __builtin_memcpy(&quad, x, 4);
    return _mm256_set1_epi32(quad);
}

// res (TT, 8) = the 8 rows of this group . TT tokens. xq holds each block as hi[32] then lo[32] bytes (split_7bit).
template <int TT>
ARCSCOPE_VNNI void tile(const uint8_t* group, int blocks, const int16_t* xq, int ldq, const float* xs, int lds,
                        float* res) {
    const __m256i offset_hi = _mm256_set1_epi8(detail::kSplitOffset / 128);
    __m256 f[TT];
    for (int t = 0; t < TT; ++t) f[t] = _mm256_setzero_ps();
    for (int b = 0; b < blocks; ++b) {
        const uint8_t* rec = group + size_t(b) * kQ8.record_bytes;
        const uint8_t* q = rec + 4 * kQRowGroup;
        const uint8_t* xb = reinterpret_cast<const uint8_t*>(xq + b * kQBlock);
        __m256i hi[TT], lo[TT], off = _mm256_setzero_si256();
        for (int t = 0; t < TT; ++t) hi[t] = lo[t] = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int j = 0; j < kQBlock / 4; ++j) {
            const __m256i w = load_quad(q, j);
            off = _mm256_dpbusd_epi32(off, offset_hi, w);
            for (int t = 0; t < TT; ++t) {
                const uint8_t* xt = xb + size_t(t) * 2 * ldq;
                hi[t] = _mm256_dpbusd_epi32(hi[t], broadcast_quad(xt + 4 * j), w);
                lo[t] = _mm256_dpbusd_epi32(lo[t], broadcast_quad(xt + kQBlock + 4 * j), w);
            }
        }
        const __m256 ws = _mm256_loadu_ps(reinterpret_cast<const float*>(rec));
        for (int t = 0; t < TT; ++t) {
            const __m256i acc = _mm256_add_epi32(_mm256_slli_epi32(_mm256_sub_epi32(hi[t], off), 7), lo[t]);
            const __m256 s = _mm256_mul_ps(ws, _mm256_set1_ps(xs[size_t(t) * lds + b]));
            // Multiply, then add, as quant_avx2.cpp: the same roundings, so the same bits.
            f[t] = _mm256_add_ps(f[t], _mm256_mul_ps(_mm256_cvtepi32_ps(acc), s));
        }
    }
    for (int t = 0; t < TT; ++t) _mm256_storeu_ps(res + t * kQRowGroup, f[t]);
}

constexpr detail::QTile kQ8Tiles[] = {tile<1>, tile<2>, tile<3>, tile<4>, tile<5>, tile<6>};

}  // namespace

bool detail::cpu_has_vnni_int8() {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512vnni");
}

void detail::use_vnni_int8_tiles(QTiles& tiles) {
    tiles.q8 = kQ8Tiles;
    tiles.q8_count = 6;
    tiles.q8_layout = split_7bit;
}

}  // namespace arcscope
#endif
