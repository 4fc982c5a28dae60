// gpt2.cpp: the forward pass. Pre-LayerNorm blocks, tanh GELU, learned positions, tied LM head.
#include "arcscope/model/gpt2.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "arcscope/core/error.h"
#include "arcscope/core/portable_math.h"
#include "arcscope/core/sizes.h"
#include "arcscope/core/threads.h"

namespace arcscope {

namespace {

// x (T, C) -> out (T, C): normalise each row, then scale and shift (w, b); with w null, only normalise (scale_shift
// then finishes the job with the same bits: the sums run in the same order).
void layernorm(float* out, const float* x, int T, int C, const float* w, const float* b, float eps) {
    parallel_for(T, 8.0 * T * C, [&](int t0, int t1) {  // rows apart on the threads: the same bits
        for (int t = t0; t < t1; ++t) {
            const float* xt = x + size_t(t) * C;
            float* ot = out + size_t(t) * C;
            float mean = 0;
            for (int i = 0; i < C; ++i) mean += xt[i];
            mean /= C;
            float var = 0;
            for (int i = 0; i < C; ++i) var += (xt[i] - mean) * (xt[i] - mean);
            var /= C;
            float inv = 1.0f / std::sqrt(var + eps);
            if (w)
                for (int i = 0; i < C; ++i) ot[i] = (xt[i] - mean) * inv * w[i] + b[i];
            else
                for (int i = 0; i < C; ++i) ot[i] = (xt[i] - mean) * inv;
        }
    });
}

void scale_shift(float* x, int T, int C, const float* w, const float* b) {
    for (int t = 0; t < T; ++t)
        for (int i = 0; i < C; ++i) x[size_t(t) * C + i] = x[size_t(t) * C + i] * w[i] + b[i];
}

// In place, rows x width values: GPT-2's tanh approximation ("gelu_new"), rows apart on the threads.
void gelu(float* x, int rows, int width) {
    parallel_for(rows, 20.0 * rows * width, [&](int r0, int r1) {
        map4(x + size_t(r0) * width, size_t(r1 - r0) * width, [](F4 v) {
            const float k = 0.7978845608028654f;  // sqrt(2 / pi)
            return 0.5f * v * (1.0f + portable_tanh(k * (v + 0.044715f * v * v * v)));
        });
    });
}

// Attention's inner loops keep kLanes independent sums in registers, as four 4-float vectors (SSE natively,
// SIMD128 in wasm); each sum still runs in one fixed order, so both builds get the same bits.
constexpr int kLanes = 16;
static_assert(KVCache::kPad == kLanes, "K rows are padded for the score loop's blocks");
inline F4 load4(const float* p) {
    F4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline F4 splat4(float x) {
    return F4{x, x, x, x};
}

// In place over one row: softmax of the first n entries, zero after them (the causally masked keys).
void masked_softmax_row(float* row, int n, int total) {
    float lane[kLanes];
    for (int k = 0; k < kLanes; ++k) lane[k] = row[0];
    int j = 0;
    for (; j + kLanes <= n; j += kLanes)
        for (int k = 0; k < kLanes; ++k) lane[k] = std::max(lane[k], row[j + k]);
    float mx = row[0];
    for (int k = 0; k < kLanes; ++k) mx = std::max(mx, lane[k]);
    for (; j < n; ++j) mx = std::max(mx, row[j]);

    map4(row, size_t(n), [mx](F4 v) { return portable_exp(v - mx); });
    for (int k = 0; k < kLanes; ++k) lane[k] = 0.0f;
    for (j = 0; j + kLanes <= n; j += kLanes)
        for (int k = 0; k < kLanes; ++k) lane[k] += row[j + k];
    float sum = 0;
    for (int k = 0; k < kLanes; ++k) sum += lane[k];
    for (; j < n; ++j) sum += row[j];

    const float inv = 1.0f / sum;
    for (j = 0; j < n; ++j) row[j] *= inv;
    for (j = n; j < total; ++j) row[j] = 0.0f;
}

// row (n) = (q (hd) . kt (hd, ld)) * scale, kt holding the keys transposed, ld >= n rounded up to kLanes.
void scores_row(float* row, const float* q, const float* kt, int hd, int ld, int n, float scale) {
    for (int j0 = 0; j0 < n; j0 += kLanes) {
        F4 a0{}, a1{}, a2{}, a3{};
        for (int d = 0; d < hd; ++d) {
            const F4 qd = splat4(q[d]);
            const float* k = kt + size_t(d) * ld + j0;
            a0 += qd * load4(k);
            a1 += qd * load4(k + 4);
            a2 += qd * load4(k + 8);
            a3 += qd * load4(k + 12);
        }
        const F4 sc = splat4(scale);
        float acc[kLanes];
        const F4 out[4] = {a0 * sc, a1 * sc, a2 * sc, a3 * sc};
        std::memcpy(acc, out, sizeof acc);
        std::copy(acc, acc + std::min(kLanes, n - j0), row + j0);
    }
}

// out (hd) = p (n) . V (n, hd), V's rows ldv floats apart.
void weighted_values(float* out, const float* p, const float* v, int n, int hd, int ldv) {
    int d0 = 0;
    for (; d0 + kLanes <= hd; d0 += kLanes) {
        F4 a[4] = {};
        for (int j = 0; j < n; ++j) {
            const F4 pj = splat4(p[j]);
            const float* vj = v + size_t(j) * ldv + d0;
            a[0] += pj * load4(vj);
            a[1] += pj * load4(vj + 4);
            a[2] += pj * load4(vj + 8);
            a[3] += pj * load4(vj + 12);
        }
        std::memcpy(out + d0, a, sizeof a);
    }
    for (; d0 < hd; ++d0) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) acc += p[j] * v[size_t(j) * ldv + d0];
        out[d0] = acc;
    }
}

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
    length_ = 0;
}

void GPT2::forward(const int* ids, int T, const ForwardOptions& options) {
    reset();
    run(ids, T, options, Start{});
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
    layernorm(ln_.data(), resid, rows, C, ln_f_w_, ln_f_b_, config_.ln_eps);
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
        scores_row(row, q + size_t(i) * C + head * hd, kt.data(), hd, ld, i + 1, scale);
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

    // 1. embeddings: x[t] = wte[id] + wpe[position]; or the residual stream given, entering block start.layer
    if (start.resid) {
        std::copy(start.resid, start.resid + size_t(T) * C, x_.data());
    } else {
        for (int t = 0; t < T; ++t) {
            float* xt = x_.data() + size_t(t) * C;
            wte_.row(ids[t], xt);
            wpe_.row(p0 + t, proj_.data());
            for (int i = 0; i < C; ++i) xt[i] += proj_[i];
        }
    }
    // 2. the blocks
    for (int l = start.layer; l < L; ++l) {
        const LayerWeights& w = layers_[l];
        hook(HookPoint::ResidPre, l, x_.data(), T, C, C);
        layernorm(ln_.data(), x_.data(), T, C, w.ln_1_w, w.ln_1_b, config_.ln_eps);
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
        for (size_t i = 0; i < size_t(T) * C; ++i) x_[i] += proj_[i];
        hook(HookPoint::ResidMid, l, x_.data(), T, C, C);

        layernorm(ln_.data(), x_.data(), T, C, w.ln_2_w, w.ln_2_b, config_.ln_eps);
        w.c_fc.apply(fc_.data(), ln_.data(), T);  // (T, C) -> (T, 4C)
        gelu(fc_.data(), T, 4 * C);
        hook(HookPoint::MlpPost, l, fc_.data(), T, 4 * C, 4 * C);
        w.mlp_proj.apply(proj_.data(), fc_.data(), T);  // (T, 4C) -> (T, C)
        hook(HookPoint::MlpOut, l, proj_.data(), T, C, C);
        for (size_t i = 0; i < size_t(T) * C; ++i) x_[i] += proj_[i];
        hook(HookPoint::ResidPost, l, x_.data(), T, C, C);
    }
    // 3. final LayerNorm and the tied LM head, when every position's logits are wanted
    if (final_norm) {
        layernorm(ln_.data(), x_.data(), T, C, nullptr, nullptr, config_.ln_eps);
        hook(HookPoint::LnFinalNormalized, -1, ln_.data(), T, C, C);
        scale_shift(ln_.data(), T, C, ln_f_w_, ln_f_b_);
        if (logits) wte_.apply(logits, ln_.data(), T);  // (T, C) -> (T, V)
    } else if (logits) {
        unembed(x_.data(), T, logits);
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
                scores_row(row, qkv_.data() + size_t(i) * 3 * C + h * hd, kv.kt, hd, kv.ld, n, scale);
                masked_softmax_row(row, n, stride);
            }
        });
        hook(HookPoint::Pattern, l, probs, T, Tk, stride, h);
        // 2. out (hd) = probs . V
        parallel_for(T, work, [&](int begin, int end) {
            for (int k = begin; k < end; ++k) {
                const int i = row_at(k);
                weighted_values(att_out_.data() + size_t(i) * C + h * hd, probs + size_t(i) * stride, kv.v, p0 + i + 1,
                                hd, kv.ldv);
            }
        });
    }
}

}  // namespace arcscope
