// kept_queries.h: one analysed text's queries and keys, every layer's, as its pass records them at the hooks an
// attention pattern is computed from (hook_q and hook_k, or hook_rot_q and hook_rot_k where positions rotate). A
// viewer that keeps them computes exactly the heads it shows (Decoder::attention_pattern) instead of holding every
// head's T x T: GPT-2 small on 1,024 tokens keeps 75 MB here rather than 604 MB of patterns.
// The pass writes into it in place (it is the pass's Hooks), so nothing is copied out and back. An edit of the text
// resumes from it: begin(first, T) keeps the rows before `first`, and the pass writes the rest, within the room the
// rows have (T rounded up to kRoom) before they must grow.
#pragma once
#include <cstddef>
#include <vector>

#include "arcscope/formats/model_config.h"
#include "arcscope/model/hooks.h"

namespace arcscope {

class KeptQueries : public Hooks {
public:
    static constexpr int kRoom = 128;  // rows are allocated in steps of this many: typing at the end fills them

    explicit KeptQueries(const ModelConfig& config);

    // Before a pass over positions [first, T): the rows before `first` stay, room is made for T (kept rows are
    // copied only when it grows), and length() is `first` until finish().
    void begin(int first, int T);
    // After the pass has written every row: length() is the T of begin().
    void finish() { length_ = pending_; }

    int length() const { return length_; }  // positions held
    size_t bytes() const;                   // what the rows take, room included
    const ModelConfig& config() const { return config_; }
    const float* queries(int layer) const { return q_[size_t(layer)].data(); }  // (T, n_head, head_dim)
    const float* keys(int layer) const { return k_[size_t(layer)].data(); }     // (T, kv_heads, head_dim)
    // The hooks it records in layer `layer`: {queries, keys}.
    static HookName queries_hook(const ModelConfig& config, int layer);
    static HookName keys_hook(const ModelConfig& config, int layer);

    bool wants(const HookName& hook) const override;
    void visit(const HookSite& site, float* values) override;
    bool changes_values() const override { return false; }

private:
    ModelConfig config_;
    int length_ = 0, pending_ = 0, room_ = 0;
    std::vector<std::vector<float>> q_, k_;  // per layer, room_ rows
};

}  // namespace arcscope
