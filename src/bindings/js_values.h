// js_values.h: what every binding file shares: C++ exceptions turned into JavaScript Errors, and JavaScript
// numbers, strings and arrays checked before they become C++ values. Bindings only; no engine logic.
//
// Two rules keep a refused call from leaking and a full memory from corrupting the engine (boundary.js says why):
//   - user values are read through boundary.js (plain, js_string, js_description), which never throws, so no
//     JavaScript exception unwinds C++ frames; what they refuse becomes an arcscope::Error here;
//   - strings cross as bytes the C++ side allocates (js_string, text_val), never through Embind's std::string
//     conversion, which writes to address 0 when malloc fails.
#pragma once
#include <emscripten/bind.h>
#include <emscripten/em_asm.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "arcscope/core/error.h"

namespace arcscope::bindings {

using emscripten::val;

// s as a JavaScript string, made without a malloc.
inline val text_val(std::string_view s) {
    return val::module_property("arcscopeText")(
        val(emscripten::typed_memory_view(s.size(), reinterpret_cast<const uint8_t*>(s.data()))));
}

// Throws a JavaScript Error whose message is `message` (a JavaScript string). The handle is released in JavaScript:
// a JavaScript exception unwinds wasm frames without running destructors, so val.throw_() would leave one behind.
[[noreturn]] inline void throw_js_error(const val& message) {
    EM_ASM(
        {
            var text = Emval.toValue($0);
            __emval_decref($0);
            throw new Error(text);
        },
        message.as_handle());
    __builtin_unreachable();
}

// "the engine's memory is full: ...", written without allocating: it is said when nothing can be allocated.
inline val out_of_memory_message(const char* doing, const char* detail) {
    char text[512];
    const int n = std::snprintf(text, sizeof text,
                                "the engine's memory is full: free a model (out of memory while %s%s)", doing, detail);
    return text_val(std::string_view(text, n > 0 ? std::min(size_t(n), sizeof text - 1) : 0));
}

// Runs f; a C++ exception becomes a JavaScript Error. `doing` names the work for the messages a person reads when
// memory runs out (std::bad_alloc and std::length_error say only "std::bad_alloc" and "vector"). The handlers only
// read the exception into a JavaScript string (no wasm allocation); the Error is thrown after them, once the C++
// exception is freed (thrown from inside a handler, each refusal left its exception, about 170 bytes, in wasm memory).
// An exception of any type becomes an Error: one that escaped would reach JavaScript as a bare number.
template <class F>
auto guarded(const char* doing, F&& f) -> decltype(f()) {
    val message = val::undefined();
    try {
        return f();
    } catch (const std::bad_alloc&) {
        message = out_of_memory_message(doing, "; wasm holds 4 GB at most, shared by every loaded model");
    } catch (const std::length_error&) {
        message = out_of_memory_message(doing, ": a buffer would exceed what wasm can address");
    } catch (const std::exception& e) {
        message = text_val(e.what());
    } catch (...) {
        message = text_val("internal error: an exception that is not a std::exception");
    }
    throw_js_error(message);
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

// A JavaScript string's UTF-8 bytes, in a string this side allocates (a full memory is std::bad_alloc).
inline std::string js_string(const val& v, const char* what = "the value") {
    const val bytes = val::module_property("arcscopeUtf8")(v);
    if (!bytes.instanceof (val::global("Uint8Array"))) throw arcscope::Error(std::string(what) + " must be a string");
    std::string out(bytes["length"].as<size_t>(), '\0');
    if (!out.empty())
        val(emscripten::typed_memory_view(out.size(), reinterpret_cast<uint8_t*>(&out[0]))).call<void>("set", bytes);
    return out;
}

// A JavaScript value as a message shows it: 'the string "7"', 'null', 'a boolean (true)', 'an array of length 2',
// 'a Int32Array of length 3', 'a value of type object' (boundary.js's arcscopeDescribe).
inline std::string js_description(const val& v) {
    return js_string(val::module_property("arcscopeDescribe")(v));
}

// A Uint8Array's bytes (or an ArrayBuffer's), copied into a string this side allocates.
inline std::string js_bytes(const val& v, const char* what) {
    const bool bytes = v.instanceof (val::global("Uint8Array")) || v.instanceof (val::global("ArrayBuffer"));
    if (!bytes) throw arcscope::Error(std::string(what) + " must be a Uint8Array, got " + js_description(v));
    const val view = v.instanceof (val::global("Uint8Array")) ? v : val::global("Uint8Array").new_(v);
    std::string out(view["length"].as<size_t>(), '\0');
    if (!out.empty())
        val(emscripten::typed_memory_view(out.size(), reinterpret_cast<uint8_t*>(&out[0]))).call<void>("set", view);
    return out;
}

// A copy of v that holds plain data only, so reading it cannot run user code (getters, Proxies) or meet a BigInt;
// Error("<what>[1].values is a BigInt64Array: ...", "<what> could not be read: <what user code threw>") if not. Read a
// user's arrays and objects through this.
inline val plain(const val& v, const std::string& what) {
    const val r = val::module_property("arcscopePlain")(v, text_val(what));
    if (r.hasOwnProperty("error")) throw arcscope::Error(js_string(r["error"]));
    return r["value"];
}

// A JavaScript value that must be a number (Embind's double would take "7" and true as 7 and 1), as an int in [lo, hi].
inline int int_arg(const val& v, const char* what, int lo, int hi) {
    if (!v.isNumber()) throw arcscope::Error(std::string(what) + " must be a number, got " + js_description(v));
    return int_arg(v.as<double>(), what, lo, hi);
}

// The numbers of a JavaScript array or typed array. Embind's conversion alone would run ToNumber on each element
// ('7' -> 7, true -> 1, null -> 0), so a plain array's elements are checked to be numbers first; a typed array holds
// nothing else.
inline std::vector<double> js_numbers(const val& given, const char* what) {
    const val array = plain(given, what);
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

inline std::vector<float> floats_from(const val& array, const char* what = "the values") {
    return emscripten::convertJSArrayToNumberVector<float>(plain(array, what));
}

}  // namespace arcscope::bindings
