// model.cpp: the bindings of the model: loading, forward, sampling, conversion, head analysis and perplexity;
// web/lib/engine/ wraps them (model.js, load-stream.js, convert.js).
// Every call goes through guarded() (js_values.h), so a C++ Error reaches JavaScript as an Error with its message.
#include "model.h"

#include <algorithm>
#include <memory>

#include "arcscope/analysis/heads.h"
#include "arcscope/analysis/perplexity.h"
#include "arcscope/core/threads.h"
#include "arcscope/formats/convert.h"
#include "arcscope/formats/default_format.h"

using emscripten::val;
using namespace arcscope::bindings;

namespace model_bindings {
using namespace arcscope;

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

// The streaming converter: feed() safetensors chunks (of model.safetensors, or of each shard after beginShard()),
// then finish() -> Uint8Array of the .arcs file, or finishModel() -> the Model, run on the converted pages in place.
class ModelConverter {
public:
    // total_bytes: the length of model.safetensors, checked against its header before the output is allocated.
    static ModelConverter* create(val config_json, val dtype_name, double total_bytes) {
        return guarded("starting the conversion", [&] {
            const ModelConfig config = config_from_hf_json(js_string(config_json, "config.json"));
            // No dtype: the default format for this shape (default_format.h).
            const DType dtype = dtype_name.isUndefined() ? default_weight_type(config)
                                                         : parse_dtype(js_string(dtype_name, "dtype"), "dtype");
            require(total_bytes >= 0 && total_bytes < 9e15 && total_bytes == std::floor(total_bytes),
                    "the length of model.safetensors must be a byte count, got " + number_text(total_bytes));
            return new ModelConverter(config, dtype, uint64_t(total_bytes));
        });
    }
    // A sharded checkpoint: index_json is model.safetensors.index.json's text. Then, for each name of shards() in
    // turn, beginShard(name, its length) and feed() its bytes; finish() after the last.
    static ModelConverter* create_sharded(val config_json, val dtype_name, val index_json) {
        return guarded("starting the conversion", [&] {
            const ModelConfig config = config_from_hf_json(js_string(config_json, "config.json"));
            const DType dtype = dtype_name.isUndefined() ? default_weight_type(config)
                                                         : parse_dtype(js_string(dtype_name, "dtype"), "dtype");
            return new ModelConverter(config, dtype, js_string(index_json, "model.safetensors.index.json"));
        });
    }
    // The shard files to feed, in order (an array of names; empty for one model.safetensors).
    val shards() const {
        return guarded("listing the shards", [&] {
            val list = val::array();
            for (const std::string& name : conv_.shards()) list.call<void>("push", text_val(name));
            return list;
        });
    }
    void begin_shard(val name, double bytes) {
        guarded("converting the checkpoint", [&] {
            require(bytes > 0 && bytes < 9e15 && bytes == std::floor(bytes),
                    "the length of a shard must be a positive byte count, got " + number_text(bytes));
            conv_.begin_shard(js_string(name, "shard name"), uint64_t(bytes));
        });
    }
    // config.json's text -> the format a conversion gets without a dtype ("q16" or "q8": default_format.h).
    static val default_dtype(val config_json) {
        return guarded("reading config.json", [&] {
            return text_val(
                dtype_name(default_weight_type(config_from_hf_json(js_string(config_json, "config.json")))));
        });
    }
    // config.json's text and a dtype (or undefined: the default) -> the bytes of the .arcs file the converter writes
    // for it, before any tokenizer it carries (default_format.h): what a loader shows before a download.
    static double converted_bytes(val config_json, val dtype_name) {
        return guarded("reading config.json", [&] {
            const ModelConfig config = config_from_hf_json(js_string(config_json, "config.json"));
            const DType dtype = dtype_name.isUndefined() ? default_weight_type(config)
                                                         : parse_dtype(js_string(dtype_name, "dtype"), "dtype");
            return double(converted_file_bytes(config, dtype));
        });
    }
    // The tokenizer the file is to carry, before the first chunk: tokenizer.json's and tokenizer_config.json's
    // texts (either may be null or undefined: not carried).
    void carry_tokenizer(val json, val config) {
        guarded("starting the conversion", [&] {
            auto text = [](const val& v, const char* what) {
                return v.isNull() || v.isUndefined() ? std::string() : js_string(v, what);
            };
            conv_.carry_tokenizer({text(json, "tokenizer.json"), text(config, "tokenizer_config.json")});
        });
    }
    // chunk: Uint8Array, copied into a reused wasm buffer (JavaScript keeps chunks to about a megabyte).
    void feed(val chunk) {
        guarded("converting the checkpoint", [&] {
            require(chunk.instanceof (val::global("Uint8Array")),
                                     "a checkpoint chunk must be a Uint8Array, got " + js_description(chunk));
            const size_t n = buffer_bytes("a checkpoint chunk", uint64_t(chunk["length"].as<double>()));
            if (staging_.size() < n) staging_.resize(n);
            val(emscripten::typed_memory_view(n, staging_.data())).call<void>("set", chunk);
            conv_.feed(staging_.data(), n);
        });
    }
    val finish() {
        return guarded("finishing the conversion", [&] {
            // Page by page, each freed once copied: wasm memory shrinks as the JavaScript copy grows.
            require(!handed_over_, "finish() was already called: the converted file was handed over");
            PagedBytes& out = conv_.finish();
            handed_over_ = true;
            val file = val::global("Uint8Array").new_(double(out.size()));
            double at = 0;
            for (size_t i = 0; i < out.page_count(); ++i) {
                file.call<void>("set", val(emscripten::typed_memory_view(out.page_size(i), out.page(i))), at);
                at += double(out.page_size(i));
                out.release(i);
            }
            return file;
        });
    }
    // The converted file as a model, run on the converter's pages where they are: no copy, so converting a model
    // holds its size in wasm memory and not twice that. The checksum was summed over these pages by finish().
    Model* finish_model() {
        return guarded("finishing the conversion", [&] {
            require(!handed_over_, "finish() was already called: the converted file was handed over");
            auto pages = std::make_shared<PagedBytes>(std::move(conv_.finish()));
            handed_over_ = true;
            return Model::over(ModelFile::parse_pages(pages->spans(), /*verify_checksum=*/false), pages);
        });
    }
    val stage() const { return text_val(conv_.stage()); }
    double bytes_done() const { return double(conv_.bytes_done()); }
    double bytes_total() const { return double(conv_.bytes_total()); }
    double output_bytes() const { return double(conv_.output_bytes()); }
    double allocated_bytes() const { return double(conv_.allocated_bytes()); }

private:
    ModelConverter(const ModelConfig& c, DType t, uint64_t total_bytes) : conv_(c, t, total_bytes) {}
    ModelConverter(const ModelConfig& c, DType t, const std::string& index_json)
        : conv_(c, t, std::string_view(index_json)) {}
    Converter conv_;
    std::vector<uint8_t> staging_;
    bool handed_over_ = false;
};

// An .arcs file written into one wasm buffer as its bytes arrive (a download, a cached copy, a picked file), then
// loaded where it is: the page never holds the whole file as well. JavaScript writes each chunk straight into the
// buffer at address() (HEAPU8.set: one copy, no call into wasm a chunk), which stays put until finish().
class ModelLoader {
public:
    static ModelLoader* create(double total_bytes) {
        return guarded("loading the model", [&] {
            require(total_bytes > 0 && total_bytes < 9e15 && total_bytes == std::floor(total_bytes),
                    "the model file's length must be a positive byte count, got " + number_text(total_bytes));
            return new ModelLoader(buffer_bytes("the model file", uint64_t(total_bytes)));
        });
    }
    double address() const { return buffer_ ? double(reinterpret_cast<uintptr_t>(buffer_->data)) : 0; }
    // Sums the checksum over the first `written` bytes while the next ones are on their way (RunningChecksum).
    void sum(double written) {
        guarded("loading the model", [&] {
            require(buffer_ && written >= 0 && written <= double(buffer_->size), "sum(): no such part of the file");
            checksum_.add(buffer_->data, size_t(written));
        });
    }
    // written: how many bytes JavaScript wrote, which must be the whole file.
    Model* finish(double written) {
        return guarded("loading the model", [&] {
            require(buffer_ != nullptr, "finish() was already called: the model was handed over");
            require(written == double(buffer_->size), "truncated: the model file ended after " + number_text(written) +
                                                          " of its " + std::to_string(buffer_->size) + " bytes");
            std::shared_ptr<AlignedBytes> buffer = std::move(buffer_);
            return Model::over(ModelFile::parse_summed(buffer->data, buffer->size, checksum_), buffer);
        });
    }

private:
    explicit ModelLoader(size_t n) : buffer_(std::make_shared<AlignedBytes>(n)) {}
    std::shared_ptr<AlignedBytes> buffer_;
    RunningChecksum checksum_;
};

}  // namespace model_bindings

EMSCRIPTEN_BINDINGS(model) {
    using namespace emscripten;
    using model_bindings::Model;
    using model_bindings::ModelConverter;
    using model_bindings::ModelLoader;
    class_<Model>("Model")
        .class_function("fromBytes", &Model::from_bytes, allow_raw_pointers())
        .function("config", &Model::config)
        .function("carriedTokenizer", &Model::carried_tokenizer, allow_raw_pointers())
        .function("forward", &Model::forward)
        .function("runWithCache", &Model::run_with_cache)
        .function("hookNames", &Model::hook_names)
        .function("attentionPattern", &Model::attention_pattern)
        .function("attentionThumbnail", &Model::attention_thumbnail)
        .function("keepQueries", &Model::keep_queries, allow_raw_pointers())
        .function("runKeepingQueries", &Model::run_keeping_queries)
        .function("keptAttention", &Model::kept_attention)
        .function("keptThumbnail", &Model::kept_thumbnail)
        .function("append", &Model::append)
        .function("reset", &Model::reset)
        .function("setKVCache", &Model::set_kv_cache)
        .function("filePageCount", &Model::file_page_count)
        .function("filePage", &Model::file_page)
        .function("length", &Model::length)
        .function("startGeneration", &Model::start_generation)
        .function("generationStep", &Model::generation_step);
    // An analysis's queries and keys in the engine (kept_queries.h), made by Model.keepQueries.
    class_<arcscope::KeptQueries>("KeptQueries")
        .function("length", &arcscope::KeptQueries::length)
        .function("bytes", optional_override([](const arcscope::KeptQueries& k) { return double(k.bytes()); }));
    function("topK", &model_bindings::top_k);
    // The worker threads (threads.h): 1 in the plain module, up to the pool's size in the threaded one.
    function("setThreads", &arcscope::set_threads);
    function("threads", &arcscope::threads);
    class_<ModelConverter>("ModelConverter")
        .class_function("create", &ModelConverter::create, allow_raw_pointers())
        .class_function("createSharded", &ModelConverter::create_sharded, allow_raw_pointers())
        .class_function("defaultDtype", &ModelConverter::default_dtype)
        .class_function("convertedBytes", &ModelConverter::converted_bytes)
        .function("shards", &ModelConverter::shards)
        .function("beginShard", &ModelConverter::begin_shard)
        .function("carryTokenizer", &ModelConverter::carry_tokenizer)
        .function("feed", &ModelConverter::feed)
        .function("finish", &ModelConverter::finish)
        .function("finishModel", &ModelConverter::finish_model, allow_raw_pointers())
        .function("stage", &ModelConverter::stage)
        .function("bytesDone", &ModelConverter::bytes_done)
        .function("bytesTotal", &ModelConverter::bytes_total)
        .function("outputBytes", &ModelConverter::output_bytes)
        .function("allocatedBytes", &ModelConverter::allocated_bytes);
    class_<ModelLoader>("ModelLoader")
        .class_function("create", &ModelLoader::create, allow_raw_pointers())
        .function("address", &ModelLoader::address)
        .function("sum", &ModelLoader::sum)
        .function("finish", &ModelLoader::finish, allow_raw_pointers());
}

namespace head_bindings {
using namespace arcscope;

// candidates: array of ids to draw from, or null for every id but end-of-text; length <= 0: min(50, n_ctx / 2)
// -> {previousToken, firstToken, induction: Float32Array (L * H), shape: [L, H], length}
val head_scores(model_bindings::Model& m, val candidates, double length_arg, double seed) {
    return guarded("scoring the heads", [&] {
        Decoder& g = m.decoder();
        const ModelConfig& c = g.config();
        std::vector<int> pool = candidates.isNull() || candidates.isUndefined()
                                    ? default_candidates(c)
                                    : token_ids(candidates, c.n_vocab, "candidates");
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
        const ModelConfig& c = m.decoder().config();
        Perplexity p = perplexity(m.decoder(), token_ids(ids, c.n_vocab), int_arg(window, "window", 0, c.n_ctx));
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
