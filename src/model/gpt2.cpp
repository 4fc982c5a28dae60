// gpt2.cpp: the forward pass. Pre-LayerNorm blocks, tanh GELU, learned positions, tied LM head.
#include "arcscope/model/gpt2.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "arcscope/core/error.h"
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

GPT2::GPT2(const ModelFile& file, std::shared_ptr<const void> owner)
    : config_(file.config()), weight_type_(file.weight_type()), file_(file), owner_(std::move(owner)) {
    require(reinterpret_cast<uintptr_t>(file.bytes()) % 4 == 0, "model bytes must be 4-byte aligned");
    wte_ = matrix(file, "wte.weight", nullptr);
    wpe_ = matrix(file, "wpe.weight", nullptr);
    for (int l = 0; l < config_.n_layer; ++l) {
        std::string p = "h." + std::to_string(l) + ".";
        LayerWeights w;
        w.ln_1_w = vec(file, p + "ln_1.weight");
        w.ln_1_b = vec(file, p + "ln_1.bias");
        w.c_attn = matrix(file, p + "attn.c_attn.weight", vec(file, p + "attn.c_attn.bias"));
        w.attn_proj = matrix(file, p + "attn.c_proj.weight", vec(file, p + "attn.c_proj.bias"));
        w.ln_2_w = vec(file, p + "ln_2.weight");
        w.ln_2_b = vec(file, p + "ln_2.bias");
        w.c_fc = matrix(file, p + "mlp.c_fc.weight", vec(file, p + "mlp.c_fc.bias"));
        w.mlp_proj = matrix(file, p + "mlp.c_proj.weight", vec(file, p + "mlp.c_proj.bias"));
        layers_.push_back(w);
    }
    ln_f_w_ = vec(file, "ln_f.weight");
    ln_f_b_ = vec(file, "ln_f.bias");
    set_kv_type(KVType::F32);
}

std::unique_ptr<GPT2> GPT2::load(const std::string& path) {
    std::shared_ptr<AlignedBytes> bytes = read_file_aligned(path);
    try {
        ModelFile file = ModelFile::parse(bytes->data, bytes->size);
        return std::make_unique<GPT2>(file, bytes);
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
}

// Runs once per token when decoding: messages are only built on failure (no allocation on the good path).
void GPT2::check_ids(const int* ids, int n) const {
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
// as token 0, so they are an error instead.
void GPT2::check_finite(const float* logits, int rows, int V, int first_position) const {
    for (size_t i = 0; i < size_t(rows) * V; ++i)
        if (!std::isfinite(logits[i]))
            throw Error("the model produced a non-finite logit (" + std::string(std::isnan(logits[i]) ? "NaN" : "Inf") +
                        ") at position " + std::to_string(first_position + int(i / V)) + " for token " +
                        std::to_string(int(i % V)) + ": its weights overflow float32 on this input");
}

void GPT2::set_kv_type(KVType type) {
    kv_.configure(config_.n_layer, config_.n_embd, config_.n_head, config_.n_ctx, type);
    reset();
}

void GPT2::forward(const int* ids, int T, const ForwardOptions& options) {
    reset();
    run(ids, T, options, Start{});
}

int GPT2::cached_prefix(const int* ids, int T) const {
    int n = 0;
    const int most = std::min(T - 1, int(cached_ids_.size()));
    while (n < most && cached_ids_[size_t(n)] == ids[n]) ++n;
    return n;
}

void GPT2::forward_from(int first, const int* ids, int T, const ForwardOptions& options) {
    const int held = T >= 1 ? cached_prefix(ids, T) : 0;  // once: the message is built only on failure
    if (first < 0 || T < 1 || first > held)
        throw Error("forward_from: the KV cache holds " + std::to_string(held) + " of these tokens' positions, not " +
                    std::to_string(first));
    length_ = first;
    run(ids + first, T - first, options, Start{});
}

void GPT2::append(int id, const ForwardOptions& options) {
    run(&id, 1, options, Start{});  // one position: its logits are all the logits
}

void GPT2::resume(int layer, int first, const float* resid_pre, int rows, Hooks* hooks) {
    require(layer >= 0 && layer < config_.n_layer,
            "resume: layer " + std::to_string(layer) + " is not in [0, " + std::to_string(config_.n_layer) + ")");
    require(first >= 0 && first <= length_ && rows >= 1 && first + rows <= config_.n_ctx,
            "resume: positions [" + std::to_string(first) + ", " + std::to_string(first + rows) +
                ") do not follow the " + std::to_string(length_) + " in the KV cache");
    length_ = first;
    run(nullptr, rows, ForwardOptions().with_hooks(hooks), {layer, resid_pre});
}

void GPT2::unembed(const float* resid, int rows, float* logits) {
    const int C = config_.n_embd;
    grow(ln_, size_t(rows) * C);
    layernorm_forward(ln_.data(), resid, rows, C, ln_f_w_, ln_f_b_, config_.ln_eps);
    wte_.apply(logits, ln_.data(), rows);
}

void GPT2::attention_pattern(const float* q, const float* k, int T, int head, float* out) const {
    const int C = config_.n_embd, H = config_.n_head, hd = config_.head_dim();
    require(T >= 1 && T <= config_.n_ctx && head >= 0 && head < H,
            "attention_pattern: head " + std::to_string(head) + " of " + std::to_string(H) + ", " + std::to_string(T) +
                " positions (the context holds " + std::to_string(config_.n_ctx) + ")");
    // The head's keys transposed, (hd, ld), as the KV cache holds them (rounded if f16), so scores_row runs as
    // in the pass.
    const int ld = (T + kLanes - 1) / kLanes * kLanes;
    std::vector<float> kt(size_t(hd) * ld, 0.0f);
    for (int t = 0; t < T; ++t)
        for (int d = 0; d < hd; ++d) kt[size_t(d) * ld + t] = kv_.stored(k[size_t(t) * C + head * hd + d]);
    const float scale = 1.0f / std::sqrt(float(hd));
    for (int i = 0; i < T; ++i) {
        float* row = out + size_t(i) * T;
        attention_scores_row(row, q + size_t(i) * C + head * hd, kt.data(), hd, ld, i + 1, scale);
        masked_softmax_row(row, i + 1, T);
    }
}

// Hands the hook the values of one chunk's rows, if it asked for them.
void GPT2::hook(HookPoint point, int layer, float* values, int rows, int width, int stride, int head) {
    const HookName name{point, layer};
    if (hooks_ && hooks_->wants(name)) hooks_->visit({name, head, length_, rows, width, stride}, values);
}

void GPT2::run(const int* ids, int T, const ForwardOptions& options, Start start) {
    const bool attention = options.attention, all_logits = options.all_logits;
    Hooks* hooks = options.hooks;
    if (!start.resid) check_ids(ids, T);
    // The hooks live for this call only, whatever happens in it.
    struct Scope {
        Hooks*& slot;
        ~Scope() { slot = nullptr; }
    } scope{hooks_};
    hooks_ = hooks;
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
        const Start chunk_start{start.layer, start.resid ? start.resid + size_t(c0) * config_.n_embd : nullptr};
        run_chunk(start.resid ? nullptr : ids + c0, n, cap, all_logits ? logits_.data() + size_t(c0) * V : nullptr,
                  final_hook, chunk_start);
        length_ = p0 + c0 + n;
        for (int t = c0; t < c0 + n; ++t) cached_ids_.push_back(from_tokens ? ids[t] : -1);
    }
    if (!all_logits) {  // the last position only
        const int C = config_.n_embd;
        const int last = (T - 1) % kPrefillChunk;
        // With the final hook, run_chunk has already normalised every row of the last chunk (as the hook left it).
        if (final_hook) wte_.apply(logits_.data(), ln_.data() + size_t(last) * C, 1);  // (1, C) -> (1, V)
        else unembed(x_.data() + size_t(last) * C, 1, logits_.data());
    }
    check_finite(logits_.data(), rows, V, p0 + T - rows);
    logits_rows_ = rows;
    has_attention_ = attention;
    attn_queries_ = T;
    attn_keys_ = Tk;
}

// T new tokens at positions length_ .. length_ + T - 1 through every block, filling the KV cache. Leaves the final
// residual stream in x_; writes logits (T, V) too if `logits` is given, and the final LayerNorm of every row into ln_
// if `final_norm` (for its hook) or logits. Each hook point sees its values where the pass has them.
void GPT2::run_chunk(const int* ids, int T, const Capture& cap, float* logits, bool final_norm, Start start) {
    const int C = config_.n_embd, L = config_.n_layer;
    const int p0 = length_, Tk = p0 + T;
    grow(x_, size_t(T) * C);
    grow(ln_, size_t(T) * C);
    grow(qkv_, size_t(T) * 3 * C);
    grow(att_out_, size_t(T) * C);
    grow(proj_, size_t(T) * C);
    grow(fc_, size_t(T) * 4 * C);
    grow(scores_, size_t(T) * Tk);

    // 1. the residual stream entering block start.layer: the embeddings, or the rows given
    if (start.resid) std::copy(start.resid, start.resid + size_t(T) * C, x_.data());
    else embed(ids, T);
    // 2. the blocks
    for (int l = start.layer; l < L; ++l) {
        const LayerWeights& w = layers_[l];
        hook(HookPoint::ResidPre, l, x_.data(), T, C, C);
        layernorm_forward(ln_.data(), x_.data(), T, C, w.ln_1_w, w.ln_1_b, config_.ln_eps);
        w.c_attn.apply(qkv_.data(), ln_.data(), T);  // (T, C) -> (T, 3C) = [q | k | v]
        hook(HookPoint::Q, l, qkv_.data(), T, C, 3 * C);
        hook(HookPoint::K, l, qkv_.data() + C, T, C, 3 * C);
        hook(HookPoint::V, l, qkv_.data() + 2 * C, T, C, 3 * C);
        for (int t = 0; t < T; ++t) {
            const float* row = qkv_.data() + size_t(t) * 3 * C;
            kv_.store(l, p0 + t, row + C, row + 2 * C);
        }
        attention_layer(l, T, cap);
        hook(HookPoint::Z, l, att_out_.data(), T, C, C);
        w.attn_proj.apply(proj_.data(), att_out_.data(), T);
        hook(HookPoint::AttnOut, l, proj_.data(), T, C, C);
        residual_forward(x_.data(), proj_.data(), size_t(T) * C);
        hook(HookPoint::ResidMid, l, x_.data(), T, C, C);

        layernorm_forward(ln_.data(), x_.data(), T, C, w.ln_2_w, w.ln_2_b, config_.ln_eps);
        w.c_fc.apply(fc_.data(), ln_.data(), T);  // (T, C) -> (T, 4C)
        gelu_forward(fc_.data(), T, 4 * C);
        hook(HookPoint::MlpPost, l, fc_.data(), T, 4 * C, 4 * C);
        w.mlp_proj.apply(proj_.data(), fc_.data(), T);  // (T, 4C) -> (T, C)
        hook(HookPoint::MlpOut, l, proj_.data(), T, C, C);
        residual_forward(x_.data(), proj_.data(), size_t(T) * C);
        hook(HookPoint::ResidPost, l, x_.data(), T, C, C);
    }
    // 3. final LayerNorm and the tied LM head, when every position's logits are wanted
    if (final_norm) {
        layernorm_forward(ln_.data(), x_.data(), T, C, nullptr, nullptr, config_.ln_eps);
        hook(HookPoint::LnFinalNormalized, -1, ln_.data(), T, C, C);
        scale_shift_forward(ln_.data(), T, C, ln_f_w_, ln_f_b_);
        if (logits) wte_.apply(logits, ln_.data(), T);  // (T, C) -> (T, V)
    } else if (logits) {
        unembed(x_.data(), T, logits);
    }
}

// ids (T) at positions length_.. -> x_ (T, C) = wte[id] + wpe[position], the residual stream entering block 0.
void GPT2::embed(const int* ids, int T) {
    const int C = config_.n_embd;
    grow(position_row_, size_t(C));
    for (int t = 0; t < T; ++t) {
        float* xt = x_.data() + size_t(t) * C;
        wte_.row(ids[t], xt);
        wpe_.row(length_ + t, position_row_.data());
        residual_forward(xt, position_row_.data(), size_t(C));
    }
}

// Causal self-attention of layer l for the T newest positions, against every cached position.
// q (T, C) inside qkv_ (row stride 3C), K and V (Tk, C) in the cache -> att_out_ (T, C);
// probabilities into the capture buffer when there is one, else into scratch.
// Every sum runs in a fixed order (see kLanes), so native and wasm builds produce the same bits (a blocked GEMM
// would sum in a different order on each platform).
void GPT2::attention_layer(int l, int T, const Capture& cap) {
    const int C = config_.n_embd, H = config_.n_head, hd = config_.head_dim();
    const int p0 = length_, Tk = p0 + T;
    const float scale = 1.0f / std::sqrt(float(hd));
    for (int h = 0; h < H; ++h) {
        const KVCache::Head kv = kv_.head(l, h, Tk);  // this head's keys (hd, ld) and values (Tk, hd)
        // capture (L, H, cap.queries, cap.keys): this chunk's rows start at row cap.first
        float* probs =
            cap.data ? cap.data + ((size_t(l) * H + h) * cap.queries + cap.first) * cap.keys : scores_.data();
        const int stride = cap.data ? cap.keys : Tk;
        // 1. scores (n) = q . K^T / sqrt(hd), then the masked softmax, for every query row of this head. Rows are
        // independent, so the threads take them in parts (threads.h); a later row sees more keys, so each part takes
        // rows from both ends (the order of rows changes nothing in any row).
        const double work = double(T) * (p0 + T) * hd;  // about: each row's scores, or its weighted values
        const auto row_at = [T](int k) { return k % 2 ? T - 1 - k / 2 : k / 2; };
        parallel_for(T, work, [&](int begin, int end) {
            for (int k = begin; k < end; ++k) {
                const int i = row_at(k);
                const int n = p0 + i + 1;  // keys this query may see
                float* row = probs + size_t(i) * stride;
                attention_scores_row(row, qkv_.data() + size_t(i) * 3 * C + h * hd, kv.kt, hd, kv.ld, n, scale);
                masked_softmax_row(row, n, stride);
            }
        });
        hook(HookPoint::Pattern, l, probs, T, Tk, stride, h);
        // 2. out (hd) = probs . V
        parallel_for(T, work, [&](int begin, int end) {
            for (int k = begin; k < end; ++k) {
                const int i = row_at(k);
                attention_values_row(att_out_.data() + size_t(i) * C + h * hd, probs + size_t(i) * stride, kv.v,
                                     p0 + i + 1, hd, kv.ldv);
            }
        });
    }
}

}  // namespace arcscope
