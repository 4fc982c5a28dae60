// test_default_format.cpp: the format a conversion gets when none is asked for (default_format.h): q16 wherever its
// file is at most 2 GiB, q8 past it, by the converter's own sizing.
#include <gtest/gtest.h>

#include "arcscope/formats/default_format.h"

namespace arcscope {
namespace {

ModelConfig shape(int n_layer, int n_head, int n_embd) {
    ModelConfig c;
    c.n_layer = n_layer;
    c.n_head = n_head;
    c.n_embd = n_embd;
    return c;
}

TEST(DefaultFormat, Q16ForTheGpt2FamilyUpToLargeAndQ8ForXL) {
    EXPECT_EQ(default_weight_type(shape(6, 12, 768)), DType::Q16);    // distilgpt2
    EXPECT_EQ(default_weight_type(shape(12, 12, 768)), DType::Q16);   // gpt2
    EXPECT_EQ(default_weight_type(shape(24, 16, 1024)), DType::Q16);  // gpt2-medium
    EXPECT_EQ(default_weight_type(shape(36, 20, 1280)), DType::Q16);  // gpt2-large: 1.65 GB in q16
    EXPECT_EQ(default_weight_type(shape(48, 25, 1600)), DType::Q8);   // gpt2-xl: 3.31 GB in q16
    // The sizes the loader lists (web/tutorial/page/gpt2-family.js).
    EXPECT_EQ(converted_file_bytes(shape(36, 20, 1280), DType::Q16), 1646002944u);
    EXPECT_EQ(converted_file_bytes(shape(48, 25, 1600), DType::Q16), 3311881408u);
}

TEST(DefaultFormat, TheBoundIsTheQ16FilesSizeNotTheLayerCount) {
    // Between large's 36 and XL's 48 blocks at XL's width, q16 turns to q8 where the file passes 2 GiB.
    int last_q16 = 0;
    for (int layers = 1; layers <= 48; ++layers) {
        const ModelConfig c = shape(layers, 25, 1600);
        const bool fits = converted_file_bytes(c, DType::Q16) <= kDefaultQ16MaxBytes;
        EXPECT_EQ(default_weight_type(c), fits ? DType::Q16 : DType::Q8) << layers << " layers";
        if (fits) last_q16 = layers;
    }
    EXPECT_GT(last_q16, 1);
    EXPECT_LT(last_q16, 48);
    EXPECT_GT(converted_file_bytes(shape(last_q16 + 1, 25, 1600), DType::Q16), kDefaultQ16MaxBytes);
}

}  // namespace
}  // namespace arcscope
