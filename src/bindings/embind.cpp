// embind.cpp: the JavaScript bindings, and nothing else. web/lib/arcscope.js wraps them into a friendly API.
// Each section binds one header of the library; every call goes through guarded() so a C++ Error reaches
// JavaScript as an Error with the same message.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>

#include "attention.h"
#include "attention_cost.h"
#include "error.h"
#include "sizes.h"
#include <string>
#include <vector>

using emscripten::val;

namespace {

[[noreturn]] void throw_js_error(const std::string& message) { val::global("Error").new_(message).throw_(); }

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

std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// A JavaScript number as an int in [lo, hi]. Embind's own int conversion wraps silently (2^32 + 464 -> 464).
int int_arg(double v, const char* what, int lo, int hi) {
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

std::vector<int> int_vector(const val& array, const char* what) {
    return int_vector(array, INT32_MIN, INT32_MAX, [&](size_t i, const std::string& v) {
        return std::string(what) + ": element " + std::to_string(i) + " (" + v + ") is not a 32-bit integer";
    });
}

// Token ids, checked against the vocabulary with the same words as the engine's own check.
std::vector<int> token_ids(const val& array, int n_vocab) {
    return int_vector(array, 0, n_vocab - 1, [&](size_t i, const std::string& v) {
        return "token id " + v + " at position " + std::to_string(i) + " is outside the vocabulary [0, " +
               std::to_string(n_vocab) + ")";
    });
}

// A fresh Float32Array holding a copy of v (the wasm heap may move when it grows).
val float32_array(const float* data, size_t n) {
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

val int32_array(const int* data, size_t n) {
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

std::vector<float> floats_from(const val& array) { return emscripten::convertJSArrayToNumberVector<float>(array); }

}  // namespace

// ---- section: attention blocks (attention.h) ----
namespace blocks {
using namespace arcscope;

// -> {data: Float32Array, shape: [...]}, the form every block takes and returns
val data_and_shape(const float* data, size_t n, const std::vector<int>& shape) {
    val o = val::object();
    o.set("data", float32_array(data, n));
    o.set("shape", val::array(shape));
    return o;
}

val tensor_value(const Tensor& t) { return data_and_shape(t.data.data(), t.data.size(), t.shape); }

val matrix_value(const Matrix& m) { return data_and_shape(m.data(), size_t(m.size()), {int(m.rows()), int(m.cols())}); }

Tensor tensor_from(const val& data, const val& shape) {
    // The shape's element count is checked, and compared with the data's length, before anything is allocated.
    std::vector<int> dims = int_vector(shape, "shape");
    const size_t n = tensor_elements(dims);
    const double got = data["length"].as<double>();
    require(got == double(n), "data has " + number_text(got) + " values, the shape needs " + std::to_string(n));
    return Tensor(std::move(dims), floats_from(data));
}

Matrix matrix_from(const val& data, int rows, int cols) {
    const size_t n = buffer_elements("matrix", {uint64_t(rows), uint64_t(cols)}, sizeof(float));
    const double got = data["length"].as<double>();
    require(rows > 0 && cols > 0 && got == double(n),
            "expected " + std::to_string(rows) + " x " + std::to_string(cols) + " values, got " + number_text(got));
    std::vector<float> v = floats_from(data);
    return Eigen::Map<Matrix>(v.data(), rows, cols);
}

// mask: null/undefined for none, else T*T values (1 keep, 0 block).
std::unique_ptr<Matrix> optional_mask(const val& mask, int seq) {
    if (mask.isNull() || mask.isUndefined()) return nullptr;
    const double n = mask["length"].as<double>();
    require(n == double(seq) * seq, "mask must be (" + std::to_string(seq) + ", " + std::to_string(seq) +
                                        ") for this input, got " + number_text(n) + " values");
    return std::make_unique<Matrix>(matrix_from(mask, seq, seq));
}

int seq_len(const Tensor& x) { return x.shape.size() == 3 ? x.shape[1] : 0; }

SingleHeadAttention make_single(double d_model, double d_head, unsigned seed) {
    return guarded("creating a SingleHeadAttention", [&] {
        return SingleHeadAttention(int_arg(d_model, "d_model", 1, INT32_MAX), int_arg(d_head, "d_head", 1, INT32_MAX),
                                   seed);
    });
}

val single_forward(const SingleHeadAttention& self, val data, val shape, val mask) {
    return guarded("running SingleHeadAttention.forward", [&] {
        Tensor x = tensor_from(data, shape);
        auto m = optional_mask(mask, seq_len(x));
        auto o = self.forward(x, m.get());
        val r = val::object();
        r.set("out", tensor_value(o.out));
        r.set("weights", tensor_value(o.weights));
        return r;
    });
}

MultiHeadAttention make_multi(double d_model, double n_heads, unsigned seed) {
    return guarded("creating a MultiHeadAttention", [&] {
        return MultiHeadAttention(int_arg(d_model, "d_model", 1, INT32_MAX), int_arg(n_heads, "n_heads", 1, INT32_MAX),
                                  seed);
    });
}

val multi_forward(const MultiHeadAttention& self, val data, val shape, val mask) {
    return guarded("running MultiHeadAttention.forward", [&] {
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
    return guarded("reading a weight", [&] { return matrix_value(self.weight(name)); });
}

template <class Layer>
void set_weight(Layer& self, std::string name, val data) {
    guarded("setting a weight", [&] {
        const Matrix& current = self.weight(name);
        self.set_weight(name, matrix_from(data, int(current.rows()), int(current.cols())));
    });
}

PositionalEncoding make_positional(double d_model, double max_seq_len) {
    return guarded("creating a PositionalEncoding", [&] {
        return PositionalEncoding(int_arg(d_model, "d_model", 1, INT32_MAX),
                                  int_arg(max_seq_len, "max_seq_len", 1, INT32_MAX));
    });
}

val positional_table(const PositionalEncoding& self) { return matrix_value(self.table()); }

val positional_forward(const PositionalEncoding& self, val data, val shape) {
    return guarded("running PositionalEncoding.forward",
                   [&] { return tensor_value(self.forward(tensor_from(data, shape))); });
}

val causal_mask_value(double n) {
    return guarded("making a causal mask", [&] { return matrix_value(causal_mask(int_arg(n, "n", INT32_MIN, INT32_MAX))); });
}

val random_normal_value(val shape, unsigned seed) {
    return guarded("drawing random numbers",
                   [&] { return tensor_value(random_normal(int_vector(shape, "shape"), seed)); });
}

// lengths: array of sequence lengths -> {points: [{seqLen, ms}], fit: {a, b, c} | null}
val attention_cost_value(val lengths, double d_model, double n_heads, double repeats) {
    return guarded("measuring attention cost", [&] {
        const auto points = measure_attention_cost(int_vector(lengths, "lengths"), int_arg(d_model, "dModel", 1, 1 << 16),
                                                   int_arg(n_heads, "nHeads", 1, 1 << 16),
                                                   int_arg(repeats, "repeats", 1, 1000));
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
    return guarded("loading the tokenizer", [&] {
        return new Tokenizer(Tokenizer::from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    });
}

// text: UTF-8 bytes as a Uint8Array (web/lib/tokenizer.js passes TextEncoder's output) -> Int32Array of ids
val encode(const Tokenizer& tok, const std::string& text) {
    return guarded("tokenizing", [&] {
        std::vector<int> ids = tok.encode(text);
        return int32_array(ids.data(), ids.size());
    });
}

// ids -> Uint8Array of the bytes they stand for (JavaScript decodes them with TextDecoder)
val decode(const Tokenizer& tok, const val& ids) {
    return guarded("decoding tokens", [&] {
        std::string bytes = tok.decode(int_vector(ids, "ids"));
        auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
        return val(emscripten::typed_memory_view(bytes.size(), data)).call<val>("slice");
    });
}

std::string token_text(const Tokenizer& tok, double id) {
    return guarded("reading a token's text", [&] {
        return tok.token_text(int_arg(id, "token id", INT32_MIN, INT32_MAX));
    });
}

// ids -> [{first, count, text}]: runs of tokens that together make whole characters
val token_spans(const Tokenizer& tok, const val& ids) {
    return guarded("grouping tokens into characters", [&] {
        val spans = val::array();
        for (const auto& s : tok.token_spans(int_vector(ids, "ids"))) {
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
#include "convert.h"
#include "gpt2.h"
#include "model_file.h"
#include "sampling.h"

namespace model_bindings {
using namespace arcscope;

// A model file copied once into wasm memory and run in place, with its KV cache and sampler.
class Model {
public:
    // bytes: Uint8Array of an .arcs file. The one copy: straight from the JS array into an aligned wasm buffer.
    static Model* from_bytes(val bytes) {
        return guarded("loading the model", [&] {
            const size_t n = buffer_bytes("the model file", uint64_t(bytes["length"].as<double>()));
            auto buffer = std::make_shared<AlignedBytes>(n);
            val(emscripten::typed_memory_view(n, buffer->data)).call<void>("set", bytes);
            ModelFile file = ModelFile::parse(buffer->data, n);
            return new Model(std::make_unique<GPT2>(file, buffer));
        });
    }

    val config() const {
        const GPT2Config& c = gpt2_->config();
        val o = val::object();
        o.set("n_layer", c.n_layer);
        o.set("n_head", c.n_head);
        o.set("n_embd", c.n_embd);
        o.set("n_ctx", c.n_ctx);
        o.set("n_vocab", c.n_vocab);
        o.set("dtype", std::string(dtype_name(gpt2_->weight_type())));
        o.set("fileBytes", double(gpt2_->file().size()));
        o.set("checksum", std::to_string(gpt2_->file().checksum()));
        return o;
    }

    // ids -> {logits, logitsShape: [rows, n_vocab], attention, attentionShape: [L, H, T, T]}
    val forward(val ids, bool attention, bool all_logits) {
        return guarded("running the model", [&] {
            std::vector<int> v = token_ids(ids, gpt2_->config().n_vocab);
            require(v.size() <= size_t(gpt2_->config().n_ctx),
                    "sequence of " + std::to_string(v.size()) + " tokens is longer than the model's context (n_ctx " +
                        std::to_string(gpt2_->config().n_ctx) + ")");
            gpt2_->forward(v.data(), int(v.size()), attention, all_logits);
            return result(false);
        });
    }

    // id -> {logits, logitsShape: [1, n_vocab], attention, attentionShape: [L, H, length]}
    val append(double id, bool attention) {
        return guarded("appending a token", [&] {
            gpt2_->append(int_arg(id, "token id", 0, gpt2_->config().n_vocab - 1), attention);
            return result(true);
        });
    }

    void reset() { gpt2_->reset(); }
    int length() const { return gpt2_->length(); }

    void set_sampling(double temperature, double top_k, double top_p, double seed) {
        guarded("setting up sampling", [&] {
            SamplingParams p;
            p.temperature = float(temperature);
            p.top_k = int_arg(top_k, "topK", 0, INT32_MAX);
            p.top_p = float(top_p);
            p.seed = uint64_t(seed);
            sampler_ = std::make_unique<Sampler>(p);
        });
    }

    // The next token from the last position's logits of the latest forward/append.
    int sample() {
        return guarded("sampling", [&] {
            if (!sampler_) throw Error("call setSampling() before sample()");
            if (gpt2_->logits_rows() == 0) throw Error("run forward() before sampling");
            const int V = gpt2_->config().n_vocab;
            return sampler_->sample(gpt2_->logits() + size_t(gpt2_->logits_rows() - 1) * V, V);
        });
    }

    GPT2& gpt2() { return *gpt2_; }

private:
    explicit Model(std::unique_ptr<GPT2> g) : gpt2_(std::move(g)) {}

    val result(bool one_row) const {
        const GPT2Config& c = gpt2_->config();
        val o = val::object();
        const int rows = gpt2_->logits_rows();
        o.set("logits", float32_array(gpt2_->logits(), size_t(rows) * c.n_vocab));
        o.set("logitsShape", val::array(std::vector<int>{rows, c.n_vocab}));
        if (gpt2_->attention()) {
            const int q = gpt2_->attention_queries(), k = gpt2_->attention_keys();
            o.set("attention", float32_array(gpt2_->attention(), gpt2_->attention_values()));
            o.set("attentionShape", one_row ? val::array(std::vector<int>{c.n_layer, c.n_head, k})
                                            : val::array(std::vector<int>{c.n_layer, c.n_head, q, k}));
        } else {
            o.set("attention", val::null());
            o.set("attentionShape", val::null());
        }
        return o;
    }

    std::unique_ptr<GPT2> gpt2_;
    std::unique_ptr<Sampler> sampler_;
};

// logits (Float32Array) -> [{id, prob}] of the k most likely tokens
val top_k(val logits, double k) {
    return guarded("ranking tokens", [&] {
        std::vector<float> v = floats_from(logits);
        require(v.size() <= size_t(INT32_MAX), "topK: too many logits");
        val list = val::array();
        for (const TokenProb& t : top_k_probs(v.data(), int(v.size()), int_arg(k, "k", 1, INT32_MAX))) {
            val o = val::object();
            o.set("id", t.id);
            o.set("prob", t.prob);
            list.call<void>("push", o);
        }
        return list;
    });
}

// The streaming converter: feed() safetensors chunks, then finish() -> Uint8Array of the .arcs file.
class ModelConverter {
public:
    // total_bytes: the length of model.safetensors, checked against its header before the output is allocated.
    static ModelConverter* create(std::string config_json, std::string dtype, double total_bytes) {
        return guarded("starting the conversion", [&] {
            require(dtype == "q8" || dtype == "f32", "dtype must be 'q8' or 'f32', got '" + dtype + "'");
            const GPT2Config config = config_from_hf_json(config_json);
            require(total_bytes >= 0 && total_bytes < 9e15 && total_bytes == std::floor(total_bytes),
                    "the length of model.safetensors must be a byte count, got " + number_text(total_bytes));
            return new ModelConverter(config, dtype == "q8" ? DType::Q8 : DType::F32, uint64_t(total_bytes));
        });
    }
    // chunk: Uint8Array, copied into a reused wasm buffer (JavaScript keeps chunks to about a megabyte).
    void feed(val chunk) {
        guarded("converting the checkpoint", [&] {
            const size_t n = buffer_bytes("a checkpoint chunk", uint64_t(chunk["length"].as<double>()));
            if (staging_.size() < n) staging_.resize(n);
            val(emscripten::typed_memory_view(n, staging_.data())).call<void>("set", chunk);
            conv_.feed(staging_.data(), n);
        });
    }
    val finish() {
        return guarded("finishing the conversion", [&] {
            std::vector<uint8_t>& out = conv_.finish();
            return val(emscripten::typed_memory_view(out.size(), out.data())).call<val>("slice");
        });
    }
    std::string stage() const { return conv_.stage(); }
    double bytes_done() const { return double(conv_.bytes_done()); }
    double bytes_total() const { return double(conv_.bytes_total()); }
    double output_bytes() const { return double(conv_.output_bytes()); }

private:
    ModelConverter(const GPT2Config& c, DType t, uint64_t total_bytes) : conv_(c, t, total_bytes) {}
    Converter conv_;
    std::vector<uint8_t> staging_;
};

}  // namespace model_bindings

EMSCRIPTEN_BINDINGS(model) {
    using namespace emscripten;
    using model_bindings::Model;
    using model_bindings::ModelConverter;
    class_<Model>("Model")
        .class_function("fromBytes", &Model::from_bytes, allow_raw_pointers())
        .function("config", &Model::config)
        .function("forward", &Model::forward)
        .function("append", &Model::append)
        .function("reset", &Model::reset)
        .function("length", &Model::length)
        .function("setSampling", &Model::set_sampling)
        .function("sample", &Model::sample);
    function("topK", &model_bindings::top_k);
    class_<ModelConverter>("ModelConverter")
        .class_function("create", &ModelConverter::create, allow_raw_pointers())
        .function("feed", &ModelConverter::feed)
        .function("finish", &ModelConverter::finish)
        .function("stage", &ModelConverter::stage)
        .function("bytesDone", &ModelConverter::bytes_done)
        .function("bytesTotal", &ModelConverter::bytes_total)
        .function("outputBytes", &ModelConverter::output_bytes);
}

// -- sub-block: head analysis and perplexity (heads.h, perplexity.h) --
#include "heads.h"
#include "perplexity.h"

namespace head_bindings {
using namespace arcscope;

// candidates: array of ids to draw from, or null for every id but end-of-text; length <= 0: min(50, n_ctx / 2)
// -> {previousToken, firstToken, induction: Float32Array (L * H), shape: [L, H], length}
val head_scores(model_bindings::Model& m, val candidates, double length_arg, double seed) {
    return guarded("scoring the heads", [&] {
        GPT2& g = m.gpt2();
        const GPT2Config& c = g.config();
        std::vector<int> pool = candidates.isNull() || candidates.isUndefined() ? default_candidates(c)
                                                                                 : token_ids(candidates, c.n_vocab);
        int length = length_arg <= 0 ? std::min(50, c.n_ctx / 2) : int_arg(length_arg, "length", 2, c.n_ctx / 2);
        HeadScores s = analyze_heads(g, pool, length, uint64_t(seed));
        val o = val::object();
        o.set("previousToken", float32_array(s.previous_token.data(), s.previous_token.size()));
        o.set("firstToken", float32_array(s.first_token.data(), s.first_token.size()));
        o.set("induction", float32_array(s.induction.data(), s.induction.size()));
        o.set("shape", val::array(std::vector<int>{s.n_layer, s.n_head}));
        o.set("length", length);
        return o;
    });
}

// ids -> {nll (nats per token), perplexity, predicted}; window <= 0: n_ctx
val perplexity_of(model_bindings::Model& m, val ids, double window) {
    return guarded("measuring perplexity", [&] {
        const GPT2Config& c = m.gpt2().config();
        Perplexity p = perplexity(m.gpt2(), token_ids(ids, c.n_vocab), int_arg(window, "window", 0, c.n_ctx));
        val o = val::object();
        o.set("nll", p.nll);
        o.set("perplexity", p.value());
        o.set("predicted", double(p.predicted));
        return o;
    });
}

}  // namespace head_bindings

EMSCRIPTEN_BINDINGS(model_heads) {
    emscripten::function("headScores", &head_bindings::head_scores);
    emscripten::function("perplexity", &head_bindings::perplexity_of);
}
// -- end sub-block: head analysis --
// ---- end section: model ----

// ---- section: kernels (quant.h, quant_check.h, quant_bench.h) ----
#include "quant.h"
#include "quant_bench.h"
#include "quant_check.h"

namespace kernels {

// Every kernel of this (SIMD128) build against its scalar reference: {cases, q8MaxDiff, q8PortableMaxDiff, f32MaxDiff}.
val check(double seed) {
    return guarded("checking the kernels", [&] {
        arcscope::KernelCheck c = arcscope::check_kernels(uint64_t(seed));
        val o = val::object();
        o.set("isa", std::string(arcscope::kernel_isa()));
        o.set("cases", c.cases);
        o.set("q8MaxDiff", c.q8_max_diff);
        o.set("q8PortableMaxDiff", c.q8_portable_max_diff);
        o.set("f32MaxDiff", c.f32_max_diff);
        o.set("activationMismatches", c.activation_mismatches);
        return o;
    });
}

// {bestMs, medianMs, gops, gbs, weightBytes} of linear_q8/linear_f32 on random (rows, cols) weights and T tokens.
val bench_linear(std::string dtype, double rows, double cols, double T, double reps) {
    return guarded("timing a kernel", [&] {
        arcscope::KernelTiming k = arcscope::bench_linear(dtype.c_str(), int_arg(rows, "rows", 0, 1 << 20),
                                                          int_arg(cols, "cols", 0, 1 << 20), int_arg(T, "T", 1, 4096),
                                                          int_arg(reps, "reps", 1, 1000));
        val o = val::object();
        o.set("bestMs", k.best_ms);
        o.set("medianMs", k.median_ms);
        o.set("gops", k.gops);
        o.set("gbs", k.gbs);
        o.set("weightBytes", double(k.weight_bytes));
        return o;
    });
}

double bench_stream_read(double bytes, double reps) {
    return guarded("timing memory reads", [&] {
        return arcscope::bench_stream_read(arcscope::buffer_bytes("the read benchmark", uint64_t(std::max(0.0, bytes))),
                                           int_arg(reps, "reps", 1, 1000));
    });
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
