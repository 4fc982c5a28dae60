// hooks.h: named points inside the forward pass where activations can be read or changed, named as TransformerLens
// names them (blocks.{l}.attn.hook_z, blocks.{l}.hook_resid_pre, ln_final.hook_normalized, ...), so code written
// against TransformerLens reads the same here. The values are those of a model loaded without weight processing
// (TransformerLens's from_pretrained_no_processing: no folded LayerNorms, no centred weights), the batch dimension
// dropped:
//   blocks.{l}.hook_resid_pre / hook_resid_mid / hook_resid_post   [T, C]  the residual stream
//   blocks.{l}.attn.hook_q / hook_z                                 [T, H, d_head]  (z: the heads' outputs, before W_o)
//   blocks.{l}.attn.hook_k / hook_v                                 [T, KV, d_head]  the key/value heads (KV = H
//                                                                   but in grouped-query attention)
//   blocks.{l}.attn.hook_rot_q / hook_rot_k                         [T, H or KV, d_head]  after the rotation (rotary
//                                                                   positions only; after Qwen3's q/k norms, which
//                                                                   hook_q and hook_k precede)
//   blocks.{l}.attn.hook_pattern                                    [H, T, T]  softmax probabilities, query x key
//   blocks.{l}.hook_attn_out / hook_mlp_out                         [T, C]  what the sublayer adds to the stream
//   blocks.{l}.hook_resid_mid                                       [T, C]  (sequential blocks only: a parallel
//                                                                   block has no point between attention and MLP)
//   blocks.{l}.mlp.hook_post                                        [T, F]  after the activation (SwiGLU's product)
//   ln_final.hook_normalized                                        [T, C]  normalised, before ln_f's weight
// A Hooks object sees the points it asks for while the pass runs; it may read the values or overwrite them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "arcscope/formats/model_config.h"

namespace arcscope {

enum class HookPoint {
    ResidPre,
    Q,
    K,
    V,
    Pattern,
    Z,
    AttnOut,
    ResidMid,
    MlpPost,
    MlpOut,
    ResidPost,
    LnFinalNormalized,
    RotQ,
    RotK,
};

struct HookName {
    HookPoint point;
    int layer;  // -1 for ln_final
    bool operator==(const HookName& o) const { return point == o.point && layer == o.layer; }
};

// "blocks.8.attn.hook_pattern" -> {Pattern, 8}; an Error naming what is wrong for anything else (a layer the
// config does not have included).
HookName parse_hook_name(const std::string& name, const ModelConfig& config);
std::string hook_name(const HookName& hook);
// Whether a model of this config has the point: rotations only with rotary positions, resid_mid only in sequential
// blocks.
bool has_hook_point(HookPoint point, const ModelConfig& config);
// Every name of a model, in the order the pass reaches them.
std::vector<HookName> all_hooks(const ModelConfig& config);
// The shape of a hook's activation over T positions from position `first` (all of them with first 0): [T, ...], and
// for the pattern [H, T, first + T], each query row over every key it may see.
std::vector<int> hook_shape(const HookName& hook, const ModelConfig& config, int T, int first = 0);

// Where a hook's values are, for one chunk of positions [first, first + rows) of the pass:
//   row r, column c is values[r * stride + c], for c < width.
// Pattern is visited once per head (head >= 0), rows = queries, width = keys seen so far (row r sees first + r + 1
// of them; the rest are zero).
struct HookSite {
    HookName hook;
    int head;  // Pattern only; -1 otherwise
    int first, rows, width, stride;
};

// Where a site's rows go in its hook's shape over T positions from `first` (hook_shape, row-major, `elements` values
// in all): rows of `length` values from row `first`. Rows are positions for [T, ...] hooks and (head, query) for the
// pattern.
struct HookRows {
    size_t first, length;
};
HookRows hook_rows(const HookSite& site, int T, size_t elements, int first = 0);

class Hooks {
public:
    virtual ~Hooks() = default;
    virtual bool wants(const HookName& hook) const = 0;
    virtual void visit(const HookSite& site, float* values) = 0;
    // Whether visit may change the values: the KV cache of such a pass holds what the tokens alone do not give, so
    // a later pass may not reuse it (Decoder::cached_prefix).
    virtual bool changes_values() const { return true; }
};

// The names asked for, each once, with its full shape and its size checked (Error if too large): what a cache of
// them holds, whichever memory it writes to.
struct HookSlot {
    HookName hook;
    std::vector<int> shape;
    size_t elements;
};
std::vector<HookSlot> hook_slots(const ModelConfig& config, const std::vector<HookName>& names, int T, int first = 0);

// Records the named activations of one pass (Decoder::forward with these hooks) over positions [first, first + T),
// each in its shape (hook_shape).
class ActivationCache : public Hooks {
public:
    ActivationCache(const ModelConfig& config, std::vector<HookName> names, int T, int first = 0);
    bool wants(const HookName& hook) const override;
    void visit(const HookSite& site, float* values) override;
    bool changes_values() const override { return false; }

    struct Entry {
        HookName hook;
        std::vector<int> shape;
        std::vector<float> data;
    };
    const std::vector<Entry>& entries() const { return entries_; }

private:
    ModelConfig config_;
    int T_, first_;
    std::vector<Entry> entries_;
};

}  // namespace arcscope
