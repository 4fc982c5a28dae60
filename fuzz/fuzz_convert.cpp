// fuzz_convert.cpp: libFuzzer target for the streaming safetensors converter (a tiny GPT-2 config). Any bytes, cut
// into two chunks at a point the input chooses, must convert or throw Error.
#include <cstdint>

#include "arcscope/core/error.h"
#include "arcscope/formats/convert.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    arcscope::ModelConfig c;
    c.n_layer = 1;
    c.n_head = 1;
    c.n_embd = 32;
    c.n_ctx = 4;
    c.n_vocab = 8;
    const size_t cut = data[0] % (size);
    try {
        arcscope::Converter conv(c, arcscope::DType(size % 3), size - 1);  // f32, q8 or q16
        conv.feed(data + 1, cut);
        conv.feed(data + 1 + cut, size - 1 - cut);
        conv.finish();
    } catch (const arcscope::Error&) {
    }
    return 0;
}
