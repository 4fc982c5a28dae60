// test_half.cpp: the f16 storage of the KV cache (include/arcscope/core/half.h), checked over every one of the 65,536
// f16 values, and what it saves.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/core/half.h"
#include "arcscope/model/kv_cache.h"

using namespace arcscope;

namespace {
uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
bool is_nan16(int h) {
    return ((h >> 10) & 31) == 31 && (h & 0x3ff);
}
}  // namespace

TEST(Half, EveryValueRoundTripsAndTheVectorPathEqualsTheScalarOne) {
    std::vector<uint16_t> all(65536);
    for (int h = 0; h < 65536; ++h) all[h] = uint16_t(h);
    std::vector<float> vec(65536);
    f16_to_float_n(all.data(), vec.data(), 65536);
    int mismatches = 0;
    for (int h = 0; h < 65536; ++h) {
        const float f = f16_to_float(uint16_t(h));
        mismatches += bits(f) != bits(vec[h]);
        if (!is_nan16(h)) mismatches += f16_from_float(f) != h;
    }
    EXPECT_EQ(mismatches, 0);
    EXPECT_EQ(f16_to_float(0x3c00), 1.0f);
    EXPECT_EQ(f16_to_float(0x0001), std::ldexp(1.0f, -24));  // the smallest subnormal
    EXPECT_EQ(f16_to_float(0x7bff), 65504.0f);
    EXPECT_TRUE(std::isinf(f16_to_float(0xfc00)) && f16_to_float(0xfc00) < 0);
    EXPECT_TRUE(std::isnan(vec[0x7e00]));
}

TEST(Half, RoundsToNearestWithTiesToEven) {
    int wrong = 0;
    for (int h = 0; h < 0x7bff; ++h) {  // every pair of neighbouring finite positive values
        const float a = f16_to_float(uint16_t(h)), b = f16_to_float(uint16_t(h + 1));
        const float mid = (a + b) / 2;  // exact in f32
        wrong += f16_from_float(mid) != (h % 2 == 0 ? h : h + 1);
        wrong += f16_from_float(std::nextafter(mid, a)) != h;
        wrong += f16_from_float(std::nextafter(mid, b)) != h + 1;
        wrong += f16_from_float(-mid) != ((h % 2 == 0 ? h : h + 1) | 0x8000);
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(f16_from_float(65519.0f), 0x7bff);  // below the midpoint to 65536: the largest finite
    EXPECT_EQ(f16_from_float(65520.0f), 0x7c00);  // the midpoint: ties to even, which is inf
    EXPECT_EQ(f16_from_float(1e-9f), 0x0000);
    EXPECT_EQ(f16_from_float(-0.0f), 0x8000);
    EXPECT_EQ(f16_from_float(INFINITY), 0x7c00);
    EXPECT_TRUE(is_nan16(f16_from_float(NAN)));
}

TEST(KVCache, F16HoldsHalfTheBytesAndRoundsAsStored) {
    KVCache f32, f16;
    f32.configure(12, 768, 12, 1024, KVType::F32);
    f16.configure(12, 768, 12, 1024, KVType::F16);
    for (KVCache* c : {&f32, &f16}) c->reserve(1024, 0);
    // GPT-2 small at its full context: K (768 x (1024 + 16)) and V (1024 x 768) for each of 12 layers
    const size_t values = size_t(12) * 768 * (1024 + KVCache::kPad + 1024);
    std::printf("  GPT-2 small, 1,024 positions: f32 %.1f MB, f16 %.1f MB\n", f32.bytes() / 1e6, f16.bytes() / 1e6);
    EXPECT_EQ(f32.bytes(), values * 4);
    EXPECT_EQ(f16.bytes(), values * 2);
    EXPECT_EQ(f32.stored(0.1f), 0.1f);
    EXPECT_EQ(f16.stored(0.1f), f16_to_float(f16_from_float(0.1f)));
    EXPECT_NE(f16.stored(0.1f), 0.1f);
    EXPECT_THROW(parse_kv_type("f8"), Error);
    EXPECT_EQ(parse_kv_type("f16"), KVType::F16);
}
