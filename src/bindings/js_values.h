// js_values.h: what every binding file shares: C++ exceptions turned into JavaScript Errors, and JavaScript
// numbers and arrays checked before they become C++ integers. Bindings only; no engine logic.
#pragma once
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "arcscope/error.h"

namespace arcscope::bindings {

using emscripten::val;

[[noreturn]] inline void throw_js_error(const std::string& message) { val::global("Error").new_(message).throw_(); }

// Runs f; a C++ exception becomes a JavaScript Error. `doing` names the work for the messages a person reads when
// memory runs out (std::bad_alloc and std::length_error say only "std::bad_alloc" and "vector").
template <class F>
auto guarded(const char* doing, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const std::bad_alloc&) {
        throw_js_error(std::string("out of memory while ") + doing +
                       ": the engine could not get enough wasm memory (4 GB at most, shared by every loaded model)");
    } catch (const std::length_error&) {
        throw_js_error(std::string("out of memory while ") + doing + ": a buffer would exceed what wasm can address");
    } catch (const std::exception& e) {
        throw_js_error(e.what());
    }
}

inline std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// A JavaScript number as an int in [lo, hi]. Embind's own int conversion wraps silently (2^32 + 464 -> 464).
inline int int_arg(double v, const char* what, int lo, int hi) {
    if (!(v >= lo && v <= hi && v == std::floor(v)))
        throw arcscope::Error(std::string(what) + " must be an integer in [" + std::to_string(lo) + ", " +
                              std::to_string(hi) + "], got " + number_text(v));
    return int(v);
}

// A JavaScript array of integers, each checked to be in [lo, hi] before it becomes an int (read as doubles, so
// 2^32 + 464 is seen as itself). message(i, value) describes a bad element.
template <class Message>
std::vector<int> int_vector(const val& array, int lo, int hi, Message message) {
    const std::vector<double> values = emscripten::convertJSArrayToNumberVector<double>(array);
    std::vector<int> out(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        const double v = values[i];
        if (!(v >= lo && v <= hi && v == std::floor(v))) throw arcscope::Error(message(i, number_text(v)));
        out[i] = int(v);
    }
    return out;
}

inline std::vector<int> int_vector(const val& array, const char* what) {
    return int_vector(array, INT32_MIN, INT32_MAX, [&](size_t i, const std::string& v) {
        return std::string(what) + ": element " + std::to_string(i) + " (" + v + ") is not a 32-bit integer";
    });
}

// Token ids, checked against the vocabulary with the same words as the engine's own check.
inline std::vector<int> token_ids(const val& array, int n_vocab) {
    return int_vector(array, 0, n_vocab - 1, [&](size_t i, const std::string& v) {
        return "token id " + v + " at position " + std::to_string(i) + " is outside the vocabulary [0, " +
               std::to_string(n_vocab) + ")";
    });
}

// A fresh Float32Array holding a copy of v (the wasm heap may move when it grows).
inline val float32_array(const float* data, size_t n) {
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

inline val int32_array(const int* data, size_t n) {
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

inline std::vector<float> floats_from(const val& array) { return emscripten::convertJSArrayToNumberVector<float>(array); }

}  // namespace arcscope::bindings
