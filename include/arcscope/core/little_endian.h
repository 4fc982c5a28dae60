// little_endian.h: the one reader and writer of the little-endian integers and floats that arcscope's files
// (.arcs, the tokenizer file, safetensors) are made of. Byte by byte, so neither the host's byte order nor the
// buffer's alignment matters; compilers turn each into a single load or store.
#pragma once
#include <cstdint>
#include <cstring>

namespace arcscope {

inline uint16_t load_u16(const uint8_t* p) {
    return uint16_t(p[0] | p[1] << 8);
}
inline uint32_t load_u32(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint64_t load_u64(const uint8_t* p) {
    return uint64_t(load_u32(p)) | uint64_t(load_u32(p + 4)) << 32;
}
inline float load_f32(const uint8_t* p) {
    const uint32_t u = load_u32(p);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline double load_f64(const uint8_t* p) {
    const uint64_t u = load_u64(p);
    double d;
    std::memcpy(&d, &u, 8);
    return d;
}

inline void store_u32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void store_u64(uint8_t* p, uint64_t v) {
    store_u32(p, uint32_t(v));
    store_u32(p + 4, uint32_t(v >> 32));
}
inline void store_f32(uint8_t* p, float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    store_u32(p, u);
}
inline void store_f64(uint8_t* p, double d) {
    uint64_t u;
    std::memcpy(&u, &d, 8);
    store_u64(p, u);
}

}  // namespace arcscope
