// quant_native.cpp: the native q8 kernel chosen at run time (see quant_native.h). "int16" by default: on an AMD EPYC
// with AVX512-VNNI, `arcscope bench-kernels` on GPT-2 small's five matrix shapes, alternating, gave vnni-int8
// 1.06-1.09x int16's time at T = 64 and 0.88-0.93x at T = 1 (1.12x for the 38 MB LM head, read from memory). vpdpwssd
// already fuses 16 products and the add per instruction, and vpdpbusd's 32 come as two 7-bit parts: as many useful
// products, plus the parts' offset and a shuffle per column quad.
#ifndef __wasm__
#include "quant_native.h"

#include <atomic>
#include <cstdlib>

#include "arcscope/core/error.h"

namespace arcscope {

namespace {

constexpr const char* kInt16 = "int16";
constexpr const char* kVnniInt8 = "vnni-int8";

// Whether `name` is vnni-int8 (true) or int16 (false); an Error for another name or where the CPU lacks it.
bool is_vnni_int8(const std::string& name) {
    const bool vnni = name == kVnniInt8;
    require(vnni || name == kInt16, "the q8 kernel must be int16 or vnni-int8, got '" + name + "'");
    require(!vnni || detail::cpu_has_vnni_int8(), "the q8 kernel vnni-int8 needs AVX512-VNNI and AVX512VL");
    return vnni;
}

// Whether linear_q runs the vnni-int8 tiles: ARCSCOPE_Q8_KERNEL's choice at the first call, then use_q8_kernel's.
std::atomic<bool>& vnni_chosen() {
    static std::atomic<bool> chosen = [] {
        const char* env = std::getenv("ARCSCOPE_Q8_KERNEL");
        return env && *env && is_vnni_int8(env);
    }();
    return chosen;
}

}  // namespace

#if !defined(__x86_64__)
bool detail::cpu_has_vnni_int8() {
    return false;
}
void detail::use_vnni_int8_tiles(QTiles&) {}
#endif

std::vector<std::string> q8_kernels() {
    std::vector<std::string> names{kInt16};
    if (detail::cpu_has_vnni_int8()) names.push_back(kVnniInt8);
    return names;
}

void use_q8_kernel(const std::string& name) {
    vnni_chosen().store(is_vnni_int8(name));
}

detail::QTiles detail::chosen_tiles(QTiles compiled) {
    if (vnni_chosen().load(std::memory_order_relaxed)) use_vnni_int8_tiles(compiled);
    return compiled;
}

const char* detail::chosen_isa(const char* compiled) {
    return vnni_chosen().load(std::memory_order_relaxed) ? kVnniInt8 : compiled;
}

}  // namespace arcscope
#endif
