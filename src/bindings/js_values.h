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

[[noreturn]] inline void throw_js_error(const std::string& message) {
    val::global("Error").new_(message).throw_();
}

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

// A JavaScript value as a message shows it: 'the string "7"', 'null', 'a boolean (true)', 'an array of length 2',
// 'a Int32Array of length 3', 'a value of type object'.
inline std::string js_description(const val& v) {
    if (v.isString()) return "the string \"" + v.as<std::string>() + "\"";
    if (v.isNull() || v.isUndefined()) return v.isNull() ? "null" : "undefined";
    if (v.isTrue() || v.isFalse()) return std::string("a boolean (") + (v.isTrue() ? "true" : "false") + ")";
    if (v.isNumber()) return "the number " + number_text(v.as<double>());
    if (v.isArray()) return "an array of length " + number_text(v["length"].as<double>());
    if (val::global("ArrayBuffer").call<bool>("isView", v) && v["length"].isNumber())
        return "a " + v["constructor"]["name"].as<std::string>() + " of length " +
               number_text(v["length"].as<double>());
    return "a value of type " + v.typeOf().as<std::string>();
}

// A JavaScript value that must be a number (Embind's double would take "7" and true as 7 and 1), as an int in [lo, hi].
inline int int_arg(const val& v, const char* what, int lo, int hi) {
    if (!v.isNumber()) throw arcscope::Error(std::string(what) + " must be a number, got " + js_description(v));
    return int_arg(v.as<double>(), what, lo, hi);
}

// The numbers of a JavaScript array or typed array. Embind's conversion alone would run ToNumber on each element
// ('7' -> 7, true -> 1, null -> 0), so a plain array's elements are checked to be numbers first; a typed array holds
// nothing else.
inline std::vector<double> js_numbers(const val& array, const char* what) {
    const bool typed = val::global("ArrayBuffer").call<bool>("isView", array) && !array.instanceof
        (val::global("DataView"));
    if (!typed && !array.isArray())
        throw arcscope::Error(std::string(what) + " must be an array of numbers, got " + js_description(array));
    if (!typed) {
        const int n = array["length"].as<int>();
        for (int i = 0; i < n; ++i) {
            const val item = array[i];
            if (!item.isNumber())
                throw arcscope::Error(std::string(what) + "[" + std::to_string(i) + "] is " + js_description(item) +
                                      ", not a number");
        }
    }
    return emscripten::convertJSArrayToNumberVector<double>(array);
}

// A JavaScript array of integers, each checked to be in [lo, hi] before it becomes an int (read as doubles, so
// 2^32 + 464 is seen as itself). message(i, value) describes a bad element.
template <class Message>
std::vector<int> int_vector(const val& array, const char* what, int lo, int hi, Message message) {
    const std::vector<double> values = js_numbers(array, what);
    std::vector<int> out(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        const double v = values[i];
        if (!(v >= lo && v <= hi && v == std::floor(v))) throw arcscope::Error(message(i, v));
        out[i] = int(v);
    }
    return out;
}

inline std::vector<int> int_vector(const val& array, const char* what) {
    return int_vector(array, what, INT32_MIN, INT32_MAX, [&](size_t i, double v) {
        return std::string(what) + "[" + std::to_string(i) + "] (" + number_text(v) + ") is not a 32-bit integer";
    });
}

// Token ids, checked against the vocabulary with the same words as the engine's own check. The one id check: the
// JavaScript API passes ids through as they are.
inline std::vector<int> token_ids(const val& array, int n_vocab, const char* what = "ids") {
    return int_vector(array, what, 0, n_vocab - 1, [&](size_t i, double v) {
        return "token id " + number_text(v) + " at position " + std::to_string(i) +
               (v == std::floor(v) ? " is outside the vocabulary [0, " + std::to_string(n_vocab) + ")"
                                   : " is not an integer");
    });
}

// A fresh Float32Array holding a copy of v (the wasm heap may move when it grows).
inline val float32_array(const float* data, size_t n) {
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

inline val int32_array(const int* data, size_t n) {
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

inline std::vector<float> floats_from(const val& array) {
    return emscripten::convertJSArrayToNumberVector<float>(array);
}

}  // namespace arcscope::bindings
