// interventions.cpp: ablation, patching, the logit lens and direct logit attribution (interventions.h).
#include "arcscope/analysis/interventions.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "arcscope/core/error.h"

namespace arcscope {
namespace {

// Whether the point's activation has a head axis, and how many heads: key/value heads for k, v and their rotation.
bool has_heads(HookPoint p) {
    return p == HookPoint::Q || p == HookPoint::K || p == HookPoint::V || p == HookPoint::RotQ ||
           p == HookPoint::RotK || p == HookPoint::Z || p == HookPoint::Pattern;
}

int heads_of(HookPoint p, const ModelConfig& c) {
    return p == HookPoint::K || p == HookPoint::V || p == HookPoint::RotK ? c.kv_heads() : c.n_head;
}

bool contains(const std::vector<int>& v, int x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
}

size_t element_count(const std::vector<int>& shape) {
    return std::accumulate(shape.begin(), shape.end(), size_t(1), [](size_t a, int b) { return a * size_t(b); });
}

// Columns of a hook's row (a position's values).
int row_width(const HookName& hook, const ModelConfig& c) {
    if (hook.point == HookPoint::MlpPost) return c.mlp_width();
    if (has_heads(hook.point) && hook.point != HookPoint::Pattern) return heads_of(hook.point, c) * c.head_dim();
    return c.n_embd;
}

void check_token(int id, const ModelConfig& c, const char* what) {
    require(id >= 0 && id < c.n_vocab, std::string(what) + " token id " + std::to_string(id) +
                                           " is outside the vocabulary [0, " + std::to_string(c.n_vocab) + ")");
}

void check_prompt(const std::vector<int>& ids, const ModelConfig& c, const char* what) {
    require(!ids.empty(), std::string(what) + " is empty: it has no tokens to run");
    require(ids.size() <= size_t(c.n_ctx), std::string(what) + " has " + std::to_string(ids.size()) +
                                               " tokens; the model reads at most " + std::to_string(c.n_ctx));
}

std::vector<HookName> every_layer(HookPoint point, int n_layer) {
    std::vector<HookName> names;
    for (int l = 0; l < n_layer; ++l) names.push_back({point, l});
    return names;
}

const std::vector<float>& cached(const ActivationCache& cache, HookName hook) {
    for (const ActivationCache::Entry& e : cache.entries())
        if (e.hook == hook) return e.data;
    throw Error("internal: " + hook_name(hook) + " was not cached");
}

// Each column's mean over the rows of a [T, width] activation.
std::vector<float> column_means(const std::vector<float>& values, int T, int width) {
    std::vector<double> sum(static_cast<size_t>(width), 0.0);
    for (int t = 0; t < T; ++t)
        for (int c = 0; c < width; ++c) sum[size_t(c)] += values[size_t(t) * width + c];
    std::vector<float> mean(static_cast<size_t>(width));
    for (int c = 0; c < width; ++c) mean[size_t(c)] = float(sum[size_t(c)] / T);
    return mean;
}

}  // namespace

const char* intervention_kind_name(Intervention::Kind kind) {
    switch (kind) {
        case Intervention::Kind::Zero:
            return "zero";
        case Intervention::Kind::Mean:
            return "mean";
        default:
            return "replace";
    }
}

InterventionHooks::InterventionHooks(const ModelConfig& config, std::vector<Intervention> list, int T)
    : config_(config), T_(T), list_(std::move(list)) {
    for (const Intervention& iv : list_) {
        const std::string name = hook_name(iv.hook);
        require(iv.heads.empty() || has_heads(iv.hook.point),
                name +
                    " has no heads: give heads only for attn.hook_q, hook_k, hook_v, hook_rot_q, hook_rot_k, hook_z "
                    "or hook_pattern");
        const int heads = heads_of(iv.hook.point, config);
        for (int h : iv.heads)
            require(h >= 0 && h < heads,
                    name + ": head " + std::to_string(h) + " is not in [0, " + std::to_string(heads) + ")");
        for (int p : iv.positions)
            require(p >= 0 && p < T, name + ": position " + std::to_string(p) + " is not in [0, " + std::to_string(T) +
                                         ") of this " + std::to_string(T) + "-token input");
        if (iv.kind == Intervention::Kind::Replace) {
            const size_t n = element_count(hook_shape(iv.hook, config, T));
            require(iv.values.size() == n, name + ": replacing it needs " + std::to_string(n) + " values (" +
                                               std::to_string(T) + " positions), got " +
                                               std::to_string(iv.values.size()));
        }
        if (iv.kind == Intervention::Kind::Mean) {
            require(iv.hook.point != HookPoint::Pattern, name + ": mean ablation is for activations, not patterns");
            require(iv.values.size() == size_t(row_width(iv.hook, config)), name + ": its means are missing");
        }
    }
}

bool InterventionHooks::wants(const HookName& hook) const {
    return std::any_of(list_.begin(), list_.end(), [&](const Intervention& iv) { return iv.hook == hook; });
}

void InterventionHooks::visit(const HookSite& site, float* values) {
    const int hd = config_.head_dim();
    for (const Intervention& iv : list_) {
        if (!(iv.hook == site.hook)) continue;
        const bool pattern = site.hook.point == HookPoint::Pattern;
        if (pattern && !contains(iv.heads, site.head)) continue;
        // Column ranges of a row: one per head changed for q/k/v/z, the whole row otherwise.
        std::vector<std::pair<int, int>> ranges;
        if (has_heads(site.hook.point) && !pattern) {
            for (int h = 0; h < heads_of(site.hook.point, config_); ++h)
                if (contains(iv.heads, h)) ranges.push_back({h * hd, (h + 1) * hd});
        } else {
            ranges.push_back({0, site.width});
        }
        for (int r = 0; r < site.rows; ++r) {
            const int position = site.first + r;
            if (!contains(iv.positions, position)) continue;
            float* row = values + size_t(r) * site.stride;
            const float* source = nullptr;  // Replace: this position's row of the given activation
            if (iv.kind == Intervention::Kind::Replace)
                source = pattern ? iv.values.data() + (size_t(site.head) * T_ + position) * T_
                                 : iv.values.data() + size_t(position) * site.width;
            for (auto [from, to] : ranges)
                for (int c = from; c < to; ++c)
                    row[c] = iv.kind == Intervention::Kind::Zero   ? 0.0f
                             : iv.kind == Intervention::Kind::Mean ? iv.values[size_t(c)]
                                                                   : source[c];
        }
    }
}

void run_with_interventions(Decoder& model, const std::vector<int>& ids, std::vector<Intervention> list,
                            bool all_logits) {
    const ModelConfig& c = model.config();
    check_prompt(ids, c, "the input");
    const int T = int(ids.size());
    std::vector<HookName> to_average;
    for (const Intervention& iv : list)
        if (iv.kind == Intervention::Kind::Mean && iv.hook.point != HookPoint::Pattern) to_average.push_back(iv.hook);
    if (!to_average.empty()) {
        ActivationCache clean(c, to_average, T);
        model.forward(ids.data(), T, ForwardOptions().with_hooks(&clean));
        for (Intervention& iv : list)
            if (iv.kind == Intervention::Kind::Mean && iv.hook.point != HookPoint::Pattern)
                iv.values = column_means(cached(clean, iv.hook), T, row_width(iv.hook, c));
    }
    InterventionHooks hooks(c, std::move(list), T);
    model.forward(ids.data(), T, ForwardOptions().with_all_logits(all_logits).with_hooks(&hooks));
}

float logit_difference(const Decoder& model, int answer, int wrong) {
    const int V = model.config().n_vocab;
    const float* last = model.logits() + size_t(model.logits_rows() - 1) * V;
    return last[answer] - last[wrong];
}

namespace {

// The metric of each variant of a batch from layer l (Decoder::resume_variants), through the LM head's rows of the
// answer and the wrong answer only.
std::vector<float> metrics(Decoder& model, int layer, const std::vector<Variant>& variants, int answer, int wrong) {
    std::vector<float> logits(variants.size() * 2), out(variants.size());
    model.resume_variants(layer, variants, {answer, wrong}, logits.data());
    for (size_t v = 0; v < variants.size(); ++v) out[v] = logits[2 * v] - logits[2 * v + 1];
    return out;
}

std::vector<HookName> names_of(std::initializer_list<HookPoint> points, int n_layer) {
    std::vector<HookName> names;
    for (HookPoint p : points)
        for (const HookName& n : every_layer(p, n_layer)) names.push_back(n);
    return names;
}

}  // namespace

PatchingSweep::PatchingSweep(Decoder& model, const std::vector<int>& clean, const std::vector<int>& corrupted,
                             int answer, int wrong)
    : model_(model), corrupted_(corrupted), answer_(answer), wrong_(wrong) {
    const ModelConfig& c = model.config();
    check_prompt(clean, c, "the clean prompt");
    check_prompt(corrupted, c, "the corrupted prompt");
    require(clean.size() == corrupted.size(), "patching needs prompts of the same length: the clean prompt has " +
                                                  std::to_string(clean.size()) + " tokens, the corrupted one " +
                                                  std::to_string(corrupted.size()));
    check_token(answer, c, "the answer");
    check_token(wrong, c, "the wrong answer");
    const int T = int(clean.size()), L = c.n_layer;
    int d = 0;
    while (d < T && clean[size_t(d)] == corrupted[size_t(d)]) ++d;
    require(d < T, "the clean and corrupted prompts are the same tokens: patching one into the other changes nothing");

    clean_cache_ = std::make_unique<ActivationCache>(c, names_of({HookPoint::Z, HookPoint::ResidPre}, L), T);
    model.forward(clean.data(), T, ForwardOptions().with_hooks(clean_cache_.get()));
    out_.clean = logit_difference(model, answer, wrong);
    corrupted_cache_ = std::make_unique<ActivationCache>(c, names_of({HookPoint::ResidPre}, L), T);
    model.forward(corrupted.data(), T, ForwardOptions().with_hooks(corrupted_cache_.get()));
    out_.corrupted = logit_difference(model, answer, wrong);
    out_.first_difference = d;
    span_ = out_.clean - out_.corrupted;
    require(std::isfinite(span_) && span_ != 0.0f,
            "the metric is the same on both prompts (" + std::to_string(out_.clean) +
                "): there is no difference for patching to recover; choose answers the prompts disagree on");
    out_.heads.assign(size_t(L) * c.n_head, 0.0f);
    out_.resid.assign(size_t(L) * T, 0.0f);
}

PatchingSweep::~PatchingSweep() = default;

bool PatchingSweep::done() const {
    return layer_ == model_.config().n_layer;
}

// Layer l's variants, one batch of them a step, resume at their position over the corrupted run's KV cache before it:
// positions before the first difference are the same in both runs (the model is causal), so nothing there needs
// running again. Variant i of the layer:
//   i < H, head i: its z from the clean run, positions [d, T) from the corrupted run's stream;
//   i >= H, position p = d + i - H: positions [p, T) of the corrupted run's stream with row p the clean run's.
// Before the first difference the two runs agree, so those residual effects stay 0.
void PatchingSweep::next() {
    require(!done(), "the patching sweep has run every layer");
    const ModelConfig& c = model_.config();
    const int T = int(corrupted_.size()), H = c.n_head, C = c.n_embd, d = out_.first_difference, l = layer_;
    // Anything run on the model since leaves a KV cache the variants cannot read: run the corrupted prompt again.
    if (model_.cached_prefix(corrupted_.data(), T) < d) model_.forward(corrupted_.data(), T);
    const std::vector<float>& mine = cached(*corrupted_cache_, {HookPoint::ResidPre, l});
    const std::vector<float>& theirs = cached(*clean_cache_, {HookPoint::ResidPre, l});
    const int count = H + (T - d), begin = next_variant_;
    const int end = Decoder::variant_batch_end(begin, count, [&](int i) { return i < H ? T - d : T - (d + i - H); });
    std::vector<InterventionHooks> hooks;
    std::vector<std::vector<float>> streams;
    hooks.reserve(size_t(end - begin));  // the variants point into both
    streams.reserve(size_t(end - begin));
    std::vector<Variant> variants;
    for (int i = begin; i < end; ++i) {
        if (i < H) {
            hooks.emplace_back(c,
                               std::vector<Intervention>{{{HookPoint::Z, l},
                                                          Intervention::Kind::Replace,
                                                          {i},
                                                          {},
                                                          cached(*clean_cache_, {HookPoint::Z, l})}},
                               T);
            variants.push_back({d, T - d, mine.data() + size_t(d) * C, &hooks.back()});
        } else {
            const int p = d + i - H;
            streams.emplace_back(mine.begin() + ptrdiff_t(size_t(p) * C), mine.end());
            std::copy_n(theirs.begin() + ptrdiff_t(size_t(p) * C), C, streams.back().begin());
            variants.push_back({p, T - p, streams.back().data(), nullptr});
        }
    }
    const std::vector<float> m = metrics(model_, l, variants, answer_, wrong_);
    for (int i = begin; i < end; ++i) {
        const float effect = (m[size_t(i - begin)] - out_.corrupted) / span_;
        if (i < H) out_.heads[size_t(l) * H + i] = effect;
        else out_.resid[size_t(l) * T + d + i - H] = effect;
    }
    next_variant_ = end == count ? 0 : end;
    if (end == count) ++layer_;
}

Patching patching_sweep(Decoder& model, const std::vector<int>& clean, const std::vector<int>& corrupted, int answer,
                        int wrong) {
    PatchingSweep sweep(model, clean, corrupted, answer, wrong);
    while (!sweep.done()) sweep.next();
    return sweep.result();
}

AblationSweep::AblationSweep(Decoder& model, const std::vector<int>& ids, int answer, int wrong,
                             Intervention::Kind kind)
    : model_(model), T_(int(ids.size())), answer_(answer), wrong_(wrong), kind_(kind) {
    const ModelConfig& c = model.config();
    check_prompt(ids, c, "the input");
    check_token(answer, c, "the answer");
    check_token(wrong, c, "the wrong answer");
    require(kind != Intervention::Kind::Replace, "ablation is zero or mean");
    cache_ = std::make_unique<ActivationCache>(c, names_of({HookPoint::ResidPre, HookPoint::Z}, c.n_layer), T_);
    model.forward(ids.data(), T_, ForwardOptions().with_hooks(cache_.get()));
    out_.baseline = logit_difference(model, answer, wrong);
    out_.heads.assign(size_t(c.n_layer) * c.n_head, 0.0f);
    if (kind == Intervention::Kind::Mean)  // once a layer, however many steps the layer takes
        for (int l = 0; l < c.n_layer; ++l) {
            const std::vector<float> m = column_means(cached(*cache_, {HookPoint::Z, l}), T_, c.q_width());
            means_.insert(means_.end(), m.begin(), m.end());
        }
}

AblationSweep::~AblationSweep() = default;

bool AblationSweep::done() const {
    return layer_ == model_.config().n_layer;
}

// Layer l's heads, each ablated at every position, one batch of them a step (no KV cache before position 0 to read, so
// anything run on the model meanwhile changes nothing here).
void AblationSweep::next() {
    require(!done(), "the ablation sweep has run every layer");
    const ModelConfig& c = model_.config();
    const int H = c.n_head, l = layer_, begin = next_head_;
    const int end = Decoder::variant_batch_end(begin, H, [&](int) { return T_; });
    const std::vector<float> means = kind_ == Intervention::Kind::Mean
                                         ? std::vector<float>(means_.begin() + ptrdiff_t(size_t(l) * c.q_width()),
                                                              means_.begin() + ptrdiff_t(size_t(l + 1) * c.q_width()))
                                         : std::vector<float>();
    std::vector<InterventionHooks> hooks;
    hooks.reserve(size_t(end - begin));  // the variants point into it
    std::vector<Variant> variants;
    for (int h = begin; h < end; ++h) {
        hooks.emplace_back(c, std::vector<Intervention>{{{HookPoint::Z, l}, kind_, {h}, {}, means}}, T_);
        variants.push_back({0, T_, cached(*cache_, {HookPoint::ResidPre, l}).data(), &hooks.back()});
    }
    const std::vector<float> m = metrics(model_, l, variants, answer_, wrong_);
    std::copy(m.begin(), m.end(), out_.heads.begin() + ptrdiff_t(size_t(l) * H + begin));
    next_head_ = end == H ? 0 : end;
    if (end == H) ++layer_;
}

Ablation ablation_sweep(Decoder& model, const std::vector<int>& ids, int answer, int wrong, Intervention::Kind kind) {
    AblationSweep sweep(model, ids, answer, wrong, kind);
    while (!sweep.done()) sweep.next();
    return sweep.result();
}

LogitLens logit_lens(Decoder& model, const std::vector<int>& ids, int k, int target) {
    const ModelConfig& c = model.config();
    check_prompt(ids, c, "the input");
    require(k >= 1 && k <= c.n_vocab, "k must be in [1, " + std::to_string(c.n_vocab) + "], got " + std::to_string(k));
    if (target >= 0) check_token(target, c, "the target");
    const int T = int(ids.size()), L = c.n_layer, V = c.n_vocab, C = c.n_embd;
    ActivationCache cache(c, every_layer(HookPoint::ResidPost, L), T);
    model.forward(ids.data(), T, ForwardOptions().with_hooks(&cache));
    LogitLens out;
    out.layers = L;
    out.positions = T;
    out.k = k;
    out.top_ids.resize(size_t(L) * T * k);
    out.top_probs.resize(size_t(L) * T * k);
    if (target >= 0) out.target.resize(size_t(L) * T);
    std::vector<float> logits(static_cast<size_t>(V));
    std::vector<int> order(static_cast<size_t>(V));
    for (int l = 0; l < L; ++l) {
        const std::vector<float>& resid = cached(cache, {HookPoint::ResidPost, l});
        for (int t = 0; t < T; ++t) {
            model.unembed(resid.data() + size_t(t) * C, 1, logits.data());
            const float top = *std::max_element(logits.begin(), logits.end());
            double sum = 0;
            for (float v : logits) sum += std::exp(double(v) - top);
            std::iota(order.begin(), order.end(), 0);
            std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
                return logits[size_t(a)] > logits[size_t(b)] || (logits[size_t(a)] == logits[size_t(b)] && a < b);
            });
            const size_t at = (size_t(l) * T + t) * k;
            for (int i = 0; i < k; ++i) {
                out.top_ids[at + i] = order[size_t(i)];
                out.top_probs[at + i] = float(std::exp(double(logits[size_t(order[size_t(i)])]) - top) / sum);
            }
            if (target >= 0)
                out.target[size_t(l) * T + t] = float(std::exp(double(logits[size_t(target)]) - top) / sum);
        }
    }
    return out;
}

Attribution direct_logit_attribution(Decoder& model, const std::vector<int>& ids, int token, int position) {
    const ModelConfig& c = model.config();
    check_prompt(ids, c, "the input");
    check_token(token, c, "the attributed");
    const int T = int(ids.size()), L = c.n_layer, H = c.n_head, C = c.n_embd, hd = c.head_dim(), Q = c.q_width();
    if (position < 0) position += T;
    require(position >= 0 && position < T,
            "position " + std::to_string(position) + " is not in [0, " + std::to_string(T) + ") of this input");
    std::vector<HookName> names = every_layer(HookPoint::Z, L), mlp = every_layer(HookPoint::MlpOut, L);
    names.insert(names.end(), mlp.begin(), mlp.end());
    names.push_back({HookPoint::ResidPre, 0});
    names.push_back({HookPoint::ResidPost, L - 1});
    ActivationCache cache(c, names, T);
    model.forward(ids.data(), T, ForwardOptions().with_hooks(&cache));
    // The logit at this position only: its residual stream through ln_final and the unembedding (for the last
    // position, the same computation and bits as the pass's own logits), not every position's (T x n_vocab).
    const float* x = cached(cache, {HookPoint::ResidPost, L - 1}).data() + size_t(position) * C;
    std::vector<float> logits(static_cast<size_t>(c.n_vocab));
    model.unembed(x, 1, logits.data());
    Attribution out;
    out.logit = logits[size_t(token)];

    // ln_final's scale at this position, from the run; the direction a (LayerNorm: centred) part is read along.
    const bool centred = c.norm == NormKind::layernorm;
    double mean = 0, var = 0;
    if (centred) {
        for (int i = 0; i < C; ++i) mean += x[i];
        mean /= C;
    }
    for (int i = 0; i < C; ++i) var += (x[i] - mean) * (x[i] - mean);
    var /= C;
    const double scale = std::sqrt(var + c.norm_eps);
    std::vector<float> unembed(static_cast<size_t>(C));
    model.unembedding().row(token, unembed.data());
    std::vector<double> direction(static_cast<size_t>(C));
    for (int i = 0; i < C; ++i) direction[size_t(i)] = double(model.ln_f_weight()[i]) * unembed[size_t(i)];
    auto through_ln = [&](const float* part) {
        double m = 0, dot = 0;
        if (centred) {
            for (int i = 0; i < C; ++i) m += part[i];
            m /= C;
        }
        for (int i = 0; i < C; ++i) dot += (part[i] - m) * direction[size_t(i)];
        return float(dot / scale);
    };

    out.parts.push_back({"embed", through_ln(cached(cache, {HookPoint::ResidPre, 0}).data() + size_t(position) * C)});
    std::vector<float> one_head(static_cast<size_t>(Q)), projected(static_cast<size_t>(C));
    for (int l = 0; l < L; ++l) {
        const float* z = cached(cache, {HookPoint::Z, l}).data() + size_t(position) * Q;
        const Linear& proj = model.layer(l).attn_proj;
        for (int h = 0; h < H; ++h) {
            std::fill(one_head.begin(), one_head.end(), 0.0f);
            std::copy(z + h * hd, z + (h + 1) * hd, one_head.begin() + h * hd);
            proj.apply(projected.data(), one_head.data(), 1, false);  // this head's z through its slice of W_O
            out.parts.push_back(
                {"blocks." + std::to_string(l) + ".attn.head." + std::to_string(h), through_ln(projected.data())});
        }
        if (proj.bias) out.parts.push_back({"blocks." + std::to_string(l) + ".attn.bias", through_ln(proj.bias)});
        out.parts.push_back({"blocks." + std::to_string(l) + ".mlp",
                             through_ln(cached(cache, {HookPoint::MlpOut, l}).data() + size_t(position) * C)});
    }
    if (model.ln_f_bias()) {
        double bias = 0;
        for (int i = 0; i < C; ++i) bias += double(model.ln_f_bias()[i]) * unembed[size_t(i)];
        out.parts.push_back({"ln_final.bias", float(bias)});
    }
    return out;
}

}  // namespace arcscope
