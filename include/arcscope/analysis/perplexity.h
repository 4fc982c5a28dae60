// perplexity.h: how well a model predicts a token sequence, the figure models/README.md reports.
//
// The sequence is cut into windows of n_ctx + 1 tokens that start every n_ctx tokens; each window's first n_ctx
// tokens are the input and every one of its next tokens is scored, so each token after the first is predicted
// exactly once, from at most n_ctx tokens of context. (perplexity() in python/arcscope_reference/gpt2_reference.py is
// the same.)
#pragma once
#include <cstdint>
#include <vector>

#include "arcscope/model/decoder.h"

namespace arcscope {

struct Perplexity {
    double nll = 0;         // mean negative log-likelihood, nats per predicted token
    int64_t predicted = 0;  // tokens scored (ids.size() - 1)
    double value() const;   // exp(nll)
};

// ids (N >= 2) -> mean cross-entropy of ids[1..N-1]; window <= 0 means the model's n_ctx. Restarts the KV cache.
Perplexity perplexity(Decoder& model, const std::vector<int>& ids, int window = 0);

// The held-out tail of a tokenized text: ids[floor(N * train_tenths / 10) ..]. With the default 9 these are the
// last 10% that the default model's training (python/arcscope_reference/corpus.py) holds out.
std::vector<int> held_out_tokens(const std::vector<int>& ids, int train_tenths = 9);

}  // namespace arcscope
