// decoder.cpp: the forward pass of a decoder-only transformer, one for every architecture: the config's choices
// (model_config.h) pick the norm, the positions, the attention's grouping, the MLP and the residual layout.
#include "arcscope/model/decoder.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "arcscope/core/error.h"
#include "arcscope/core/rope.h"
#include "arcscope/core/sizes.h"
#include "arcscope/core/threads.h"
#include "layers.h"

namespace arcscope {

namespace {

static_assert(KVCache::kPad == kLanes, "K rows are padded for the score loop's blocks");

template <class V>
void grow(V& v, size_t n) {
    if (v.size() < n) v.resize(n);
}

Linear matrix(const ModelFile& f, const std::string& name, const float* bias) {
    const TensorEntry& t = f.tensor(name);
    Linear lin;
    lin.type = t.type;
    lin.rows = t.rows;
    lin.cols = t.cols;
    lin.bias = bias;
    if (t.type != DType::F32) lin.q = q_view(t.type, t.data, t.size, t.rows, t.cols);
    else lin.w = reinterpret_cast<const float*>(t.data);
    return lin;
}

const float* vec(const ModelFile& f, const std::string& name) {
    return reinterpret_cast<const float*>(f.tensor(name).data);
}

// A vector the architecture may not have: null then.
const float* vec_if(bool present, const ModelFile& f, const std::string& name) {
    return present ? vec(f, name) : nullptr;
}

}  // namespace

void Linear::apply(float* out, const float* x, int T, bool with_bias) const {
    const float* b = with_bias ? bias : nullptr;
    if (type != DType::F32) linear_q(out, x, T, q, b);
    else linear_f32(out, x, T, w, rows, cols, b);
}

void Linear::row(int r, float* out) const {
    if (type != DType::F32) q_dequantize_row(q, r, out);
    else std::copy(w + size_t(r) * cols, w + size_t(r + 1) * cols, out);
}

Decoder::Decoder(const ModelFile& file, std::shared_ptr<const void> owner)
    : config_(file.config()), weight_type_(file.weight_type()), file_(file), owner_(std::move(owner)) {
    for (const ByteSpan& page : file.pages())
        require(reinterpret_cast<uintptr_t>(page.data) % 4 == 0, "model bytes must be 4-byte aligned");
    const ModelConfig& c = config_;
    const bool layernorm = c.norm == NormKind::layernorm;
    wte_ = matrix(file, "wte.weight", nullptr);
    if (!c.rotary()) wpe_ = matrix(file, "wpe.weight", nullptr);
    if (!c.tie_word_embeddings) {
        lm_head_ = matrix(file, "lm_head.weight", nullptr);
        head_ = &lm_head_;
    }
    for (int l = 0; l < c.n_layer; ++l) {
        std::string p = "h." + std::to_string(l) + ".";
        LayerWeights w{};
        w.ln_1_w = vec(file, p + "ln_1.weight");
        w.ln_1_b = vec_if(layernorm, file, p + "ln_1.bias");
        w.c_attn = matrix(file, p + "attn.c_attn.weight", vec_if(c.qkv_bias, file, p + "attn.c_attn.bias"));
        w.q_norm = vec_if(c.qk_norm, file, p + "attn.q_norm.weight");
        w.k_norm = vec_if(c.qk_norm, file, p + "attn.k_norm.weight");
        w.attn_proj = matrix(file, p + "attn.c_proj.weight", vec_if(c.o_bias, file, p + "attn.c_proj.bias"));
        w.ln_2_w = vec(file, p + "ln_2.weight");
        w.ln_2_b = vec_if(layernorm, file, p + "ln_2.bias");
        w.c_fc = matrix(file, p + "mlp.c_fc.weight", vec_if(c.mlp_bias, file, p + "mlp.c_fc.bias"));
        if (c.mlp == MlpKind::swiglu)
            w.gate = matrix(file, p + "mlp.gate.weight", vec_if(c.mlp_bias, file, p + "mlp.gate.bias"));
        w.mlp_proj = matrix(file, p + "mlp.c_proj.weight", vec_if(c.mlp_bias, file, p + "mlp.c_proj.bias"));
        layers_.push_back(w);
    }
    ln_f_w_ = vec(file, "ln_f.weight");
    ln_f_b_ = vec_if(layernorm, file, "ln_f.bias");
    set_kv_type(KVType::F32);
}

std::unique_ptr<Decoder> Decoder::load(const std::string& path) {
    std::shared_ptr<AlignedBytes> bytes = read_file_aligned(path);
    try {
        ModelFile file = ModelFile::parse(bytes->data, bytes->size);
        return std::make_unique<Decoder>(file, bytes);
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
}

// Runs once per token when decoding: messages are only built on failure (no allocation on the good path).
void Decoder::check_ids(const int* ids, int n) const {
    if (n <= 0) throw Error("empty input: at least one token is needed");
    if (length_ + n > config_.n_ctx)
        throw Error("sequence of " + std::to_string(length_ + n) +
                    " tokens is longer than the model's context (n_ctx " + std::to_string(config_.n_ctx) + ")");
    for (int i = 0; i < n; ++i)
        if (ids[i] < 0 || ids[i] >= config_.n_vocab)
            throw Error("token id " + std::to_string(ids[i]) + " at position " + std::to_string(length_ + i) +
                        " is outside the vocabulary [0, " + std::to_string(config_.n_vocab) + ")");
}

// Finite weights can still overflow float32 on some input; NaN logits would be drawn as blank arcs and sampled
// as token 0, so they are an error instead. changed: hooks or a given residual stream put values into the pass, which
// share the blame.
void Decoder::check_finite(const float* logits, int rows, int V, int first_position, bool changed) const {
    for (size_t i = 0; i < size_t(rows) * V; ++i)
        if (!std::isfinite(logits[i]))
            throw Error("the model produced a non-finite logit (" + std::string(std::isnan(logits[i]) ? "NaN" : "Inf") +
                        ") at position " + std::to_string(first_position + int(i / V)) + " for token " +
                        std::to_string(int(i % V)) +
                        (changed ? ": its weights or the values put into the pass overflow float32 on this input"
                                 : ": its weights overflow float32 on this input"));
}

void Decoder::set_kv_type(KVType type) {
    kv_.configure(config_.n_layer, config_.kv_width(), config_.kv_heads(), config_.n_ctx, type);
    reset();
}

// x (T, C) -> out (T, C): the block's LayerNorm or RMSNorm (w, b: its weight and bias; with w null, only
// normalised).
void Decoder::norm(float* out, const float* x, int T, const float* w, const float* b) const {
    if (config_.norm == NormKind::rmsnorm) rmsnorm_forward(out, x, T, config_.n_embd, w, config_.norm_eps);
    else layernorm_forward(out, x, T, config_.n_embd, w, b, config_.norm_eps);
}

void Decoder::final_norm(float* out, const float* resid, int rows, bool scaled) const {
    norm(out, resid, rows, scaled ? ln_f_w_ : nullptr, scaled ? ln_f_b_ : nullptr);
}

void Decoder::forward(const int* ids, int T, const ForwardOptions& options) {
    reset();
    run(ids, T, options, Start{});
}

int Decoder::cached_prefix(const int* ids, int T) const {
    int n = 0;
    const int most = std::min(T - 1, int(cached_ids_.size()));
    while (n < most && cached_ids_[size_t(n)] == ids[n]) ++n;
    return n;
}

void Decoder::forward_from(int first, const int* ids, int T, const ForwardOptions& options) {
    const int held = T >= 1 ? cached_prefix(ids, T) : 0;  // once: the message is built only on failure
    if (first < 0 || T < 1 || first > held)
        throw Error("forward_from: the KV cache holds " + std::to_string(held) + " of these tokens' positions, not " +
                    std::to_string(first));
    length_ = first;
    run(ids + first, T - first, options, Start{});
}

void Decoder::append(int id, const ForwardOptions& options) {
    run(&id, 1, options, Start{});  // one position: its logits are all the logits
}

void Decoder::resume(int layer, int first, const float* resid_pre, int rows, Hooks* hooks) {
    require(layer >= 0 && layer < config_.n_layer,
            "resume: layer " + std::to_string(layer) + " is not in [0, " + std::to_string(config_.n_layer) + ")");
    require(first >= 0 && first <= length_ && rows >= 1 && first + rows <= config_.n_ctx,
            "resume: positions [" + std::to_string(first) + ", " + std::to_string(first + rows) +
                ") do not follow the " + std::to_string(length_) + " in the KV cache");
    length_ = first;
    run(nullptr, rows, ForwardOptions().with_hooks(hooks), {layer, resid_pre});
}

void Decoder::unembed(const float* resid, int rows, float* logits) {
    grow(ln_, size_t(rows) * config_.n_embd);
    final_norm(ln_.data(), resid, rows, true);
    head_->apply(logits, ln_.data(), rows);
}

void Decoder::check_tokens(const int* tokens, int n) const {
    for (int i = 0; i < n; ++i)
        if (tokens[i] < 0 || tokens[i] >= config_.n_vocab)
            throw Error("token id " + std::to_string(tokens[i]) + " is outside the vocabulary [0, " +
                        std::to_string(config_.n_vocab) + ")");
}

void Decoder::unembed_tokens(const float* resid, const int* tokens, int n, float* logits) {
    check_tokens(tokens, n);
    grow(ln_, size_t(config_.n_embd));
    final_norm(ln_.data(), resid, 1, true);
    lm_head_tokens(ln_.data(), tokens, n, logits);
}

// A token's logit is its row of the LM head against the row: for packed weights the kernel runs on the token's group
// of 8 rows alone (each row's sums are the same whichever rows run beside it); f32 weights take the whole head.
void Decoder::lm_head_tokens(const float* normed, const int* tokens, int n, float* logits) const {
    if (head_->type == DType::F32) {
        std::vector<float> all(static_cast<size_t>(config_.n_vocab));
        head_->apply(all.data(), normed, 1);
        for (int i = 0; i < n; ++i) logits[i] = all[size_t(tokens[i])];
        return;
    }
    const QView& w = head_->q;
    const size_t group_bytes = size_t(w.blocks()) * w.format().record_bytes;
    float group[kQRowGroup];
    for (int i = 0; i < n; ++i) {
        const int g = tokens[i] / kQRowGroup;
        QView rows = w;
        rows.data = w.data + size_t(g) * group_bytes;
        rows.rows = std::min(kQRowGroup, w.rows - g * kQRowGroup);
        linear_q(group, normed, 1, rows, nullptr);
        logits[i] = group[tokens[i] - g * kQRowGroup];
    }
}

void Decoder::resume_variants(int layer, const std::vector<Variant>& variants, const std::vector<int>& tokens,
                              float* out) {
    require(layer >= 0 && layer < config_.n_layer, "resume_variants: layer " + std::to_string(layer) +
                                                       " is not in [0, " + std::to_string(config_.n_layer) + ")");
    for (const Variant& v : variants)
        require(v.resid && v.first >= 0 && v.first <= length_ && v.rows >= 1 && v.first + v.rows <= config_.n_ctx,
                "resume_variants: a variant's positions [" + std::to_string(v.first) + ", " +
                    std::to_string(v.first + v.rows) + ") do not follow the " + std::to_string(length_) +
                    " in the KV cache");
    const int C = config_.n_embd, n = int(tokens.size());
    check_tokens(tokens.data(), n);
    struct Scope {  // a pass after this one runs as a pass, whatever happens in this one
        Decoder& model;
        ~Scope() {
            model.variants_ = false;
            model.segments_.clear();
        }
    } scope{*this};
    variants_ = true;
    logits_rows_ = 0;
    has_attention_ = false;
    const Capture none{nullptr, 0, 0, 0};
    for (size_t v0 = 0; v0 < variants.size();) {
        const size_t v1 =
            size_t(variant_batch_end(int(v0), int(variants.size()), [&](int i) { return variants[size_t(i)].rows; }));
        segments_.assign(variants.begin() + ptrdiff_t(v0), variants.begin() + ptrdiff_t(v1));
        int rows = 0;
        for (const Variant& v : segments_) rows += v.rows;
        const bool final_hook = any_hooked({HookPoint::LnFinalNormalized}, -1);
        run_chunk(nullptr, rows, none, nullptr, final_hook, layer);
        size_t last = 0;
        for (size_t v = v0; v < v1; ++v) {
            last += size_t(segments_[v - v0].rows);  // the rows the last block kept
            const float* row = (final_hook ? ln_ : x_).data() + (last - 1) * C;
            float* logits = out + v * size_t(n);
            if (final_hook) lm_head_tokens(row, tokens.data(), n, logits);
            else unembed_tokens(row, tokens.data(), n, logits);
            for (int i = 0; i < n; ++i)
                if (!std::isfinite(logits[i]))
                    throw Error("a variant produced a non-finite logit for token " + std::to_string(tokens[size_t(i)]) +
                                ": its weights or interventions overflow float32");
        }
        v0 = v1;
    }
}

// A key/value head's keys transposed into kt (hd, ld), zeros past T, as the KV cache holds them (rounded if f16),
// so the score loop runs on them as in the pass: from k (T rows, `stride` floats apart), a layer's rotated keys
// hook or the k part of qkv.
void Decoder::keys_transposed(const float* k, int stride, int T, int head, int ld, float* kt) const {
    const int hd = config_.head_dim();
    std::fill(kt, kt + size_t(hd) * ld, 0.0f);
    for (int t = 0; t < T; ++t)
        for (int d = 0; d < hd; ++d) kt[size_t(d) * ld + t] = kv_.stored(k[size_t(t) * stride + head * hd + d]);
}

void Decoder::check_pattern(const char* what, int T, int head) const {
    const int H = config_.n_head;
    require(T >= 1 && T <= config_.n_ctx && head >= 0 && head < H,
            std::string(what) + ": head " + std::to_string(head) + " of " + std::to_string(H) + ", " +
                std::to_string(T) + " positions (the context holds " + std::to_string(config_.n_ctx) + ")");
}

void Decoder::attention_pattern(const float* q, const float* k, int T, int head, float* out) const {
    check_pattern("attention_pattern", T, head);
    const ModelConfig& c = config_;
    const int hd = c.head_dim(), Q = c.q_width(), ld = (T + kLanes - 1) / kLanes * kLanes;
    std::vector<float> kt(size_t(hd) * ld);
    keys_transposed(k, c.kv_width(), T, kv_head_of(head, c.n_head, c.kv_heads()), ld, kt.data());
    const float scale = 1.0f / std::sqrt(float(hd));
    // Rows apart on the threads, each part taking rows from both ends (a later row sees more keys).
    parallel_for(T, double(T) * T * hd / 2, [&](int begin, int end) {
        for (int r = begin; r < end; ++r) {
            const int i = r % 2 ? T - 1 - r / 2 : r / 2;
            float* row = out + size_t(i) * T;
            attention_scores_row(row, q + size_t(i) * Q + head * hd, kt.data(), hd, ld, i + 1, scale);
            masked_softmax_row(row, i + 1, T);
        }
    });
}

void Decoder::attention_thumbnail(const float* q, const float* k, int T, int head, int size, float* out) const {
    check_pattern("attention_thumbnail", T, head);
    require(size >= 1 && size <= T,
            "attention_thumbnail: size " + std::to_string(size) + " is not in [1, " + std::to_string(T) + "]");
    const ModelConfig& c = config_;
    const int hd = c.head_dim(), Q = c.q_width(), ld = (T + kLanes - 1) / kLanes * kLanes;
    std::vector<float> kt(size_t(hd) * ld);
    keys_transposed(k, c.kv_width(), T, kv_head_of(head, c.n_head, c.kv_heads()), ld, kt.data());
    const float scale = 1.0f / std::sqrt(float(hd));
    std::fill(out, out + size_t(size) * size, 0.0f);
    // Pooled rows apart on the threads, each part taking them from both ends (a later row sees more keys): cell
    // (r, c) takes query rows i with i * size / T == r and keys j with j * size / T == c, so each part writes its own
    // cells. Each query row is computed into a row of scratch.
    parallel_for(size, double(T) * T * hd / 2, [&](int begin, int end) {
        std::vector<float> row(static_cast<size_t>(ld));
        for (int k = begin; k < end; ++k) {
            const int r = k % 2 ? size - 1 - k / 2 : k / 2;
            float* pooled = out + size_t(r) * size;
            const int first = int((int64_t(r) * T + size - 1) / size);
            const int last = int((int64_t(r + 1) * T + size - 1) / size);
            for (int i = first; i < last; ++i) {
                attention_scores_row(row.data(), q + size_t(i) * Q + head * hd, kt.data(), hd, ld, i + 1, scale);
                masked_softmax_row(row.data(), i + 1, i + 1);
                for (int j = 0; j <= i; ++j) {
                    float& cell = pooled[int64_t(j) * size / T];
                    cell = std::max(cell, row[size_t(j)]);
                }
            }
        }
    });
}

// Hands each sequence's hooks the values of its rows in the chunk, if they asked for them.
void Decoder::hook(HookPoint point, int layer, float* values, int width, int stride) {
    const HookName name{point, layer};
    size_t row = 0;
    for (const Variant& s : segments_) {
        if (s.hooks && s.hooks->wants(name))
            s.hooks->visit({name, -1, s.first, s.rows, width, stride}, values + row * stride);
        row += size_t(s.rows);
    }
}

void Decoder::run(const int* ids, int T, const ForwardOptions& options, Start start) {
    const bool attention = options.attention, all_logits = options.all_logits;
    Hooks* hooks = options.hooks;
    if (!start.resid) check_ids(ids, T);
    // The hooks live for this call only, whatever happens in it.
    struct Scope {
        std::vector<Variant>& segments;
        ~Scope() { segments.clear(); }
    } scope{segments_};
    const bool final_hook = hooks && hooks->wants({HookPoint::LnFinalNormalized, -1});
    const int L = config_.n_layer, H = config_.n_head, V = config_.n_vocab;
    const int p0 = length_, Tk = p0 + T;
    kv_.reserve(Tk, p0);
    // From here the cache's positions p0.. are this pass's: known tokens unless hooks may change what they hold.
    cached_ids_.resize(size_t(p0));
    const bool from_tokens = !start.resid && !(hooks && hooks->changes_values());
    const int rows = all_logits ? T : 1;
    grow(logits_, buffer_elements("logits (positions x n_vocab)", {uint64_t(rows), uint64_t(V)}, sizeof(float)));
    if (attention)
        grow(attn_capture_, buffer_elements("attention capture (n_layer x n_head x queries x keys)",
                                            {uint64_t(L), uint64_t(H), uint64_t(T), uint64_t(Tk)}, sizeof(float)));
    // Mark the results invalid until this pass completes.
    has_attention_ = false;
    logits_rows_ = 0;
    // Long inputs go through in chunks: activations stay the size of one chunk, and since every position's work
    // is independent of how positions are grouped, the results are the same bits as in one pass.
    for (int c0 = 0; c0 < T; c0 += kPrefillChunk) {
        const int n = std::min(kPrefillChunk, T - c0);
        Capture cap{attention ? attn_capture_.data() : nullptr, T, c0, Tk};
        segments_.assign(1, {p0 + c0, n, start.resid ? start.resid + size_t(c0) * config_.n_embd : nullptr, hooks});
        run_chunk(start.resid ? nullptr : ids + c0, n, cap, all_logits ? logits_.data() + size_t(c0) * V : nullptr,
                  final_hook, start.layer);
        length_ = p0 + c0 + n;
        for (int t = c0; t < c0 + n; ++t) cached_ids_.push_back(from_tokens ? ids[t] : -1);
    }
    if (!all_logits) {  // the last position only
        const int C = config_.n_embd;
        const int last = segments_[0].rows - 1;  // of the last chunk: rows its last block kept
        // With the final hook, run_chunk has already normalised every row of the last chunk (as the hook left it).
        if (final_hook) head_->apply(logits_.data(), ln_.data() + size_t(last) * C, 1);  // (1, C) -> (1, V)
        else unembed(x_.data() + size_t(last) * C, 1, logits_.data());
    }
    check_finite(logits_.data(), rows, V, p0 + T - rows, !from_tokens);
    logits_rows_ = rows;
    has_attention_ = attention;
    attn_queries_ = T;
    attn_keys_ = Tk;
}

// The chunk's T rows (segments_: a pass's new positions, or a batch of variants) through blocks `layer`.., a pass
// filling the KV cache. Leaves the final residual stream in x_; writes logits (T, V) too if `logits` is given, and the
// final norm of every row into ln_ if `normalize` (for its hook) or logits. Each hook point sees its values where
// the pass has them.
void Decoder::run_chunk(const int* ids, int T, const Capture& cap, float* logits, bool normalize, int layer) {
    const ModelConfig& c = config_;
    const int C = c.n_embd, L = c.n_layer, F = c.mlp_width();
    grow(x_, size_t(T) * C);
    grow(ln_, size_t(T) * C);
    grow(qkv_, size_t(T) * c.qkv_width());
    grow(att_out_, size_t(T) * c.q_width());
    grow(proj_, size_t(T) * C);
    grow(fc_, size_t(T) * F);
    if (c.mlp == MlpKind::swiglu) grow(up_, size_t(T) * F);
    if (c.parallel_residual) grow(mlp_out_, size_t(T) * C);

    // 1. the residual stream entering block `layer`: the rows given, or the embeddings
    size_t row0 = 0;
    for (const Variant& s : segments_) {
        float* x = x_.data() + row0 * C;
        if (s.resid) std::copy(s.resid, s.resid + size_t(s.rows) * C, x);
        else embed(ids, s.rows);
        row0 += size_t(s.rows);
    }
    // 2. the blocks. When nothing reads the last block's rows after its attention but the last position's logits,
    // its other rows stop once their keys and values are stored (and their attention is skipped too, unless it is
    // captured or hooked): the rest of their work would change nothing that is kept.
    const bool trim = !logits && !normalize &&
                      !any_hooked({HookPoint::Z, HookPoint::AttnOut, HookPoint::ResidMid, HookPoint::MlpPost,
                                   HookPoint::MlpOut, HookPoint::ResidPost},
                                  L - 1);
    const bool trim_attention = trim && !cap.data && !any_hooked({HookPoint::Pattern}, L - 1);
    for (int l = layer; l < L; ++l) {
        const LayerWeights& w = layers_[l];
        hook(HookPoint::ResidPre, l, x_.data(), C, C);
        attention_block(l, w, cap, T, l == L - 1 && trim, l == L - 1 && trim_attention);  // proj_ = attention's
        if (c.parallel_residual) {  // x + attn(ln_1(x)) + mlp(ln_2(x)), summed as (mlp + attn) + x
            mlp_block(w, T, l, mlp_out_.data());
            residual_forward(mlp_out_.data(), proj_.data(), size_t(T) * C);
            residual_forward(x_.data(), mlp_out_.data(), size_t(T) * C);
        } else {
            residual_forward(x_.data(), proj_.data(), size_t(T) * C);
            hook(HookPoint::ResidMid, l, x_.data(), C, C);
            mlp_block(w, T, l, proj_.data());
            residual_forward(x_.data(), proj_.data(), size_t(T) * C);
        }
        hook(HookPoint::ResidPost, l, x_.data(), C, C);
    }
    // 3. the final norm and the LM head, when every position's logits are wanted
    if (normalize) {
        final_norm(ln_.data(), x_.data(), T, false);
        hook(HookPoint::LnFinalNormalized, -1, ln_.data(), C, C);
        scale_shift_forward(ln_.data(), T, C, ln_f_w_, ln_f_b_);
        if (logits) head_->apply(logits, ln_.data(), T);  // (T, C) -> (T, V)
    } else if (logits) {
        unembed(x_.data(), T, logits);
    }
}

// Block l's attention over the chunk's rows: ln_1, q/k/v, (q/k norms, rotation,) attention, the output projection
// into proj_ (T, C). With `trim`, only each sequence's last row goes on past the attention (T becomes the number of
// sequences); with `trim_attention` the other rows' attention is skipped too.
void Decoder::attention_block(int l, const LayerWeights& w, const Capture& cap, int& T, bool trim,
                              bool trim_attention) {
    const ModelConfig& c = config_;
    const int C = c.n_embd, H = c.n_head, KV = c.kv_heads(), hd = c.head_dim();
    const int Q = c.q_width(), K = c.kv_width(), W = c.qkv_width();
    norm(ln_.data(), x_.data(), T, w.ln_1_w, w.ln_1_b);
    w.c_attn.apply(qkv_.data(), ln_.data(), T);  // (T, C) -> (T, W) = [q (H d) | k (KV d) | v (KV d)]
    hook(HookPoint::Q, l, qkv_.data(), Q, W);
    hook(HookPoint::K, l, qkv_.data() + Q, K, W);
    hook(HookPoint::V, l, qkv_.data() + Q + K, K, W);
    if (c.qk_norm)  // each head's q and k over its d dims
        for (int t = 0; t < T; ++t) {
            float* row = qkv_.data() + size_t(t) * W;
            rmsnorm_forward(row, row, H, hd, w.q_norm, c.norm_eps);
            rmsnorm_forward(row + Q, row + Q, KV, hd, w.k_norm, c.norm_eps);
        }
    if (c.rotary()) {
        rotate(qkv_.data());
        hook(HookPoint::RotQ, l, qkv_.data(), Q, W);
        hook(HookPoint::RotK, l, qkv_.data() + Q, K, W);
    }
    attention_layer(l, cap, trim_attention);
    if (trim) T = keep_last_rows();
    hook(HookPoint::Z, l, att_out_.data(), Q, Q);
    w.attn_proj.apply(proj_.data(), att_out_.data(), T);  // (T, H d) -> (T, C)
    hook(HookPoint::AttnOut, l, proj_.data(), C, C);
}

// Block l's MLP over the chunk's T rows: ln_2 of the residual stream, then up (and gate), the activation, down into
// out (T, C).
void Decoder::mlp_block(const LayerWeights& w, int T, int l, float* out) {
    const ModelConfig& c = config_;
    const int C = c.n_embd, F = c.mlp_width();
    norm(ln_.data(), x_.data(), T, w.ln_2_w, w.ln_2_b);
    if (c.mlp == MlpKind::swiglu) {
        w.gate.apply(fc_.data(), ln_.data(), T);  // (T, C) -> (T, F)
        w.c_fc.apply(up_.data(), ln_.data(), T);  // (T, C) -> (T, F)
        swiglu_forward(fc_.data(), up_.data(), T, F);
    } else {
        w.c_fc.apply(fc_.data(), ln_.data(), T);  // (T, C) -> (T, F)
        if (c.mlp == MlpKind::gelu_erf) gelu_erf_forward(fc_.data(), T, F);
        else gelu_forward(fc_.data(), T, F);
    }
    hook(HookPoint::MlpPost, l, fc_.data(), F, F);
    w.mlp_proj.apply(out, fc_.data(), T);  // (T, F) -> (T, C)
    hook(HookPoint::MlpOut, l, out, C, C);
}

// The cos/sin table covers positions [0, positions): grown geometrically, each row computed as rope_table does for
// that position whatever the table's length.
void Decoder::rope_reserve(int positions) {
    if (positions <= rope_positions_) return;
    const int n = std::min(config_.n_ctx, std::max(positions, 2 * rope_positions_));
    const size_t half = size_t(config_.rotary_dim / 2);
    rope_cos_.resize(size_t(n) * half);
    rope_sin_.resize(size_t(n) * half);
    rope_table(rope_cos_.data(), rope_sin_.data(), n, config_.rotary_dim, config_.rope_theta, config_.rope_scaling);
    rope_positions_ = n;
}

// The chunk's queries and keys (inside qkv (T, W)) rotated, each sequence's rows by their positions s.first...
void Decoder::rotate(float* qkv) {
    const ModelConfig& c = config_;
    const int W = c.qkv_width(), half = c.rotary_dim / 2;
    int end = 0;
    for (const Variant& s : segments_) end = std::max(end, s.first + s.rows);
    rope_reserve(end);
    size_t row0 = 0;
    for (const Variant& s : segments_) {
        float* rows = qkv + row0 * W;
        const float* cos = rope_cos_.data() + size_t(s.first) * half;
        const float* sin = rope_sin_.data() + size_t(s.first) * half;
        rope_forward(rows, s.rows, c.n_head, c.head_dim(), c.rotary_dim, cos, sin, W);
        rope_forward(rows + c.q_width(), s.rows, c.kv_heads(), c.head_dim(), c.rotary_dim, cos, sin, W);
        row0 += size_t(s.rows);
    }
}

// ids (T) at positions length_.. -> x_ (T, C) = wte[id] (+ wpe[position] with learned positions), the residual
// stream entering block 0.
void Decoder::embed(const int* ids, int T) {
    const int C = config_.n_embd;
    const bool learned = !config_.rotary();
    if (learned) grow(position_row_, size_t(C));
    for (int t = 0; t < T; ++t) {
        float* xt = x_.data() + size_t(t) * C;
        wte_.row(ids[t], xt);
        if (!learned) continue;
        wpe_.row(length_ + t, position_row_.data());
        residual_forward(xt, position_row_.data(), size_t(C));
    }
}

// Whether any sequence's hooks want one of these points of a layer.
bool Decoder::any_hooked(std::initializer_list<HookPoint> points, int layer) const {
    for (const Variant& s : segments_)
        for (HookPoint p : points)
            if (s.hooks && s.hooks->wants({p, layer})) return true;
    return false;
}

// Each sequence's last row of the attention's output and of the residual stream, moved to the front: rows
// (sequences) of them, each sequence now that one position.
int Decoder::keep_last_rows() {
    const int C = config_.n_embd, Q = config_.q_width();
    size_t end = 0;
    for (size_t i = 0; i < segments_.size(); ++i) {
        Variant& s = segments_[i];
        end += size_t(s.rows);
        std::copy_n(att_out_.data() + (end - 1) * Q, Q, att_out_.data() + i * Q);
        std::copy_n(x_.data() + (end - 1) * C, C, x_.data() + i * C);
        s.first += s.rows - 1;
        s.rows = 1;
    }
    return int(segments_.size());
}

// Causal self-attention of layer l for each sequence of the chunk: a pass stores its keys and values in the KV cache
// first; a variant keeps its own apart and reads the cache's positions before its first.
void Decoder::attention_layer(int l, const Capture& cap, bool last_rows_only) {
    const int Q = config_.q_width(), K = config_.kv_width(), W = config_.qkv_width();
    size_t row0 = 0;
    for (const Variant& s : segments_) {
        if (!variants_)
            for (int t = 0; t < s.rows; ++t) {
                const float* row = qkv_.data() + (row0 + t) * W;
                kv_.store(l, s.first + t, row + Q, row + Q + K);
            }
        attend(l, s, row0, cap, last_rows_only);
        row0 += size_t(s.rows);
    }
}

// One sequence's T rows (from row0 of the chunk, at positions p0 = s.first..) against every key they may see.
// q (T, H d) inside qkv_ (row stride W) -> att_out_ (T, H d); query head h reads key/value head kv_head_of(h).
// Probabilities go into the capture buffer when there is one, else into scratch. A row's keys come in two spans:
// positions [0, n_cache) from the KV cache, then (a variant's) its own [p0, p0 + i] from own_kt_ / own_v_; each
// key's score and the running sum over values are the same bits whichever span holds the key.
// Every sum runs in a fixed order (see kLanes), so native and wasm builds produce the same bits (a blocked GEMM
// would sum in a different order on each platform).
void Decoder::attend(int l, const Variant& s, size_t row0, const Capture& cap, bool last_row_only) {
    const ModelConfig& c = config_;
    const int H = c.n_head, KV = c.kv_heads(), hd = c.head_dim();
    const int Q = c.q_width(), K = c.kv_width(), W = c.qkv_width();
    const int p0 = s.first, T = s.rows, Tk = p0 + T;
    const float scale = 1.0f / std::sqrt(float(hd));
    const int own_ld = (T + kLanes - 1) / kLanes * kLanes;
    if (variants_) {  // this variant's keys (transposed) and values, rounded as the cache would store them
        grow(own_kt_, size_t(K) * own_ld);
        grow(own_v_, size_t(T) * K);
        for (int g = 0; g < KV; ++g)
            keys_transposed(qkv_.data() + row0 * W + Q, W, T, g, own_ld, own_kt_.data() + size_t(g) * hd * own_ld);
        for (int t = 0; t < T; ++t)
            for (int j = 0; j < K; ++j) own_v_[size_t(t) * K + j] = kv_.stored(qkv_[(row0 + t) * W + Q + K + j]);
    }
    // Every key/value head's keys (hd, ld) and values: the cache's (every position, or a variant's prefix), and its
    // own.
    heads_.clear();
    for (int g = 0; g < KV; ++g) heads_.push_back(kv_.head(l, g, variants_ ? p0 : Tk));
    const auto kv_of = [H, KV](int h) { return kv_head_of(h, H, KV); };
    const auto n_cache = [&](int i) { return variants_ ? p0 : p0 + i + 1; };
    const auto n_own = [&](int i) { return variants_ ? i + 1 : 0; };
    // Each head's probabilities: in the capture (L, H, cap.queries, cap.keys), this chunk's rows from row cap.first;
    // else in scratch, (H, T, Tk).
    const int stride = cap.data ? cap.keys : Tk;
    if (!cap.data) grow(scores_, size_t(H) * T * Tk);
    const auto probs_of = [&](int h) {
        return cap.data ? cap.data + ((size_t(l) * H + h) * cap.queries + cap.first) * cap.keys
                        : scores_.data() + size_t(h) * T * Tk;
    };
    const float* q = qkv_.data() + row0 * W;
    float* out = att_out_.data() + row0 * Q;
    // The threads take (head, row) pairs in parts, every head at once (threads.h). A later row sees more keys, so
    // each head's rows are taken from both ends; the order changes nothing in any row.
    const int i0 = last_row_only ? T - 1 : 0, rows = T - i0;
    const auto head_of = [rows](int k) { return k / rows; };
    const auto row_of = [i0, rows](int k) {
        const int r = k % rows;
        return i0 + (r % 2 ? rows - 1 - r / 2 : r / 2);
    };
    const double work = double(H) * rows * Tk * hd;  // about: the scores, or the weighted values
    // 1. scores (n) = q . K^T / sqrt(hd), then the masked softmax
    parallel_for(H * rows, work, [&](int begin, int end) {
        for (int k = begin; k < end; ++k) {
            const int h = head_of(k), i = row_of(k), a = n_cache(i), b = n_own(i), g = kv_of(h);
            float* row = probs_of(h) + size_t(i) * stride;
            const float* qi = q + size_t(i) * W + h * hd;
            if (a) attention_scores_row(row, qi, heads_[size_t(g)].kt, hd, heads_[size_t(g)].ld, a, scale);
            if (b) attention_scores_row(row + a, qi, own_kt_.data() + size_t(g) * hd * own_ld, hd, own_ld, b, scale);
            masked_softmax_row(row, a + b, stride);
        }
    });
    if (s.hooks && s.hooks->wants({HookPoint::Pattern, l}))
        for (int h = 0; h < H; ++h) s.hooks->visit({{HookPoint::Pattern, l}, h, p0, T, Tk, stride}, probs_of(h));
    // 2. out (hd) = probs . V
    parallel_for(H * rows, work, [&](int begin, int end) {
        for (int k = begin; k < end; ++k) {
            const int h = head_of(k), i = row_of(k), a = n_cache(i), b = n_own(i), g = kv_of(h);
            const float* p = probs_of(h) + size_t(i) * stride;
            float* o = out + size_t(i) * Q + h * hd;
            if (a) attention_values_row(o, p, heads_[size_t(g)].v, a, hd, heads_[size_t(g)].ldv);
            if (b) attention_values_row(o, p + a, own_v_.data() + size_t(g) * hd, b, hd, K, a > 0);
        }
    });
}

}  // namespace arcscope
