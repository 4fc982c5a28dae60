// sizes.h: the one place where sizes that come from a file, a config, a shape or an argument are computed. Products
// and sums run in 64 bits with overflow checks, and every buffer size is checked against what this build can
// address before anything is allocated: in wasm32 size_t is 32 bits, and a size that wrapped there would let a
// write land in another model's memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace arcscope {

// The largest single buffer this build allocates. wasm32 addresses 4 GB in all; natively 2^46 bytes (64 TB) is far
// above any model. -DARCSCOPE_ADDRESS_BITS=32 gives a native build wasm's limit (the fuzzers and the sanitizer
// build use it, so they see the same errors the browser would).
#ifdef ARCSCOPE_ADDRESS_BITS
constexpr unsigned kAddressBits = ARCSCOPE_ADDRESS_BITS;
#else
constexpr unsigned kAddressBits = sizeof(size_t) == 4 ? 32 : 46;
#endif
static_assert(kAddressBits <= 8 * sizeof(size_t), "ARCSCOPE_ADDRESS_BITS exceeds this target's size_t");
constexpr uint64_t kMaxBufferBytes = (uint64_t(1) << kAddressBits) - 1;

// a * b and a + b, or Error("<what> overflows 64 bits").
uint64_t checked_mul(uint64_t a, uint64_t b, const char* what);
uint64_t checked_add(uint64_t a, uint64_t b, const char* what);

// The element count of a buffer with these dimensions and element size, as a size_t that is safe to allocate and
// index. Otherwise Error, before any allocation, e.g.
//   "attention capture [12, 12, 32769, 32769] of 4-byte values needs 619 GB; this build can address 4.3 GB".
size_t buffer_elements(const char* what, const uint64_t* dims, size_t n_dims, size_t elem_bytes);
inline size_t buffer_elements(const char* what, std::initializer_list<uint64_t> dims, size_t elem_bytes) {
    return buffer_elements(what, dims.begin(), dims.size(), elem_bytes);
}
// A byte count as size_t, checked the same way ("converted model file needs 4.3 GB; this build can address ...").
size_t buffer_bytes(const char* what, uint64_t bytes);

std::string human_bytes(uint64_t n);  // "1.1 TB", "4.3 GB", "131 MB", "4.2 KB", "17 bytes"

// The one way a shape is written in messages: "[2304, 768]", "[768]".
std::string shape_text(const uint64_t* dims, size_t n_dims);
inline std::string shape_text(const std::vector<uint64_t>& dims) {
    return shape_text(dims.data(), dims.size());
}

}  // namespace arcscope
