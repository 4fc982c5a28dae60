// model.h: the bindings' Model (a loaded .arcs file with its KV cache and sampler), shared by the binding files of
// the model (model.cpp) and of interventions (interventions.cpp). Bindings only.
#pragma once
#include <cstdlib>
#include <memory>
#include <vector>

#include "arcscope/analysis/attention_view.h"
#include "arcscope/analysis/sampling.h"
#include "arcscope/core/json.h"
#include "arcscope/core/sizes.h"
#include "arcscope/formats/model_file.h"
#include "arcscope/model/decoder.h"
#include "arcscope/model/hooks.h"
#include "arcscope/model/kept_queries.h"
#include "arcscope/tokenizer/hf_tokenizer.h"
#include "js_values.h"

namespace model_bindings {
using namespace arcscope;
using namespace arcscope::bindings;  // guarded, token_ids, float32_array: the bindings' helpers

// ActivationCache's entries (hooks.h), written straight into JavaScript Float32Arrays as the pass produces each
// chunk's rows: the values are never also held in wasm memory, which would grow by all of them and never shrink
// (every layer's q and k of 1,024 tokens of GPT-2 small are 75 MB).
class JSCache : public Hooks {
public:
    // Positions [first, first + T) of the pass.
    JSCache(const ModelConfig& c, const std::vector<HookName>& names, int T, int first) : T_(T), first_(first) {
        for (HookSlot& s : hook_slots(c, names, T, first))
            entries_.push_back(
                {s.hook, std::move(s.shape), s.elements, val::global("Float32Array").new_(double(s.elements))});
    }
    bool wants(const HookName& hook) const override {
        for (const Entry& e : entries_)
            if (e.hook == hook) return true;
        return false;
    }
    bool changes_values() const override { return false; }
    void visit(const HookSite& site, float* values) override {
        for (Entry& e : entries_) {
            if (!(e.hook == site.hook)) continue;
            const HookRows to = hook_rows(site, T_, e.size, first_);
            if (site.stride == site.width && to.length == size_t(site.width)) {  // the rows are contiguous both sides
                e.data.call<void>("set", val(emscripten::typed_memory_view(size_t(site.rows) * site.width, values)),
                                  double(to.first * to.length));
                continue;
            }
            for (int r = 0; r < site.rows; ++r)
                e.data.call<void>(
                    "set", val(emscripten::typed_memory_view(size_t(site.width), values + size_t(r) * site.stride)),
                    double((to.first + r) * to.length));
        }
    }
    // {name: {data, shape}}
    val entries() const {
        val o = val::object();
        for (const Entry& e : entries_) {
            val entry = val::object();
            entry.set("data", e.data);
            entry.set("shape", val::array(e.shape));
            o.set(text_val(hook_name(e.hook)), entry);
        }
        return o;
    }

private:
    struct Entry {
        HookName hook;
        std::vector<int> shape;
        size_t size;
        val data;
    };
    int T_, first_;
    std::vector<Entry> entries_;
};

// A model file copied once into wasm memory and run in place, with its KV cache and sampler.
class Model {
public:
    // bytes: Uint8Array of an .arcs file. The one copy: straight from the JS array into an aligned wasm buffer.
    static Model* from_bytes(val bytes) {
        return guarded("loading the model", [&] {
            const size_t n = buffer_bytes("the model file", uint64_t(bytes["length"].as<double>()));
            auto buffer = std::make_shared<AlignedBytes>(n);
            val(emscripten::typed_memory_view(n, buffer->data)).call<void>("set", bytes);
            return over(ModelFile::parse(buffer->data, n), buffer);
        });
    }
    // A validated file that `owner` keeps alive (from_bytes' and the loader's buffer, the converter's pages).
    static Model* over(const ModelFile& file, std::shared_ptr<const void> owner) {
        return new Model(std::make_unique<Decoder>(file, std::move(owner)));
    }

    // The file the model runs on, in the pages it is held in (one, or the converter's header page and one a
    // tensor): views into wasm memory, to be copied out before anything else runs (a grown memory detaches them).
    double file_page_count() const { return double(decoder_->file().pages().size()); }
    val file_page(double i) const {
        return guarded("reading the model file", [&] {
            const std::vector<ByteSpan>& pages = decoder_->file().pages();
            require(i >= 0 && i < double(pages.size()) && i == std::floor(i), "no such page of the model file");
            const ByteSpan& p = pages[size_t(i)];
            return val(emscripten::typed_memory_view(p.size, p.data));
        });
    }

    // The tokenizer the file carries (config's tokenizer 'carried'), read from its tokenizer.json where it lies in
    // wasm memory: the text never crosses into JavaScript.
    HfTokenizer* carried_tokenizer() const {
        return guarded("reading the tokenizer the model carries", [&] {
            const ModelFile& f = decoder_->file();
            require(!f.tokenizer_json().empty(), "this model carries no tokenizer");
            return new HfTokenizer(HfTokenizer::from_json(f.tokenizer_json(), f.tokenizer_config()));
        });
    }

    val config() const {
        return guarded("reading the model's config", [&] {
            const ModelConfig& c = decoder_->config();
            val o = val::object();
            o.set("architecture", text_val(arch_name(c.arch)));
            o.set("n_layer", c.n_layer);
            o.set("n_head", c.n_head);
            o.set("n_kv_head", c.kv_heads());
            o.set("d_head", c.head_dim());
            o.set("n_embd", c.n_embd);
            o.set("d_mlp", c.mlp_width());
            o.set("n_ctx", c.n_ctx);
            o.set("n_vocab", c.n_vocab);
            o.set("norm", text_val(norm_name(c.norm)));
            o.set("norm_eps", std::strtod(float_text(c.norm_eps).c_str(), nullptr));  // 1e-5, not 9.99999975e-6
            o.set("positions", text_val(positions_name(c.positions)));
            if (c.rotary()) {
                o.set("rotary_dim", c.rotary_dim);
                o.set("rope_theta", c.rope_theta);
                o.set("rope_scaling", text_val(rope_scaling_name(c.rope_scaling.kind)));
            }
            o.set("mlp", text_val(mlp_name(c.mlp)));
            o.set("parallel_residual", c.parallel_residual);
            o.set("tied_head", c.tie_word_embeddings);
            o.set("qk_norm", c.qk_norm);
            // The hooks attentionPattern takes: hook_rot_q and hook_rot_k where positions rotate.
            o.set("patternHooks", val::array(c.rotary() ? std::vector<std::string>{"attn.hook_rot_q", "attn.hook_rot_k"}
                                                        : std::vector<std::string>{"attn.hook_q", "attn.hook_k"}));
            o.set("dtype", text_val(dtype_name(decoder_->weight_type())));
            const Precision precision = dtype_precision(decoder_->weight_type());  // q16: 14 bits for GPT-2, else 16
            o.set("weightBits", precision.weight_bits);
            o.set("activationBits", precision.activation_bits);
            o.set("fileBytes", double(decoder_->file().size()));
            o.set("checksum", text_val(std::to_string(decoder_->file().checksum())));
            // Whose tokenizer reads its text: GPT-2's built-in one, the one the file carries, or none (ids only).
            o.set("tokenizer", text_val(c.is_plain_gpt2()                           ? "gpt2"
                                        : decoder_->file().tokenizer_json().empty() ? "none"
                                                                                    : "carried"));
            o.set("kvCache", text_val(kv_type_name(decoder_->kv_type())));
            return o;
        });
    }

    // ids -> {logits, logitsShape: [rows, n_vocab], attention, attentionShape: [L, H, T, T]}
    val forward(val ids, bool attention, bool all_logits) {
        return guarded("running the model", [&] {
            std::vector<int> v = prompt(ids);
            decoder_->forward(v.data(), int(v.size()),
                              ForwardOptions().with_attention(attention).with_all_logits(all_logits));
            return result(false);
        });
    }

    // ids, names (TransformerLens hook names, hooks.h) -> {first, logits, logitsShape, cache: {name: {data, shape}}}:
    // one forward pass that records only the names asked for. With reuse n > 0, up to n of the first positions are
    // kept from the KV cache where the last passes left these very tokens (Decoder::forward_from), and the result
    // covers positions first.. only.
    val run_with_cache(val ids, val names, bool all_logits, val reuse) {
        return guarded("running the model with a cache", [&] {
            std::vector<int> v = prompt(ids);
            const ModelConfig& c = decoder_->config();
            const val list = plain(names, "names");
            require(list.isArray(), "names must be an array of hook names, got " + js_description(list));
            std::vector<HookName> hooks;
            const int n = list["length"].as<int>();
            for (int i = 0; i < n; ++i) {
                require(list[i].isString(),
                        "names[" + std::to_string(i) + "] is " + js_description(list[i]) + ", not a hook name");
                hooks.push_back(parse_hook_name(js_string(list[i]), c));
            }
            const int T = int(v.size());
            const int most = int_arg(reuse, "reuse", 0, c.n_ctx);
            const int first = std::min(most, decoder_->cached_prefix(v.data(), T));
            JSCache cache(c, hooks, T - first, first);
            decoder_->forward_from(first, v.data(), T, ForwardOptions().with_all_logits(all_logits).with_hooks(&cache));
            val o = result(false);
            o.set("first", first);
            o.set("cache", cache.entries());
            return o;
        });
    }

    // q, k: one layer's queries and keys as its hooks record them (config's patternHooks: hook_q and hook_k, or
    // hook_rot_q and hook_rot_k; Float32Arrays, T x n_head d_head and T x n_kv_head d_head) -> Float32Array of
    // head's (T, T) probabilities, or with head null every head's (n_head, T, T): the bits of forward()'s capture.
    val attention_pattern(val q, val k, val head) const {
        return guarded("computing an attention pattern", [&] {
            const ModelConfig& c = decoder_->config();
            const int T = queries_and_keys(q, k);
            const bool all = head.isNull() || head.isUndefined();
            const int h0 = all ? 0 : int_arg(head, "head", 0, c.n_head - 1);
            const int heads = all ? c.n_head : 1;
            const std::vector<float> qv = floats_from(q), kv = floats_from(k);
            std::vector<float> out(buffer_elements("attention pattern (heads x T x T)",
                                                   {uint64_t(heads), uint64_t(T), uint64_t(T)}, sizeof(float)));
            for (int h = 0; h < heads; ++h)
                decoder_->attention_pattern(qv.data(), kv.data(), T, h0 + h, out.data() + size_t(h) * T * T);
            return float32_array(out.data(), out.size());
        });
    }

    // One head of the same, max-pooled to size x size (Decoder::attention_thumbnail), without its T x T.
    val attention_thumbnail(val q, val k, val head, val size) const {
        return guarded("computing an attention thumbnail", [&] {
            const int T = queries_and_keys(q, k);
            const int h = int_arg(head, "head", 0, decoder_->config().n_head - 1), s = int_arg(size, "size", 1, T);
            const std::vector<float> qv = floats_from(q), kv = floats_from(k);
            std::vector<float> out(size_t(s) * s);
            decoder_->attention_thumbnail(qv.data(), kv.data(), T, h, s, out.data());
            return float32_array(out.data(), out.size());
        });
    }

    // A holder of this model's queries and keys for runKeepingQueries (kept_queries.h), empty; JavaScript deletes it.
    KeptQueries* keep_queries() const {
        return guarded("keeping queries and keys", [&] { return new KeptQueries(decoder_->config()); });
    }

    // ids, kept, reuse -> {logits (the last position's), logitsShape, first}: one pass that writes every layer's
    // queries and keys into kept, in place, from position first on. As run_with_cache, up to reuse leading positions
    // are kept from the KV cache where the last passes left these very tokens, and from kept's own rows, which must
    // be those of the same leading ids (kept holds another text's rows past its prefix shared with ids).
    val run_keeping_queries(val ids, KeptQueries& kept, val reuse) {
        return guarded("running the model", [&] {
            std::vector<int> v = prompt(ids);
            kept.check_model(decoder_->config());
            const int T = int(v.size());
            const int most = std::min(int_arg(reuse, "reuse", 0, decoder_->config().n_ctx), kept.length());
            const int first = std::min(most, decoder_->cached_prefix(v.data(), T));
            kept.begin(first, T);
            decoder_->forward_from(first, v.data(), T, ForwardOptions().with_hooks(&kept));
            kept.finish();
            val o = result(false);
            o.set("first", first);
            return o;
        });
    }

    // kept's (T, T) attention of layer and head, each an index or 'mean' / 'max' over all of them (attention_view.h:
    // layers first, then heads, as viewMatrix takes them) -> Float32Array
    val kept_attention(const KeptQueries& kept, val layer, val head) const {
        return guarded("computing attention", [&] {
            const ModelConfig& c = decoder_->config();
            const ViewChoice l = view_choice(layer, "layer", c.n_layer), h = view_choice(head, "head", c.n_head);
            const int T = kept.length();
            std::vector<float> out(buffer_elements("attention (T x T)", {uint64_t(T), uint64_t(T)}, sizeof(float)));
            attention_view(*decoder_, kept, l, h, out.data());
            return float32_array(out.data(), out.size());
        });
    }

    // One head of kept's layer max-pooled to size x size (Decoder::attention_thumbnail) -> Float32Array
    val kept_thumbnail(const KeptQueries& kept, val layer, val head, val size) const {
        return guarded("computing an attention thumbnail", [&] {
            const ModelConfig& c = decoder_->config();
            const int l = int_arg(layer, "layer", 0, c.n_layer - 1), h = int_arg(head, "head", 0, c.n_head - 1);
            const int s = int_arg(size, "size", 1, kept.length());
            std::vector<float> out(size_t(s) * s);
            attention_view_thumbnail(*decoder_, kept, l, h, s, out.data());
            return float32_array(out.data(), out.size());
        });
    }

    // A layer or head of a view: an index below n, or 'mean' or 'max' over all of them.
    static ViewChoice view_choice(const val& v, const char* what, int n) {
        if (v.isString()) {
            const std::string word = js_string(v, what);
            if (word == "mean") return {ViewChoice::Kind::Mean, 0};
            if (word == "max") return {ViewChoice::Kind::Max, 0};
        }
        if (v.isNumber()) return {ViewChoice::Kind::One, int_arg(v, what, 0, n - 1)};
        throw Error(std::string(what) + " must be an integer from 0 to " + std::to_string(n - 1) +
                    ", 'mean' or 'max'; got " + js_description(v));
    }

    // q and k: a layer's queries and keys (patternHooks' data), checked -> T.
    int queries_and_keys(const val& q, const val& k) const {
        const ModelConfig& c = decoder_->config();
        const val f32 = val::global("Float32Array");
        for (const val* v : {&q, &k})
            require(v->instanceof (f32), std::string(v == &q ? "q" : "k") +
                                             " must be a Float32Array (a layer's queries or keys hook data), got " +
                                             js_description(*v));
        const size_t n = q["length"].as<size_t>(), m = k["length"].as<size_t>();
        const size_t Q = size_t(c.q_width()), K = size_t(c.kv_width());
        require(n > 0 && n % Q == 0 && n / Q <= size_t(c.n_ctx) && m == n / Q * K,
                "q and k must hold T x " + std::to_string(Q) + " (n_head x d_head) and T x " + std::to_string(K) +
                    " (n_kv_head x d_head) numbers for T up to " + std::to_string(c.n_ctx) + ", got " +
                    std::to_string(n) + " and " + std::to_string(m));
        return int(n / Q);
    }

    // Every hook name of this model, in the order the pass reaches them.
    val hook_names() const {
        return guarded("listing the hooks", [&] {
            val list = val::array();
            for (const HookName& h : all_hooks(decoder_->config())) list.call<void>("push", text_val(hook_name(h)));
            return list;
        });
    }

    // id -> {logits, logitsShape: [1, n_vocab], attention, attentionShape: [L, H, length]}
    val append(const val& id, bool attention) {
        return guarded("appending a token", [&] {
            decoder_->append(int_arg(id, "token id", 0, decoder_->config().n_vocab - 1),
                             ForwardOptions().with_attention(attention));
            return result(true);
        });
    }

    void reset() { decoder_->reset(); }
    // 'f32' or 'f16' (kv_cache.h); empties the cache.
    void set_kv_cache(const val& type) {
        guarded("choosing the KV cache", [&] {
            require(type.isString(), "kvCache must be 'f32' or 'f16', got " + js_description(type));
            decoder_->set_kv_type(parse_kv_type(js_string(type, "the KV cache type")));
        });
    }
    int length() const { return decoder_->length(); }

    // Starts a generation (sampling.h's Generator, the loop the CLI runs too): runs the prompt.
    // end_of_text: the id that ends the text (the tokenizer's EOS), or -1 for none.
    void start_generation(val ids, double max_tokens, double temperature, double top_k, double top_p, double seed,
                          double end_of_text) {
        guarded("running the prompt", [&] {
            SamplingParams p;
            p.temperature = float(temperature);
            p.top_k = int_arg(top_k, "topK", 0, INT32_MAX);
            p.top_p = float(top_p);
            require(seed >= 0 && seed <= 9007199254740991.0 && seed == std::floor(seed),
                    "seed must be an integer from 0 to 2^53 - 1, got " + number_text(seed));
            p.seed = uint64_t(seed);
            p.end_of_text = int_arg(end_of_text, "endOfText", -1, INT32_MAX);
            p.validate();
            generator_.reset();
            generator_ = std::make_unique<Generator>(*decoder_, token_ids(ids, decoder_->config().n_vocab),
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
                o.set("stop", val(stop_reason_name(generator_->stop())));
                return o;
            }
            val o = result(true);
            o.set("id", id);
            return o;
        });
    }

    Decoder& decoder() { return *decoder_; }

    // Ids checked against the vocabulary and the context.
    std::vector<int> prompt(const val& ids) const {
        std::vector<int> v = token_ids(ids, decoder_->config().n_vocab);
        require(v.size() <= size_t(decoder_->config().n_ctx), "sequence of " + std::to_string(v.size()) +
                                                                  " tokens is longer than the model's context (n_ctx " +
                                                                  std::to_string(decoder_->config().n_ctx) + ")");
        return v;
    }

    // The last pass's {logits, logitsShape, attention, attentionShape}.
    val result(bool one_row) const;

private:
    explicit Model(std::unique_ptr<Decoder> g) : decoder_(std::move(g)) {}

    std::unique_ptr<Decoder> decoder_;
    std::unique_ptr<Generator> generator_;  // the generation under way, if any
};

inline val Model::result(bool one_row) const {
    const ModelConfig& c = decoder_->config();
    val o = val::object();
    const int rows = decoder_->logits_rows();
    o.set("logits", float32_array(decoder_->logits(), size_t(rows) * c.n_vocab));
    o.set("logitsShape", val::array(std::vector<int>{rows, c.n_vocab}));
    if (decoder_->attention()) {
        const int q = decoder_->attention_queries(), k = decoder_->attention_keys();
        o.set("attention", float32_array(decoder_->attention(), decoder_->attention_values()));
        o.set("attentionShape", one_row ? val::array(std::vector<int>{c.n_layer, c.n_head, k})
                                        : val::array(std::vector<int>{c.n_layer, c.n_head, q, k}));
    } else {
        o.set("attention", val::null());
        o.set("attentionShape", val::null());
    }
    return o;
}

}  // namespace model_bindings
