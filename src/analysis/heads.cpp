// heads.cpp: previous-token, first-token and induction scores per head (see heads.h).
#include "arcscope/analysis/heads.h"

#include <algorithm>
#include <string>

#include "arcscope/core/error.h"
#include "arcscope/core/random.h"
#include "arcscope/core/sizes.h"

namespace arcscope {

std::vector<int> repeated_random_tokens(const std::vector<int>& candidates, int length, uint64_t seed) {
    require(!candidates.empty(), "heads: no candidate tokens to draw from");
    require(length >= 2, "heads: length must be at least 2, got " + std::to_string(length));
    Random rng(seed);
    std::vector<int> ids(buffer_elements("repeated random tokens", {2, uint64_t(length)}, sizeof(int)));
    for (int i = 0; i < length; ++i) {
        ids[i] = candidates[rng.next_u64() % candidates.size()];
        ids[i + length] = ids[i];
    }
    return ids;
}

HeadScores score_heads(const float* attention, int n_layer, int n_head, int length) {
    require(attention != nullptr, "heads: no attention to score");
    require(length >= 2 && length <= (1 << 20), "heads: length must be in [2, 2^20], got " + std::to_string(length));
    const int T = 2 * length;
    buffer_elements("attention to score", {uint64_t(n_layer), uint64_t(n_head), uint64_t(T), uint64_t(T)},
                    sizeof(float));
    HeadScores s;
    s.n_layer = n_layer;
    s.n_head = n_head;
    s.previous_token.assign(size_t(n_layer) * n_head, 0.0f);
    s.first_token.assign(size_t(n_layer) * n_head, 0.0f);
    s.induction.assign(size_t(n_layer) * n_head, 0.0f);
    for (int lh = 0; lh < n_layer * n_head; ++lh) {
        const float* a = attention + size_t(lh) * T * T;  // (T, T): row = query, column = key
        double prev = 0, first = 0, induction = 0;
        for (int i = 1; i < T; ++i) {
            prev += a[size_t(i) * T + (i - 1)];
            first += a[size_t(i) * T];
        }
        for (int i = length; i < T; ++i) induction += a[size_t(i) * T + (i - length + 1)];
        s.previous_token[lh] = float(prev / (T - 1));
        s.first_token[lh] = float(first / (T - 1));
        s.induction[lh] = float(induction / length);
    }
    return s;
}

std::vector<int> default_candidates(const ModelConfig& config) {
    std::vector<int> ids;
    ids.reserve(size_t(config.n_vocab));
    const bool gpt2 = config.arch == Arch::gpt2;  // 50256 is an ordinary token in other vocabularies
    for (int id = 0; id < config.n_vocab; ++id)
        if (!gpt2 || id != kEndOfText) ids.push_back(id);
    return ids;
}

HeadScores analyze_heads(Decoder& model, const std::vector<int>& candidates, int length, uint64_t seed) {
    const ModelConfig& c = model.config();
    if (length <= 0) length = std::min(50, c.n_ctx / 2);
    require(2 * int64_t(length) <= c.n_ctx, "heads: 2 x length = " + std::to_string(2 * int64_t(length)) +
                                                " tokens do not fit the model's context of " + std::to_string(c.n_ctx));
    for (int id : candidates)
        require(id >= 0 && id < c.n_vocab, "heads: candidate token " + std::to_string(id) +
                                               " is outside the vocabulary of " + std::to_string(c.n_vocab));
    std::vector<int> ids = repeated_random_tokens(candidates, length, seed);
    model.forward(ids.data(), int(ids.size()), ForwardOptions().with_attention());
    return score_heads(model.attention(), c.n_layer, c.n_head, length);
}

}  // namespace arcscope
