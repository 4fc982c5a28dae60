// fuzz_shapes.cpp: libFuzzer target for every size computed from a config, a shape or a count, built (like the rest
// of scripts/fuzz.sh) with ARCSCOPE_ADDRESS_BITS=32, wasm's limit. The input picks a GPT-2 config, a tensor shape and
// a buffer's dimensions; whatever the library computes must equal the exact (128-bit) arithmetic, or be an Error
// that the exact size really exceeds the limit. Sizes small enough are also allocated and used, so AddressSanitizer
// sees any write a wrong size would make.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "arcscope/article/attention.h"
#include "arcscope/core/error.h"
#include "arcscope/core/sizes.h"
#include "arcscope/formats/convert.h"
#include "arcscope/formats/model_file.h"
#include "engine_fixture.h"  // tests/cpp: header_only_safetensors

namespace {

using u128 = unsigned __int128;
constexpr u128 kAllocateBelow = 16u << 20;  // sizes under this are really allocated

struct Input {
    const uint8_t* p;
    size_t n;
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4 && n; ++i, ++p, --n) v |= uint32_t(*p) << (8 * i);
        return v;
    }
    // Mostly small values, sometimes anything: both the edges and the common case get explored.
    int dim() {
        const uint32_t v = u32();
        return (v & 3) ? int(v >> 2) % 70000 : int(v);
    }
};

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "size check failed: %s\n", what);
        std::abort();
    }
}

void fuzz_buffer(Input& in) {
    const size_t n_dims = in.u32() % 5;
    // exact: the byte count, saturating at 2^100; huge: some prefix product left 64 bits (the library may then
    // refuse even if a later 0 makes the total 0).
    uint64_t dims[4];
    u128 exact = 4;
    bool huge = false;
    for (size_t i = 0; i < n_dims; ++i) {
        dims[i] = uint64_t(in.u32()) << (in.u32() % 33);
        exact = dims[i] != 0 && exact > (u128(1) << 100) / dims[i] ? u128(1) << 100 : exact * dims[i];
        huge |= exact >> 64 != 0;
    }
    try {
        const size_t count = arcscope::buffer_elements("fuzz", dims, n_dims, 4);
        check(!huge && exact <= arcscope::kMaxBufferBytes && u128(count) * 4 == exact, "buffer_elements");
    } catch (const arcscope::Error&) {
        check(huge || exact > arcscope::kMaxBufferBytes, "buffer_elements refused a size that fits");
    }
}

void fuzz_tensor(Input& in) {
    std::vector<int> shape(1 + in.u32() % 4);
    u128 exact = 4;
    bool positive = true;
    for (int& d : shape) {
        d = in.dim();
        positive &= d > 0;
        exact *= u128(d > 0 ? d : 1);
    }
    try {
        const size_t n = arcscope::tensor_elements(shape);
        check(positive && u128(n) * 4 == exact && exact <= arcscope::kMaxBufferBytes, "tensor_elements");
        if (exact < kAllocateBelow) {
            arcscope::Tensor t = arcscope::random_normal(shape, 1);
            check(t.size() == n, "random_normal size");
            for (int i = 0; i < t.matrices(); ++i) t.matrix(i).setZero();
        }
    } catch (const arcscope::Error&) {
        check(!positive || exact > arcscope::kMaxBufferBytes, "tensor_elements refused a size that fits");
    }
    const int a = in.dim() % 4096, b = in.dim() % 4096;
    try {
        arcscope::PositionalEncoding pe(a, b);
        check(u128(pe.table().size()) == u128(a) * b, "positional table");
    } catch (const arcscope::Error&) {
        check(a <= 0 || b <= 0, "PositionalEncoding refused a valid size");
    }
}

void fuzz_config(Input& in) {
    arcscope::ModelConfig c;
    c.n_layer = in.dim();
    c.n_head = in.dim();
    c.n_embd = in.dim();
    c.n_ctx = in.dim();
    c.n_vocab = in.dim();
    const arcscope::DType t = arcscope::DType(in.u32() % 3);  // f32, q8 or q16
    try {
        c.validate();
    } catch (const arcscope::Error&) {
        return;
    }
    const auto specs = arcscope::tensor_specs(c, t);
    const arcscope::FileLayout layout = arcscope::plan_layout(specs, arcscope::file_version(c, t));
    u128 exact = 0;
    for (const auto& s : specs) exact += (u128(s.bytes) + 63) / 64 * 64;
    check(layout.data_size == uint64_t(exact), "plan_layout data size");
    // The converter reads a header that claims its full length (a lying Content-Length). It must refuse an output
    // beyond the limit before allocating it; a small one it converts (zero weights), to exactly the layout's size.
    const std::vector<uint8_t> header = arcscope::testing::header_only_safetensors(c);
    u128 data = 0;
    for (const auto& s : arcscope::tensor_specs(c, arcscope::DType::F32)) data += s.bytes;
    const bool small = layout.file_size() < kAllocateBelow && data < kAllocateBelow;
    if (layout.file_size() <= arcscope::kMaxBufferBytes && !small) return;  // would really allocate gigabytes
    arcscope::Converter conv(c, t, uint64_t(header.size() + data));
    try {
        conv.feed(header.data(), header.size());
        check(small, "an output beyond the address space was accepted");
        const std::vector<uint8_t> zeros(1 << 16, 0);
        for (u128 left = data; left > 0; left -= std::min<u128>(left, zeros.size()))
            conv.feed(zeros.data(), size_t(std::min<u128>(left, zeros.size())));
        check(conv.finish().size() == layout.file_size(), "converted size");
    } catch (const arcscope::Error&) {
        check(!small && conv.output_bytes() == 0, "the converter failed on a small valid checkpoint");
    }
    // KV cache and capture at the full context.
    const u128 kv = u128(2) * c.n_layer * (c.n_ctx + 16) * c.n_embd * 4;
    try {
        (void)arcscope::buffer_elements("kv", {2, uint64_t(c.n_layer), uint64_t(c.n_ctx) + 16, uint64_t(c.n_embd)}, 4);
        check(kv <= arcscope::kMaxBufferBytes, "kv cache size");
    } catch (const arcscope::Error&) {
        check(kv > arcscope::kMaxBufferBytes, "kv cache refused");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Input in{data, size};
    fuzz_buffer(in);
    fuzz_tensor(in);
    fuzz_config(in);
    return 0;
}
