// sizes.cpp: checked size arithmetic (see sizes.h). Messages are built only on failure: these run per token.
#include "arcscope/core/sizes.h"

#include <cstdio>

#include "arcscope/core/error.h"

namespace arcscope {

namespace {
[[noreturn]] void too_large(const char* what, const std::string& dims, long double bytes) {
    const std::string need = bytes >= 1.8e19L
                                 ? "more than 2^64 bytes"
                                 : human_bytes(uint64_t(bytes)) + " (" + std::to_string(uint64_t(bytes)) + " bytes)";
    throw Error(std::string(what) + dims + " needs " + need + "; this build can address " +
                human_bytes(kMaxBufferBytes + 1) + " (2^" + std::to_string(kAddressBits) + " bytes)");
}
}  // namespace

uint64_t checked_mul(uint64_t a, uint64_t b, const char* what) {
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r)) throw Error(std::string(what) + ": size overflows 64 bits");
    return r;
}

uint64_t checked_add(uint64_t a, uint64_t b, const char* what) {
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r)) throw Error(std::string(what) + ": size overflows 64 bits");
    return r;
}

size_t buffer_elements(const char* what, const uint64_t* dims, size_t n_dims, size_t elem_bytes) {
    uint64_t count = 1, bytes = elem_bytes;
    bool overflow = false;
    for (size_t i = 0; i < n_dims; ++i) {
        overflow |= __builtin_mul_overflow(count, dims[i], &count);
        overflow |= __builtin_mul_overflow(bytes, dims[i], &bytes);
    }
    if (overflow || bytes > kMaxBufferBytes) {
        long double exact = elem_bytes;
        for (size_t i = 0; i < n_dims; ++i) exact *= dims[i];
        too_large(what, " " + shape_text(dims, n_dims) + " of " + std::to_string(elem_bytes) + "-byte values", exact);
    }
    return size_t(count);
}

size_t buffer_bytes(const char* what, uint64_t bytes) {
    if (bytes > kMaxBufferBytes) too_large(what, "", (long double)bytes);
    return size_t(bytes);
}

std::string shape_text(const uint64_t* dims, size_t n_dims) {
    std::string s = "[";
    for (size_t i = 0; i < n_dims; ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
}

std::string human_bytes(uint64_t n) {
    char buf[32];
    if (n >= 1000000000000) std::snprintf(buf, sizeof buf, "%.1f TB", n / 1e12);
    else if (n >= 1000000000) std::snprintf(buf, sizeof buf, "%.1f GB", n / 1e9);
    else if (n >= 1000000) std::snprintf(buf, sizeof buf, "%.0f MB", n / 1e6);
    else if (n >= 1000) std::snprintf(buf, sizeof buf, "%.1f KB", n / 1e3);
    else std::snprintf(buf, sizeof buf, "%llu bytes", (unsigned long long)n);
    return buf;
}

}  // namespace arcscope
