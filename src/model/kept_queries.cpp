// kept_queries.cpp: the queries and keys an analysis keeps (kept_queries.h).
#include "arcscope/model/kept_queries.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "arcscope/core/error.h"
#include "arcscope/core/sizes.h"

namespace arcscope {

KeptQueries::KeptQueries(const ModelConfig& config)
    : config_(config), q_(size_t(config.n_layer)), k_(size_t(config.n_layer)) {}

HookName KeptQueries::queries_hook(const ModelConfig& config, int layer) {
    return {config.rotary() ? HookPoint::RotQ : HookPoint::Q, layer};
}
HookName KeptQueries::keys_hook(const ModelConfig& config, int layer) {
    return {config.rotary() ? HookPoint::RotK : HookPoint::K, layer};
}

void KeptQueries::begin(int first, int T) {
    require(T >= 1 && T <= config_.n_ctx && first >= 0 && first <= std::min(length_, T - 1),
            "kept queries: a pass over positions " + std::to_string(first) + ".." + std::to_string(T) + " of " +
                std::to_string(length_) + " kept (the context holds " + std::to_string(config_.n_ctx) + ")");
    length_ = first;
    pending_ = T;
    grow(first, T);
    // The edit's rows start from nothing: the pass adds every head into them.
    for (std::vector<float>* v : {&sum_, &max_}) {
        v->resize(triangle(first));
        v->resize(triangle(T), 0.0f);
    }
}

// Room for T rows, the first `first` of them kept: the rows are allocated anew (and those copied) only past room_.
void KeptQueries::grow(int first, int T) {
    if (T <= room_) return;
    const int room = std::min((T + kRoom - 1) / kRoom * kRoom, config_.n_ctx);
    const size_t Q = size_t(config_.q_width()), K = size_t(config_.kv_width());
    buffer_elements("kept queries and keys (layers x positions x width)",
                    {uint64_t(config_.n_layer), uint64_t(room), uint64_t(Q + K)}, sizeof(float));
    // A layer at a time, so that growing holds one layer twice at most, not all of them.
    for (size_t l = 0; l < q_.size(); ++l)
        for (auto [rows, width] : {std::pair{&q_[l], Q}, std::pair{&k_[l], K}}) {
            std::vector<float> grown(size_t(room) * width);
            std::copy(rows->begin(), rows->begin() + ptrdiff_t(size_t(first) * width), grown.begin());
            rows->swap(grown);
        }
    for (std::vector<float>* v : {&sum_, &max_}) {
        std::vector<float> grown;
        grown.reserve(triangle(room));
        grown.assign(v->begin(), v->begin() + ptrdiff_t(std::min(v->size(), triangle(first))));
        v->swap(grown);
    }
    room_ = room;
}

void KeptQueries::check_model(const ModelConfig& c) const {
    const ModelConfig& k = config_;
    require(k.n_layer == c.n_layer && k.n_head == c.n_head && k.kv_heads() == c.kv_heads() &&
                k.head_dim() == c.head_dim() && k.n_ctx == c.n_ctx && k.rotary() == c.rotary(),
            "these kept queries and keys were made by a model of another shape");
}

size_t KeptQueries::bytes() const {
    const size_t rows = size_t(room_) * config_.n_layer * size_t(config_.q_width() + config_.kv_width());
    return (rows + 2 * triangle(room_)) * sizeof(float);
}

bool KeptQueries::wants(const HookName& hook) const {
    return hook.layer >= 0 && (hook == queries_hook(config_, hook.layer) || hook == keys_hook(config_, hook.layer) ||
                               hook == HookName{HookPoint::Pattern, hook.layer});
}

void KeptQueries::visit(const HookSite& site, float* values) {
    require(site.first >= length_ && site.first + site.rows <= pending_,
            "kept queries: the pass wrote rows they were not made for");
    if (site.hook.point == HookPoint::Pattern) add_probabilities(site, values);
    else keep_rows(site, values);
}

// Row r of one head's probabilities (site.first + r + 1 of them) into that row's sum and max.
void KeptQueries::add_probabilities(const HookSite& site, const float* values) {
    for (int r = 0; r < site.rows; ++r) {
        const int i = site.first + r;
        const float* p = values + size_t(r) * site.stride;
        float *sum = sum_.data() + triangle(i), *max = max_.data() + triangle(i);
        for (int j = 0; j <= i; ++j) {
            sum[j] += p[j];
            max[j] = p[j] > max[j] ? p[j] : max[j];
        }
    }
}

void KeptQueries::keep_rows(const HookSite& site, const float* values) {
    const bool queries = site.hook == queries_hook(config_, site.hook.layer);
    const int width = queries ? config_.q_width() : config_.kv_width();
    require(site.width == width, "kept queries: the pass wrote rows they were not made for");
    float* rows = (queries ? q_ : k_)[size_t(site.hook.layer)].data() + size_t(site.first) * width;
    for (int r = 0; r < site.rows; ++r)
        std::copy(values + size_t(r) * site.stride, values + size_t(r) * site.stride + width, rows + size_t(r) * width);
}

}  // namespace arcscope
