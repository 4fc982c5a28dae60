// embind.cpp: the JavaScript bindings, and nothing else. web/lib/arcscope.js wraps them into a friendly API.
// Each section binds one header of the library; every call goes through guarded() so a C++ Error reaches
// JavaScript as an Error with the same message.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <exception>
#include <string>
#include <vector>

using emscripten::val;

namespace {

template <class F>
auto guarded(F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const std::exception& e) {
        val::global("Error").new_(std::string(e.what())).throw_();
    }
}

// A fresh Float32Array holding a copy of v (the wasm heap may move when it grows).
val float32_array(const float* data, size_t n) {
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

val int32_array(const int* data, size_t n) {
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

template <class T>
std::vector<T> vector_from(const val& array) {
    return emscripten::convertJSArrayToNumberVector<T>(array);
}

}  // namespace

// ---- section: attention blocks (attention.h) ----

// ---- end section: attention blocks ----

// ---- section: tokenizer (tokenizer.h) ----

// ---- end section: tokenizer ----

// ---- section: model (model_file.h, gpt2.h, sampling.h, heads.h, convert.h) ----

// ---- end section: model ----
