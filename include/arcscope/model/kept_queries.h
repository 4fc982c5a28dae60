// kept_queries.h: one analysed text's queries and keys, every layer's, as its pass records them at the hooks an
// attention pattern is computed from (hook_q and hook_k, or hook_rot_q and hook_rot_k where positions rotate). A
// viewer that keeps them computes exactly the heads it shows (Decoder::attention_pattern) instead of holding every
// head's T x T: GPT-2 small on 1,024 tokens keeps 75 MB here rather than 604 MB of patterns.
// The pass writes into it in place (it is the pass's Hooks), so nothing is copied out and back. It also keeps what
// the pass's probabilities give for free as they go by, and a view would otherwise compute every head again for:
// the sum and the max of every head of every layer, layer by layer and head by head (T (T + 1) / 2 floats each).
// An edit of the text resumes from it: begin(first, T) keeps the rows before `first`, and the pass writes the rest,
// within the room the rows have (T rounded up to kRoom) before they must grow.
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
    // Error unless a model of config made them: its queries' and keys' shapes and its positions.
    void check_model(const ModelConfig& config) const;
    const float* queries(int layer) const { return q_[size_t(layer)].data(); }  // (T, n_head, head_dim)
    const float* keys(int layer) const { return k_[size_t(layer)].data(); }     // (T, kv_heads, head_dim)
    // Query row i's sum (or max) over every head of every layer of its probabilities for keys 0..i: i + 1 floats.
    // The sum adds them in float32, layer after layer, each layer's heads in order.
    const float* sum_row(int i) const { return sum_.data() + triangle(i); }
    const float* max_row(int i) const { return max_.data() + triangle(i); }
    // The hooks it records in layer `layer`: {queries, keys}.
    static HookName queries_hook(const ModelConfig& config, int layer);
    static HookName keys_hook(const ModelConfig& config, int layer);

    bool wants(const HookName& hook) const override;
    void visit(const HookSite& site, float* values) override;
    bool changes_values() const override { return false; }

private:
    void grow(int first, int T);
    static size_t triangle(int rows) { return size_t(rows) * size_t(rows + 1) / 2; }  // where row `rows` starts
    void keep_rows(const HookSite& site, const float* values);
    void add_probabilities(const HookSite& site, const float* values);

    ModelConfig config_;
    int length_ = 0, pending_ = 0, room_ = 0;
    std::vector<std::vector<float>> q_, k_;  // per layer, room_ rows
    std::vector<float> sum_, max_;           // rows of 1, 2, ... T values (room for room_ rows)
};

}  // namespace arcscope
