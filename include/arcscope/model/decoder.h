// decoder.h: decoder inference over a loaded model file: forward pass with optional attention capture, and a KV cache
// so each appended token costs one position's work.
//
// Every matrix product of the linear layers goes through the int8 (or f32) kernels of quant.h; attention is written
// out in loops whose sums run in one fixed order, so native and wasm builds give the same bits. Inputs pass through the
// blocks 64 positions at a time; buffers grow to the largest chunk seen and are then reused: appending a token
// allocates nothing.
#pragma once
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "arcscope/formats/model_config.h"
#include "arcscope/formats/model_file.h"
#include "arcscope/kernels/quant.h"
#include "arcscope/model/hooks.h"
#include "arcscope/model/kv_cache.h"

namespace arcscope {

// A linear layer's weights, in place in the model file: W (rows, cols) either packed (q8, q16) or plain f32,
// bias (rows).
struct Linear {
    DType type = DType::F32;
    const float* w = nullptr;  // f32 weights (rows, cols), when type == F32
    QView q;                   // packed weights, when type is Q8 or Q16
    const float* bias = nullptr;
    int rows = 0;  // out_features
    int cols = 0;  // in_features

    void apply(float* out, const float* x, int T, bool with_bias = true) const;  // x (T, cols) -> out (T, rows)
    void row(int r, float* out) const;                                           // row r of W as f32 (embedding lookup)
};

// What a pass computes besides the last position's logits, by name rather than by position:
//   model.forward(ids, T, ForwardOptions().with_attention().with_hooks(&cache));
struct ForwardOptions {
    bool attention = false;   // every layer's and head's probabilities (n_layer, n_head, T, keys)
    bool all_logits = false;  // logits of every position (T, n_vocab), not only the last
    Hooks* hooks = nullptr;   // see, and may change, the activations they ask for during the call (hooks.h)

    ForwardOptions& with_attention(bool on = true) {
        attention = on;
        return *this;
    }
    ForwardOptions& with_all_logits(bool on = true) {
        all_logits = on;
        return *this;
    }
    ForwardOptions& with_hooks(Hooks* h) {
        hooks = h;
        return *this;
    }
};

// One variant of a pass from a block on (Decoder::resume_variants): positions [first, first + rows), their residual
// stream entering the block (rows x n_embd), and the hooks that see and may change its activations (or null).
struct Variant {
    int first = 0, rows = 0;
    const float* resid = nullptr;
    Hooks* hooks = nullptr;
};

// One block's weights. Absent parts (biases, LayerNorm's bias in RMSNorm models, q/k norms, the gate) are null or
// empty Linears: the architecture (ModelConfig) says which a block has.
struct LayerWeights {
    const float* ln_1_w;
    const float* ln_1_b;
    Linear c_attn;        // ((H + 2 KV) d, C): rows [q | k | v]
    const float* q_norm;  // (d), Qwen3
    const float* k_norm;  // (d), Qwen3
    Linear attn_proj;     // (C, H d)
    const float* ln_2_w;
    const float* ln_2_b;
    Linear c_fc;      // (F, C): the MLP's input projection (SwiGLU's up)
    Linear gate;      // (F, C): SwiGLU's gate
    Linear mlp_proj;  // (C, F)
};

class Decoder {
public:
    // Uses the file's bytes in place: they must outlive the model. `owner` optionally keeps them alive.
    explicit Decoder(const ModelFile& file, std::shared_ptr<const void> owner = nullptr);
    static std::unique_ptr<Decoder> load(const std::string& path);  // reads the file, validates, owns the bytes

    const ModelConfig& config() const { return config_; }
    DType weight_type() const { return weight_type_; }
    const ModelFile& file() const { return file_; }

    // ids (T) -> logits of the last position (1, n_vocab), and what the options ask for. Restarts the KV cache with
    // these ids.
    void forward(const int* ids, int T, const ForwardOptions& options = {});
    // The same pass over ids, keeping the KV cache's first `first` positions (at most cached_prefix(ids, T)) and
    // running only positions [first, T): the same bits as forward() at those positions, for the cost of T - first.
    // All logits, the attention capture (n_layer, n_head, T - first, T) and the hooks (sites from position first)
    // then cover those positions only.
    void forward_from(int first, const int* ids, int T, const ForwardOptions& options = {});
    // How many of ids' first positions the KV cache holds as a pass over those very tokens left them, at most T - 1
    // (the last position is always run, for its logits). Passes whose hooks changed values, and resume(), leave
    // positions that no tokens alone give: they are not counted.
    int cached_prefix(const int* ids, int T) const;
    // One more token at position length(): logits (1, n_vocab) and, if asked, attention (n_layer, n_head, length()).
    void append(int id, const ForwardOptions& options = {});
    // Runs positions [first, first + rows) again from block `layer`, given their residual stream entering it
    // (rows x n_embd), with the KV cache's first positions as they are: what an intervention at that layer changes,
    // without recomputing what it cannot. Logits of the last position, as forward() without all_logits.
    void resume(int layer, int first, const float* resid_pre, int rows, Hooks* hooks = nullptr);
    // Many variants of the pass from block `layer`, run as batches: the linear layers take every variant's rows at
    // once, so each weight is read once per batch rather than once per variant; attention runs per variant, over
    // the KV cache's positions before its first (which it reads and never writes) and its own rows. out (variants x
    // tokens): each variant's logits of `tokens` at its last position, through those tokens' rows of the LM head
    // only. The same bits as resume() of each variant alone, read at those tokens. The KV cache is left as it was;
    // logits() holds nothing afterwards.
    void resume_variants(int layer, const std::vector<Variant>& variants, const std::vector<int>& tokens, float* out);
    // Rows of a batch of variants: enough for the kernels' full speed (at 128, a 14-token ablation sweep took 11%
    // longer, its 168 rows a layer then two batches), its scratch about 20 MB for GPT-2 small at 1,024 positions. A
    // variant longer than this is a batch of its own.
    static constexpr int kVariantRows = 256;
    // Where the batch that starts at variant `begin` of `count` ends: as many variants as fit in kVariantRows rows
    // (rows_of(i) each), at least one. resume_variants runs its variants in such batches; a sweep steps by them.
    template <class Rows>
    static int variant_batch_end(int begin, int count, Rows rows_of) {
        int end = begin, rows = 0;
        while (end < count && (end == begin || rows + rows_of(end) <= kVariantRows)) rows += rows_of(end++);
        return end;
    }
    // One layer's attention probabilities recomputed from its queries and keys, as the hooks record them
    // (hook_q and hook_k, or hook_rot_q and hook_rot_k where positions rotate: q (T, n_head, head_dim), k (T,
    // kv_heads, head_dim)): head's (T, T),
    // causal, zeros above the diagonal, the same bits as forward()'s capture of that layer and head. So a viewer can
    // keep q and k (2 T C floats a layer) instead of every head's (T, T), and compute exactly the heads it shows.
    void attention_pattern(const float* q, const float* k, int T, int head, float* out) const;
    // The same head max-pooled to out (size, size), 1 <= size <= T: cell (r, c) is the largest probability of query
    // rows i and keys j with i * size / T == r and j * size / T == c, for a thumbnail. The T x T is never held: rows
    // are computed one at a time.
    void attention_thumbnail(const float* q, const float* k, int T, int head, int size, float* out) const;
    // The final LayerNorm and the tied unembedding of any residual stream rows (rows x n_embd) -> (rows x n_vocab).
    void unembed(const float* resid, int rows, float* logits);
    // The same for one row and some tokens only: logits (n) of tokens (n), the same bits as those of unembed(), for
    // the cost of n rows of the LM head instead of n_vocab.
    void unembed_tokens(const float* resid, const int* tokens, int n, float* logits);
    // The weights, for analyses that read them (direct logit attribution).
    const LayerWeights& layer(int l) const { return layers_[size_t(l)]; }
    const Linear& unembedding() const { return *head_; }  // (n_vocab, n_embd): the token embedding, when tied
    const float* ln_f_weight() const { return ln_f_w_; }
    const float* ln_f_bias() const { return ln_f_b_; }  // null for RMSNorm
    // The final norm of rows (rows x n_embd) -> out, before its weight (and bias) or, with `scaled`, after them: the
    // model's own LayerNorm or RMSNorm.
    void final_norm(float* out, const float* resid, int rows, bool scaled) const;

    void reset() {  // empties the KV cache
        length_ = 0;
        cached_ids_.clear();
    }
    // How the KV cache stores keys and values (kv_cache.h): f32 by default, f16 for half the memory. Empties it.
    void set_kv_type(KVType type);
    KVType kv_type() const { return kv_.type(); }
    size_t kv_bytes() const { return kv_.bytes(); }  // what the KV cache holds now
    int length() const { return length_; }

    // Results of the last forward/append (pointers into internal buffers, valid until the next call).
    const float* logits() const { return logits_.data(); }
    int logits_rows() const { return logits_rows_; }
    const float* attention() const { return has_attention_ ? attn_capture_.data() : nullptr; }
    int attention_queries() const { return attn_queries_; }  // T for forward, 1 for append
    int attention_keys() const { return attn_keys_; }        // keys each query row spans
    size_t attention_values() const {                        // n_layer * n_head * queries * keys
        return size_t(config_.n_layer) * config_.n_head * attn_queries_ * attn_keys_;  // checked when allocated
    }

private:
    ModelConfig config_;
    DType weight_type_;
    ModelFile file_;
    std::shared_ptr<const void> owner_;
    Linear wte_, wpe_;            // token and (learned) position embeddings
    Linear lm_head_;              // an untied LM head
    const Linear* head_ = &wte_;  // the LM head: wte_ or lm_head_
    std::vector<LayerWeights> layers_;
    const float* ln_f_w_ = nullptr;
    const float* ln_f_b_ = nullptr;

    int length_ = 0;
    KVCache kv_;
    std::vector<int> cached_ids_;  // the token behind each cached position, -1 where no token alone gives it
    std::vector<float> x_, ln_, qkv_, att_out_, proj_, fc_, up_, mlp_out_, scores_, logits_, attn_capture_;
    // Rotary positions: cos and sin (positions, rotary_dim / 2) of every position up to the longest pass so far.
    std::vector<float> rope_cos_, rope_sin_;
    int rope_positions_ = 0;
    std::vector<float> position_row_;  // one position's embedding (C), while embed() adds it
    // A variant's own keys (C, ld) and values (rows, C), as the cache would hold them.
    std::vector<float> own_kt_, own_v_;
    std::vector<KVCache::Head> heads_;  // the layer's heads being attended to (attend)
    int logits_rows_ = 0, attn_queries_ = 0, attn_keys_ = 0;
    bool has_attention_ = false;

    // Where attention probabilities go: rows [first, first + T) of a (L, H, queries, keys) buffer, or nowhere.
    struct Capture {
        float* data;
        int queries, first, keys;
    };
    static constexpr int kPrefillChunk =
        64;  // positions per pass through the blocks (its scratch: 2.8 MB for GPT-2 small)

    void check_ids(const int* ids, int n) const;
    void check_tokens(const int* tokens, int n) const;
    void check_pattern(const char* what, int T, int head) const;
    void keys_transposed(const float* k, int stride, int T, int head, int ld, float* kt) const;
    void check_finite(const float* logits, int rows, int V, int first_position, bool changed) const;
    // The sequences of the chunk being run, their rows one after another: one for a pass (its hooks, its residual
    // stream or null for token ids), one per variant for resume_variants. Variants keep their keys and values to
    // themselves (own_kt_, own_v_); a pass stores them in the KV cache.
    std::vector<Variant> segments_;
    bool variants_ = false;

    // Where a pass begins: block 0 from token ids, or block `layer` from a residual stream (resume).
    struct Start {
        int layer = 0;
        const float* resid = nullptr;
    };
    void run(const int* ids, int T, const ForwardOptions& options, Start start);  // positions length_..
    void run_chunk(const int* ids, int T, const Capture& cap, float* logits, bool normalize, int layer);
    void embed(const int* ids, int T);
    void norm(float* out, const float* x, int T, const float* w, const float* b) const;
    void rotate(float* qkv);  // the chunk's queries and keys, each segment at its positions
    void rope_reserve(int positions);
    void attention_block(int layer, const LayerWeights& w, const Capture& cap, int& T, bool trim, bool trim_attention);
    void mlp_block(const LayerWeights& w, int T, int layer, float* out);
    void lm_head_tokens(const float* normed, const int* tokens, int n, float* logits) const;
    void hook(HookPoint point, int layer, float* values, int width, int stride);
    bool any_hooked(std::initializer_list<HookPoint> points, int layer) const;
    int keep_last_rows();
    void attention_layer(int layer, const Capture& cap, bool last_rows_only);
    void attend(int layer, const Variant& segment, size_t row0, const Capture& cap, bool last_row_only);
};

}  // namespace arcscope
