// perplexity.cpp: windowed next-token cross-entropy (see perplexity.h).
#include "arcscope/analysis/perplexity.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "arcscope/core/error.h"

namespace arcscope {

double Perplexity::value() const {
    return std::exp(nll);
}

Perplexity perplexity(Decoder& model, const std::vector<int>& ids, int window) {
    const ModelConfig& c = model.config();
    if (window <= 0) window = c.n_ctx;
    require(window <= c.n_ctx, "perplexity: window " + std::to_string(window) + " exceeds the model's context of " +
                                   std::to_string(c.n_ctx));
    require(ids.size() >= 2, "perplexity: need at least 2 tokens, got " + std::to_string(ids.size()));
    for (int id : ids)
        require(id >= 0 && id < c.n_vocab, "perplexity: token id " + std::to_string(id) +
                                               " is outside the vocabulary of " + std::to_string(c.n_vocab));
    double total = 0;
    int64_t count = 0;
    for (size_t start = 0; start + 1 < ids.size(); start += size_t(window)) {
        const int T = int(std::min(size_t(window), ids.size() - 1 - start));  // inputs; targets are the next T
        model.forward(ids.data() + start, T, ForwardOptions().with_all_logits());
        for (int t = 0; t < T; ++t) {
            const float* row = model.logits() + size_t(t) * c.n_vocab;  // (n_vocab) logits of position t
            const float top = *std::max_element(row, row + c.n_vocab);
            double sum = 0;
            for (int v = 0; v < c.n_vocab; ++v) sum += std::exp(double(row[v]) - top);
            total += std::log(sum) + top - double(row[ids[start + t + 1]]);  // -log softmax(row)[target]
        }
        count += T;
    }
    model.reset();
    return {total / double(count), count};
}

std::vector<int> held_out_tokens(const std::vector<int>& ids, int train_tenths) {
    require(train_tenths >= 0 && train_tenths < 10, "held_out_tokens: train_tenths must be 0..9");
    const size_t cut = ids.size() * size_t(train_tenths) / 10;
    return std::vector<int>(ids.begin() + cut, ids.end());
}

}  // namespace arcscope
