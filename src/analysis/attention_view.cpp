// attention_view.cpp: a view's attention matrix from kept queries and keys (attention_view.h).
#include "arcscope/analysis/attention_view.h"

#include <algorithm>
#include <string>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/core/sizes.h"

namespace arcscope {
namespace {

void check_kept(const Decoder& decoder, const KeptQueries& kept) {
    kept.check_model(decoder.config());
    require(kept.length() > 0, "no queries and keys are kept: analyse a text first");
}

void check_choice(const char* what, ViewChoice choice, int n) {
    require(choice.kind != ViewChoice::Kind::One || (choice.index >= 0 && choice.index < n),
            std::string(what) + " " + std::to_string(choice.index) + " is not in [0, " + std::to_string(n) + ")");
}

// into += m over n values (a mean's sum, or a max), as attention-math.js's aggregate: float32 sums in order.
void combine(float* into, const float* m, size_t n, ViewChoice::Kind how) {
    if (how == ViewChoice::Kind::Max) {
        for (size_t i = 0; i < n; ++i)
            if (m[i] > into[i]) into[i] = m[i];
    } else {
        for (size_t i = 0; i < n; ++i) into[i] += m[i];
    }
}

void finish_mean(float* m, size_t n, int count, ViewChoice::Kind how) {
    if (how != ViewChoice::Kind::Mean) return;
    const float d = float(count);
    for (size_t i = 0; i < n; ++i) m[i] /= d;
}

// The mean or max over every head of every layer: the sum or max the pass kept, the sum over their number.
void over_every_head(const KeptQueries& kept, ViewChoice::Kind how, float* out) {
    const ModelConfig& c = kept.config();
    const int T = kept.length();
    const float count = float(c.n_layer * c.n_head);
    std::fill(out, out + size_t(T) * T, 0.0f);
    for (int i = 0; i < T; ++i) {
        const float* kept_row = how == ViewChoice::Kind::Max ? kept.max_row(i) : kept.sum_row(i);
        float* row = out + size_t(i) * T;
        if (how == ViewChoice::Kind::Max) std::copy(kept_row, kept_row + i + 1, row);
        else
            for (int j = 0; j <= i; ++j) row[j] = kept_row[j] / count;
    }
}

}  // namespace

void attention_view(const Decoder& decoder, const KeptQueries& kept, ViewChoice layer, ViewChoice head, float* out) {
    check_kept(decoder, kept);
    const int L = decoder.config().n_layer, H = decoder.config().n_head, T = kept.length();
    check_choice("layer", layer, L);
    check_choice("head", head, H);
    const size_t n = buffer_elements("attention view (T x T)", {uint64_t(T), uint64_t(T)}, sizeof(float));
    if (layer.kind != ViewChoice::Kind::One && layer.kind == head.kind) return over_every_head(kept, layer.kind, out);
    const auto pattern = [&](int l, int h, float* into) {
        decoder.attention_pattern(kept.queries(l), kept.keys(l), T, h, into);
    };
    // perHead of viewMatrix: head h of the one layer, or aggregated over every layer.
    std::vector<float> scratch(layer.kind == ViewChoice::Kind::One ? 0 : n);
    const auto per_head = [&](int h, float* into) {
        if (layer.kind == ViewChoice::Kind::One) return pattern(layer.index, h, into);
        std::fill(into, into + n, 0.0f);
        for (int l = 0; l < L; ++l) {
            pattern(l, h, scratch.data());
            combine(into, scratch.data(), n, layer.kind);
        }
        finish_mean(into, n, L, layer.kind);
    };
    if (head.kind == ViewChoice::Kind::One) return per_head(head.index, out);
    std::vector<float> one(n);
    std::fill(out, out + n, 0.0f);
    for (int h = 0; h < H; ++h) {
        per_head(h, one.data());
        combine(out, one.data(), n, head.kind);
    }
    finish_mean(out, n, H, head.kind);
}

void attention_view_thumbnail(const Decoder& decoder, const KeptQueries& kept, int layer, int head, int size,
                              float* out) {
    check_kept(decoder, kept);
    check_choice("layer", {ViewChoice::Kind::One, layer}, decoder.config().n_layer);
    decoder.attention_thumbnail(kept.queries(layer), kept.keys(layer), kept.length(), head, size, out);
}

}  // namespace arcscope
