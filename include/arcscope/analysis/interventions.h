// interventions.h: changing the forward pass at its hook points (hooks.h) and the analyses built on it, as
// TransformerLens users run them in Python: head ablation, activation patching, the logit lens and direct logit
// attribution. An intervention at layer l reuses the pass below l, and a sweep runs each layer's variants as one batch
// (Decoder::resume_variants) through the LM head's rows of its two tokens only, so a sweep over every head costs far
// less than a forward pass per head, with the same bits as one.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arcscope/model/decoder.h"
#include "arcscope/model/hooks.h"

namespace arcscope {

struct Intervention {
    enum class Kind { Zero, Mean, Replace };
    HookName hook;
    Kind kind = Kind::Zero;
    std::vector<int> heads;      // hook_q/k/v/z/pattern: the heads changed (empty: every head); no other hook has heads
    std::vector<int> positions;  // the positions changed (empty: every one)
    // Replace: the activation to put in, in the hook's full shape for the pass's T positions (hooks.h).
    // Mean: each column's mean over a clean run's positions (run_with_interventions fills it in).
    std::vector<float> values;
};

const char* intervention_kind_name(Intervention::Kind kind);  // "zero", "mean", "replace"

// Applies interventions to the pass they are given to (forward or resume of T positions in all).
class InterventionHooks : public Hooks {
public:
    InterventionHooks(const ModelConfig& config, std::vector<Intervention> list, int T);
    bool wants(const HookName& hook) const override;
    void visit(const HookSite& site, float* values) override;

private:
    ModelConfig config_;
    int T_;
    std::vector<Intervention> list_;
};

// ids through the model with the interventions (their heads, positions and values checked against the model); Mean
// ones first take their means from a clean run of the same ids. Leaves the results in the model (logits()).
void run_with_interventions(Decoder& model, const std::vector<int>& ids, std::vector<Intervention> list,
                            bool all_logits);

// logit[answer] - logit[wrong] at the last position of the model's last pass: the patching and ablation metric.
float logit_difference(const Decoder& model, int answer, int wrong);

// Activation patching from a clean prompt into a corrupted one of the same length, each effect normalised so that
// the clean run scores 1 and the corrupted run 0:
//   heads [L * H]: the corrupted run with one head's hook_z replaced by the clean run's (every position);
//   resid [L * T]: the corrupted run with hook_resid_pre of one layer at one position replaced by the clean one's.
struct Patching {
    float clean = 0, corrupted = 0;  // the metric on each prompt
    int first_difference = 0;        // the first position where the prompts differ (nothing changes before it)
    std::vector<float> heads, resid;
};
Patching patching_sweep(Decoder& model, const std::vector<int>& clean, const std::vector<int>& corrupted, int answer,
                        int wrong);

// The same sweep a step at a time, so a caller can show progress and stop between steps: the constructor runs both
// prompts, each next() one batch of a layer's variants (its heads, then its residual positions; Decoder::kVariantRows
// rows at most, or one variant). A cell not run yet reads 0.
class PatchingSweep {
public:
    PatchingSweep(Decoder& model, const std::vector<int>& clean, const std::vector<int>& corrupted, int answer,
                  int wrong);
    ~PatchingSweep();
    bool done() const;
    int layers_done() const { return layer_; }
    void next();
    const Patching& result() const { return out_; }

private:
    Decoder& model_;
    std::vector<int> corrupted_;
    int answer_, wrong_, layer_ = 0, next_variant_ = 0;  // of the layer: its heads, then its positions from d
    float span_ = 0;                                     // clean - corrupted: an effect is (metric - corrupted) / span
    std::unique_ptr<ActivationCache> clean_cache_;       // hook_z and hook_resid_pre of the clean run
    std::unique_ptr<ActivationCache> corrupted_cache_;   // hook_resid_pre of the corrupted run
    Patching out_;
};

// The metric with each head ablated alone at hook_z (every position): heads [L * H].
struct Ablation {
    float baseline = 0;
    std::vector<float> heads;
};
Ablation ablation_sweep(Decoder& model, const std::vector<int>& ids, int answer, int wrong, Intervention::Kind kind);

// The same sweep a step at a time (a batch of a layer's heads), as PatchingSweep.
class AblationSweep {
public:
    AblationSweep(Decoder& model, const std::vector<int>& ids, int answer, int wrong, Intervention::Kind kind);
    ~AblationSweep();
    bool done() const;
    int layers_done() const { return layer_; }
    void next();
    const Ablation& result() const { return out_; }

private:
    Decoder& model_;
    int T_, answer_, wrong_, layer_ = 0, next_head_ = 0;
    Intervention::Kind kind_;
    std::unique_ptr<ActivationCache> cache_;  // hook_resid_pre and hook_z of the run
    std::vector<float> means_;                // mean ablation: each layer's hook_z column means (n_layer x n_embd)
    Ablation out_;
};

// Each layer's residual stream (hook_resid_post) through ln_final and the unembedding: the k likeliest tokens per
// (layer, position), [L][T][k], and the target token's probability, [L][T] (empty without a target).
struct LogitLens {
    int layers = 0, positions = 0, k = 0;
    std::vector<int> top_ids;
    std::vector<float> top_probs, target;
};
LogitLens logit_lens(Decoder& model, const std::vector<int>& ids, int k, int target);

// Direct logit attribution: the token's logit at a position split into what each part of the residual stream
// adds to it through ln_final, with ln_final's scale taken from the run itself and each part centred, as
// TransformerLens's apply_ln_to_stack does. The parts ("embed", "blocks.{l}.attn.head.{h}", "blocks.{l}.attn.bias",
// "blocks.{l}.mlp", "ln_final.bias") add up to the logit.
struct Attribution {
    float logit = 0;
    std::vector<std::pair<std::string, float>> parts;
};
Attribution direct_logit_attribution(Decoder& model, const std::vector<int>& ids, int token, int position);

}  // namespace arcscope
