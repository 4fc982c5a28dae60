// embind.cpp: the JavaScript bindings, and nothing else. web/lib/arcscope.js wraps them into a friendly API.
// Each section binds one header of the library; every call goes through guarded() so a C++ Error reaches
// JavaScript as an Error with the same message.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <exception>
#include <memory>

#include "attention.h"
#include "attention_cost.h"
#include "error.h"
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
namespace blocks {
using namespace arcscope;

val shape_array(const std::vector<int>& shape) {
    val a = val::array();
    for (int d : shape) a.call<void>("push", d);
    return a;
}

val tensor_value(const Tensor& t) {
    val o = val::object();
    o.set("data", float32_array(t.data.data(), t.data.size()));
    o.set("shape", shape_array(t.shape));
    return o;
}

val matrix_value(const Matrix& m) {
    val o = val::object();
    o.set("data", float32_array(m.data(), size_t(m.size())));
    o.set("shape", shape_array({int(m.rows()), int(m.cols())}));
    return o;
}

Tensor tensor_from(const val& data, const val& shape) {
    return Tensor(vector_from<int>(shape), vector_from<float>(data));
}

Matrix matrix_from(const val& data, int rows, int cols) {
    std::vector<float> v = vector_from<float>(data);
    require(rows > 0 && cols > 0 && v.size() == size_t(rows) * cols,
            "expected " + std::to_string(rows) + " x " + std::to_string(cols) + " values, got " + std::to_string(v.size()));
    return Eigen::Map<Matrix>(v.data(), rows, cols);
}

// mask: null/undefined for none, else T*T values (1 keep, 0 block).
std::unique_ptr<Matrix> optional_mask(const val& mask, int seq) {
    if (mask.isNull() || mask.isUndefined()) return nullptr;
    const size_t n = mask["length"].as<size_t>();
    require(n == size_t(seq) * seq, "mask must be (" + std::to_string(seq) + ", " + std::to_string(seq) +
                                        ") for this input, got " + std::to_string(n) + " values");
    return std::make_unique<Matrix>(matrix_from(mask, seq, seq));
}

int seq_len(const Tensor& x) { return x.shape.size() == 3 ? x.shape[1] : 0; }

SingleHeadAttention make_single(int d_model, int d_head, unsigned seed) {
    return guarded([&] { return SingleHeadAttention(d_model, d_head, seed); });
}

val single_forward(const SingleHeadAttention& self, val data, val shape, val mask) {
    return guarded([&] {
        Tensor x = tensor_from(data, shape);
        auto m = optional_mask(mask, seq_len(x));
        auto o = self.forward(x, m.get());
        val r = val::object();
        r.set("out", tensor_value(o.out));
        r.set("weights", tensor_value(o.weights));
        return r;
    });
}

MultiHeadAttention make_multi(int d_model, int n_heads, unsigned seed) {
    return guarded([&] { return MultiHeadAttention(d_model, n_heads, seed); });
}

val multi_forward(const MultiHeadAttention& self, val data, val shape, val mask) {
    return guarded([&] {
        Tensor x = tensor_from(data, shape);
        auto m = optional_mask(mask, seq_len(x));
        auto o = self.forward(x, m.get());
        val r = val::object();
        r.set("out", tensor_value(o.out));
        r.set("weights", tensor_value(o.weights));
        r.set("q", tensor_value(o.q));
        r.set("k", tensor_value(o.k));
        r.set("v", tensor_value(o.v));
        r.set("merged", tensor_value(o.merged));
        return r;
    });
}

template <class Layer>
val get_weight(const Layer& self, std::string name) {
    return guarded([&] { return matrix_value(self.weight(name)); });
}

template <class Layer>
void set_weight(Layer& self, std::string name, val data) {
    guarded([&] {
        const Matrix& current = self.weight(name);
        self.set_weight(name, matrix_from(data, int(current.rows()), int(current.cols())));
    });
}

PositionalEncoding make_positional(int d_model, int max_seq_len) {
    return guarded([&] { return PositionalEncoding(d_model, max_seq_len); });
}

val positional_table(const PositionalEncoding& self) { return matrix_value(self.table()); }

val positional_forward(const PositionalEncoding& self, val data, val shape) {
    return guarded([&] { return tensor_value(self.forward(tensor_from(data, shape))); });
}

val causal_mask_value(int n) {
    return guarded([&] { return matrix_value(causal_mask(n)); });
}

val random_normal_value(val shape, unsigned seed) {
    return guarded([&] { return tensor_value(random_normal(vector_from<int>(shape), seed)); });
}

// lengths: array of sequence lengths -> {points: [{seqLen, ms}], fit: {a, b, c} | null}
val attention_cost_value(val lengths, int d_model, int n_heads, int repeats) {
    return guarded([&] {
        const auto points = measure_attention_cost(vector_from<int>(lengths), d_model, n_heads, repeats);
        val list = val::array();
        for (const auto& p : points) {
            val o = val::object();
            o.set("seqLen", p.seq_len);
            o.set("ms", p.ms);
            list.call<void>("push", o);
        }
        val r = val::object();
        r.set("points", list);
        if (points.size() >= 3) {
            const auto fit = fit_quadratic(points);
            val f = val::object();
            f.set("a", fit.a);
            f.set("b", fit.b);
            f.set("c", fit.c);
            r.set("fit", f);
        } else {
            r.set("fit", val::null());
        }
        return r;
    });
}

}  // namespace blocks

EMSCRIPTEN_BINDINGS(attention_blocks) {
    using namespace emscripten;
    using namespace blocks;
    class_<arcscope::SingleHeadAttention>("SingleHeadAttention")
        .constructor(&make_single)
        .property("d_model", &arcscope::SingleHeadAttention::d_model)
        .property("d_head", &arcscope::SingleHeadAttention::d_head)
        .function("forward", &single_forward)
        .function("weight", &get_weight<arcscope::SingleHeadAttention>)
        .function("setWeight", &set_weight<arcscope::SingleHeadAttention>);
    class_<arcscope::MultiHeadAttention>("MultiHeadAttention")
        .constructor(&make_multi)
        .property("d_model", &arcscope::MultiHeadAttention::d_model)
        .property("n_heads", &arcscope::MultiHeadAttention::n_heads)
        .property("d_head", &arcscope::MultiHeadAttention::d_head)
        .function("forward", &multi_forward)
        .function("weight", &get_weight<arcscope::MultiHeadAttention>)
        .function("setWeight", &set_weight<arcscope::MultiHeadAttention>);
    class_<arcscope::PositionalEncoding>("PositionalEncoding")
        .constructor(&make_positional)
        .function("table", &positional_table)
        .function("forward", &positional_forward);
    function("causalMask", &causal_mask_value);
    function("randomNormal", &random_normal_value);
    function("attentionCost", &attention_cost_value);
}

// ---- end section: attention blocks ----

// ---- section: tokenizer (tokenizer.h) ----
#include "tokenizer.h"

namespace tokenizer_bindings {
using arcscope::Tokenizer;

// bytes: the tokenizer file as a Uint8Array (Embind copies it into the string).
Tokenizer* from_bytes(const std::string& bytes) {
    return guarded([&] {
        return new Tokenizer(Tokenizer::from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    });
}

// text: UTF-8 bytes as a Uint8Array (web/lib/tokenizer.js passes TextEncoder's output) -> Int32Array of ids
val encode(const Tokenizer& tok, const std::string& text) {
    return guarded([&] {
        std::vector<int> ids = tok.encode(text);
        return int32_array(ids.data(), ids.size());
    });
}

// ids -> Uint8Array of the bytes they stand for (JavaScript decodes them with TextDecoder)
val decode(const Tokenizer& tok, const val& ids) {
    return guarded([&] {
        std::string bytes = tok.decode(vector_from<int>(ids));
        auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
        return val(emscripten::typed_memory_view(bytes.size(), data)).call<val>("slice");
    });
}

std::string token_text(const Tokenizer& tok, int id) {
    return guarded([&] { return tok.token_text(id); });
}

// ids -> [{first, count, text}]: runs of tokens that together make whole characters
val token_spans(const Tokenizer& tok, const val& ids) {
    return guarded([&] {
        val spans = val::array();
        for (const auto& s : tok.token_spans(vector_from<int>(ids))) {
            val span = val::object();
            span.set("first", s.first);
            span.set("count", s.count);
            span.set("text", s.text);
            spans.call<void>("push", span);
        }
        return spans;
    });
}

}  // namespace tokenizer_bindings

EMSCRIPTEN_BINDINGS(tokenizer) {
    using namespace emscripten;
    using arcscope::Tokenizer;
    class_<Tokenizer>("Tokenizer")
        .class_function("fromBytes", &tokenizer_bindings::from_bytes, allow_raw_pointers())
        .function("encode", &tokenizer_bindings::encode)
        .function("decode", &tokenizer_bindings::decode)
        .function("tokenText", &tokenizer_bindings::token_text)
        .function("tokenSpans", &tokenizer_bindings::token_spans)
        .property("vocabSize", &Tokenizer::vocab_size)
        .property("eotId", &Tokenizer::eot_id);
}
// ---- end section: tokenizer ----

// ---- section: model (model_file.h, gpt2.h, sampling.h, heads.h, convert.h) ----

// ---- end section: model ----

// ---- section: kernels (quant.h, quant_check.h, quant_bench.h) ----
#include "quant.h"
#include "quant_bench.h"
#include "quant_check.h"

namespace kernels {

// Every kernel of this (SIMD128) build against its scalar reference: {cases, q8MaxDiff, q8PortableMaxDiff, f32MaxDiff}.
val check(double seed) {
    return guarded([&] {
        arcscope::KernelCheck c = arcscope::check_kernels(uint64_t(seed));
        val o = val::object();
        o.set("isa", std::string(arcscope::kernel_isa()));
        o.set("cases", c.cases);
        o.set("q8MaxDiff", c.q8_max_diff);
        o.set("q8PortableMaxDiff", c.q8_portable_max_diff);
        o.set("f32MaxDiff", c.f32_max_diff);
        return o;
    });
}

// {bestMs, medianMs, gops, gbs, weightBytes} of linear_q8/linear_f32 on random (rows, cols) weights and T tokens.
val bench_linear(std::string dtype, int rows, int cols, int T, int reps) {
    return guarded([&] {
        arcscope::KernelTiming k = arcscope::bench_linear(dtype.c_str(), rows, cols, T, reps);
        val o = val::object();
        o.set("bestMs", k.best_ms);
        o.set("medianMs", k.median_ms);
        o.set("gops", k.gops);
        o.set("gbs", k.gbs);
        o.set("weightBytes", double(k.weight_bytes));
        return o;
    });
}

double bench_stream_read(double bytes, int reps) {
    return guarded([&] { return arcscope::bench_stream_read(size_t(bytes), reps); });
}

std::string isa() { return arcscope::kernel_isa(); }

}  // namespace kernels

EMSCRIPTEN_BINDINGS(arcscope_kernels) {
    emscripten::function("kernelIsa", &kernels::isa);
    emscripten::function("checkKernels", &kernels::check);
    emscripten::function("benchLinear", &kernels::bench_linear);
    emscripten::function("benchStreamRead", &kernels::bench_stream_read);
}
// ---- end section: kernels ----
