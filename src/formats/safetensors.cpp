// safetensors.cpp: header parsing and element conversion for the streaming converter.
#include "arcscope/formats/safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "arcscope/core/error.h"
#include "arcscope/core/json.h"
#include "arcscope/core/little_endian.h"
#include "arcscope/core/sizes.h"

namespace arcscope {

uint64_t safetensors_header_length(const uint8_t p[8]) {
    const uint64_t n = load_u64(p);
    require(n >= 2 && n <= uint64_t(100) << 20,
            "not a safetensors file: header length " + std::to_string(n) + " is out of range");
    require(n <= kMaxSafetensorsHeader, "safetensors header of " + human_bytes(n) + " is larger than arcscope reads (" +
                                            human_bytes(kMaxSafetensorsHeader) +
                                            "; a GPT-2 checkpoint's header is well under 1 MB)");
    return n;
}

size_t safe_dtype_bytes(SafeDType t) {
    switch (t) {
        case SafeDType::F32:
            return 4;
        case SafeDType::F16:
        case SafeDType::BF16:
            return 2;
        default:
            return 0;
    }
}

std::vector<SafeTensor> parse_safetensors_header(std::string_view text) {
    const Json header = Json::parse_object(text, "safetensors header");
    std::vector<SafeTensor> out;
    for (const auto& [name, info] : header.object) {
        if (name == "__metadata__") continue;
        const std::string where = "safetensors tensor " + name + ": ";
        const Json* dtype = info.find("dtype");
        const Json* shape = info.find("shape");
        const Json* offsets = info.find("data_offsets");
        require(dtype && dtype->is_string() && shape && shape->is_array() && offsets && offsets->is_array() &&
                    offsets->array.size() == 2,
                where + "needs dtype, shape and data_offsets [begin, end]");
        SafeTensor t;
        t.name = name;
        t.dtype_name = dtype->string;
        t.dtype = t.dtype_name == "F32"    ? SafeDType::F32
                  : t.dtype_name == "F16"  ? SafeDType::F16
                  : t.dtype_name == "BF16" ? SafeDType::BF16
                                           : SafeDType::Other;
        auto integer = [&](const Json& v, const char* what) {
            require(v.is_number() && v.number >= 0 && v.number <= 1e15 && v.number == std::floor(v.number),
                    where + what + " must be a non-negative integer");
            return uint64_t(v.number);
        };
        require(shape->array.size() <= 8, where + "too many dimensions");
        for (const Json& d : shape->array) t.shape.push_back(integer(d, "shape"));
        t.begin = integer(offsets->array[0], "data_offsets");
        t.end = integer(offsets->array[1], "data_offsets");
        require(t.begin <= t.end, where + "data_offsets begin > end");
        if (t.dtype != SafeDType::Other) {
            // Checked: [2^32, 2^32] would wrap to 0 bytes and pass as an empty tensor.
            const std::string what = where + "shape " + shape_text(t.shape) + " of " + t.dtype_name;
            uint64_t bytes = safe_dtype_bytes(t.dtype);
            for (uint64_t d : t.shape) bytes = checked_mul(bytes, d, what.c_str());
            require(t.end - t.begin == bytes, what + " needs " + std::to_string(bytes) + " bytes, data_offsets give " +
                                                  std::to_string(t.end - t.begin));
        }
        out.push_back(std::move(t));
    }
    std::sort(out.begin(), out.end(), [](const SafeTensor& a, const SafeTensor& b) { return a.begin < b.begin; });
    return out;
}

namespace {
float f16_to_f32(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {  // subnormal: renormalise
            int e = -1;
            do {
                ++e;
                man <<= 1;
            } while (!(man & 0x400));
            bits = sign | uint32_t(127 - 15 - e) << 23 | (man & 0x3FF) << 13;
        }
    } else if (exp == 31) {
        bits = sign | 0x7F800000u | man << 13;
    } else {
        bits = sign | (exp + 127 - 15) << 23 | man << 13;
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}
}  // namespace

void safe_to_f32(SafeDType t, const uint8_t* src, size_t n, float* dst) {
    switch (t) {
        case SafeDType::F32:
            std::memcpy(dst, src, n * 4);
            break;
        case SafeDType::F16:
            for (size_t i = 0; i < n; ++i) dst[i] = f16_to_f32(load_u16(src + 2 * i));
            break;
        case SafeDType::BF16:
            for (size_t i = 0; i < n; ++i) {
                uint32_t bits = uint32_t(load_u16(src + 2 * i)) << 16;
                std::memcpy(dst + i, &bits, 4);
            }
            break;
        default:
            throw Error("unsupported safetensors dtype");
    }
}

}  // namespace arcscope
