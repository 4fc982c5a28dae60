// safetensors.h: reading the Hugging Face safetensors format piece by piece.
//   u64 little-endian N | N bytes of JSON header | data
// The header maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets from the data
// start). The converter reads the header with these helpers and then streams the data in file order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace arcscope {

enum class SafeDType { F32, F16, BF16, Other };

struct SafeTensor {
    std::string name;
    std::string dtype_name;  // as written, e.g. "F32"
    SafeDType dtype;
    std::vector<uint64_t> shape;
    uint64_t begin;  // byte offsets into the data section
    uint64_t end;
};

// The longest JSON header arcscope reads. Hugging Face's reader allows 100 MB; GPT-2 small's header is about 15 KB
// and the largest GPT-2 this build accepts (256 layers) needs about 0.3 MB, so 1 MB leaves room for metadata while a
// hostile header cannot cost more than about 32 MB to parse (the JSON reader's bound, json.h).
constexpr uint64_t kMaxSafetensorsHeader = 1u << 20;

// The 8-byte prefix -> header length. Throws Error if it is absurd.
uint64_t safetensors_header_length(const uint8_t prefix[8]);

// Parses the JSON header (without the prefix). Checks each tensor's offsets and, for float dtypes, that the byte
// count matches the shape. Tensors come back sorted by their begin offset ("__metadata__" is dropped).
std::vector<SafeTensor> parse_safetensors_header(std::string_view json);

size_t safe_dtype_bytes(SafeDType t);  // 4, 2, 2 (0 for Other)

// n elements of type t at src (little-endian) -> dst as f32.
void safe_to_f32(SafeDType t, const uint8_t* src, size_t n, float* dst);

}  // namespace arcscope
