// sampling.cpp: token choice and the generation loop.
#include "arcscope/analysis/sampling.h"

#include <algorithm>
#include <cmath>

#include "arcscope/core/error.h"
#include "arcscope/model/decoder.h"

namespace arcscope {

namespace {
// Larger probability first, lower id on ties: a total order, so every platform sorts the same way.
bool more_likely(const TokenProb& a, const TokenProb& b) {
    return a.prob > b.prob || (a.prob == b.prob && a.id < b.id);
}
}  // namespace

void SamplingParams::validate() const {
    require(std::isfinite(temperature) && temperature >= 0,
            "temperature must be >= 0 (0 = greedy), got " + std::to_string(temperature));
    require(top_k >= 0, "top_k must be >= 0 (0 = no limit), got " + std::to_string(top_k));
    require(top_p > 0 && top_p <= 1, "top_p must be in (0, 1], got " + std::to_string(top_p));
    require(end_of_text >= -1, "end_of_text must be a token id, or -1 for none, got " + std::to_string(end_of_text));
}

Sampler::Sampler(const SamplingParams& params) : params_(params), rng_(params.seed) {
    params_.validate();
}

int Sampler::sample(const float* logits, int n) {
    if (n <= 0) throw Error("no logits to sample from");  // (no message built on the per-token path)
    if (params_.temperature == 0) {
        int best = 0;
        for (int i = 1; i < n; ++i)
            if (logits[i] > logits[best]) best = i;
        return best;
    }
    // Candidates hold scaled logits first, probabilities after the softmax.
    candidates_.resize(n);
    for (int i = 0; i < n; ++i) candidates_[i] = {i, logits[i] / params_.temperature};
    int keep = (params_.top_k > 0 && params_.top_k < n) ? params_.top_k : n;
    if (keep < n) std::nth_element(candidates_.begin(), candidates_.begin() + keep, candidates_.end(), more_likely);
    candidates_.resize(keep);
    std::sort(candidates_.begin(), candidates_.end(), more_likely);
    float mx = candidates_[0].prob;
    double sum = 0;
    for (auto& c : candidates_) sum += (c.prob = std::exp(c.prob - mx));
    if (params_.top_p < 1) {
        double cut = params_.top_p * sum, acc = 0;
        size_t i = 0;
        while (i < candidates_.size() && acc < cut) acc += candidates_[i++].prob;
        candidates_.resize(std::max<size_t>(i, 1));
        sum = acc > 0 ? acc : candidates_[0].prob;
    }
    double u = rng_.uniform() * sum, acc = 0;
    for (const auto& c : candidates_) {
        acc += c.prob;
        if (u < acc) return c.id;
    }
    return candidates_.back().id;
}

std::vector<TokenProb> top_k_probs(const float* logits, int n, int k) {
    require(n > 0, "no logits");
    require(k > 0, "k must be positive, got " + std::to_string(k));
    k = std::min(k, n);
    float mx = *std::max_element(logits, logits + n);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += std::exp(double(logits[i]) - mx);
    std::vector<TokenProb> all(n);
    for (int i = 0; i < n; ++i) all[i] = {i, logits[i]};
    std::partial_sort(all.begin(), all.begin() + k, all.end(), more_likely);
    all.resize(k);
    for (auto& t : all) t.prob = float(std::exp(double(t.prob) - mx) / sum);
    return all;
}

const char* stop_reason_name(StopReason r) {
    switch (r) {
        case StopReason::MaxTokens:
            return "max_tokens";
        case StopReason::EndOfText:
            return "end_of_text";
        case StopReason::ContextFull:
            return "context_full";
        default:
            return "callback";
    }
}

Generator::Generator(Decoder& model, const std::vector<int>& prompt, int max_tokens, const SamplingParams& params)
    : model_(model), sampler_(params), end_of_text_(params.end_of_text), left_(max_tokens) {
    require(max_tokens >= 0, "the number of tokens to generate must be >= 0");
    model_.forward(prompt.data(), int(prompt.size()));
}

bool Generator::step(int& id, bool attention) {
    if (left_ == 0) return false;  // stop_ is MaxTokens
    if (model_.length() >= model_.config().n_ctx) {
        stop_ = StopReason::ContextFull;
        return false;
    }
    const int V = model_.config().n_vocab;
    id = sampler_.sample(model_.logits() + size_t(model_.logits_rows() - 1) * V, V);
    if (id == end_of_text_) {
        stop_ = StopReason::EndOfText;
        left_ = 0;
        return false;
    }
    --left_;
    model_.append(id, ForwardOptions().with_attention(attention));
    return true;
}

StopReason generate(Decoder& model, const std::vector<int>& prompt, int max_tokens, const SamplingParams& params,
                    const std::function<bool(int)>& on_token) {
    Generator gen(model, prompt, max_tokens, params);
    for (int id = 0; gen.step(id);)
        if (!on_token(id)) return StopReason::Callback;
    return gen.stop();
}

}  // namespace arcscope
