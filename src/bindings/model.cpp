// model.cpp: the bindings of the model: loading, forward, sampling, conversion, head analysis and perplexity;
// web/lib/model.js wraps them.
// Every call goes through guarded() (js_values.h), so a C++ Error reaches JavaScript as an Error with its message.
#include "bindings/js_values.h"

#include <memory>
#include "arcscope/convert.h"
#include "arcscope/gpt2.h"
#include "arcscope/heads.h"
#include "arcscope/hooks.h"
#include "arcscope/model_file.h"
#include "arcscope/perplexity.h"
#include "arcscope/sampling.h"

using emscripten::val;
using namespace arcscope::bindings;

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
            std::vector<int> v = prompt(ids);
            gpt2_->forward(v.data(), int(v.size()), attention, all_logits);
            return result(false);
        });
    }

    // ids, names (TransformerLens hook names, hooks.h) -> {logits, logitsShape, cache: {name: {data, shape}}}:
    // one forward pass that records only the names asked for.
    val run_with_cache(val ids, val names, bool all_logits) {
        return guarded("running the model with a cache", [&] {
            std::vector<int> v = prompt(ids);
            const GPT2Config& c = gpt2_->config();
            require(names.isArray(), "names must be an array of hook names, got " + js_description(names));
            std::vector<HookName> hooks;
            const int n = names["length"].as<int>();
            for (int i = 0; i < n; ++i) {
                require(names[i].isString(),
                        "names[" + std::to_string(i) + "] is " + js_description(names[i]) + ", not a hook name");
                hooks.push_back(parse_hook_name(names[i].as<std::string>(), c));
            }
            ActivationCache cache(c, hooks, int(v.size()));
            gpt2_->forward(v.data(), int(v.size()), false, all_logits, &cache);
            val o = result(false);
            val entries = val::object();
            for (const ActivationCache::Entry& e : cache.entries()) {
                val entry = val::object();
                entry.set("data", float32_array(e.data.data(), e.data.size()));
                entry.set("shape", val::array(e.shape));
                entries.set(hook_name(e.hook), entry);
            }
            o.set("cache", entries);
            return o;
        });
    }

    // Every hook name of this model, in the order the pass reaches them.
    val hook_names() const {
        val list = val::array();
        for (const HookName& h : all_hooks(gpt2_->config())) list.call<void>("push", hook_name(h));
        return list;
    }

    // id -> {logits, logitsShape: [1, n_vocab], attention, attentionShape: [L, H, length]}
    val append(const val& id, bool attention) {
        return guarded("appending a token", [&] {
            gpt2_->append(int_arg(id, "token id", 0, gpt2_->config().n_vocab - 1), attention);
            return result(true);
        });
    }

    void reset() { gpt2_->reset(); }
    int length() const { return gpt2_->length(); }

    // Starts a generation (sampling.h's Generator, the loop the CLI runs too): runs the prompt.
    void start_generation(val ids, double max_tokens, double temperature, double top_k, double top_p, double seed) {
        guarded("running the prompt", [&] {
            SamplingParams p;
            p.temperature = float(temperature);
            p.top_k = int_arg(top_k, "topK", 0, INT32_MAX);
            p.top_p = float(top_p);
            require(seed >= 0 && seed <= 9007199254740991.0 && seed == std::floor(seed),
                    "seed must be an integer from 0 to 2^53 - 1, got " + number_text(seed));
            p.seed = uint64_t(seed);
            p.validate();
            generator_.reset();
            generator_ = std::make_unique<Generator>(*gpt2_, token_ids(ids, gpt2_->config().n_vocab),
                                                     int_arg(max_tokens, "maxTokens", 0, INT32_MAX), p);
        });
    }

    // The next token through the KV cache: {id, logits, attention (one row per layer and head, if asked), ...}, or
    // {id: null, stop: 'max_tokens' | 'end_of_text' | 'context_full'} once the generation has ended.
    val generation_step(bool attention) {
        return guarded("generating a token", [&] {
            if (!generator_) throw Error("call startGeneration() before generationStep()");
            int id = 0;
            if (!generator_->step(id, attention)) {
                val o = val::object();
                o.set("id", val::null());
                o.set("stop", std::string(stop_reason_name(generator_->stop())));
                return o;
            }
            val o = result(true);
            o.set("id", id);
            return o;
        });
    }

    GPT2& gpt2() { return *gpt2_; }

private:
    explicit Model(std::unique_ptr<GPT2> g) : gpt2_(std::move(g)) {}

    // Ids checked against the vocabulary and the context.
    std::vector<int> prompt(const val& ids) const {
        std::vector<int> v = token_ids(ids, gpt2_->config().n_vocab);
        require(v.size() <= size_t(gpt2_->config().n_ctx), "sequence of " + std::to_string(v.size()) +
                                                               " tokens is longer than the model's context (n_ctx " +
                                                               std::to_string(gpt2_->config().n_ctx) + ")");
        return v;
    }

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
    std::unique_ptr<Generator> generator_;  // the generation under way, if any
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
        .function("runWithCache", &Model::run_with_cache)
        .function("hookNames", &Model::hook_names)
        .function("append", &Model::append)
        .function("reset", &Model::reset)
        .function("length", &Model::length)
        .function("startGeneration", &Model::start_generation)
        .function("generationStep", &Model::generation_step);
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

namespace head_bindings {
using namespace arcscope;

// candidates: array of ids to draw from, or null for every id but end-of-text; length <= 0: min(50, n_ctx / 2)
// -> {previousToken, firstToken, induction: Float32Array (L * H), shape: [L, H], length}
val head_scores(model_bindings::Model& m, val candidates, double length_arg, double seed) {
    return guarded("scoring the heads", [&] {
        GPT2& g = m.gpt2();
        const GPT2Config& c = g.config();
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
