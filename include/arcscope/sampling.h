// sampling.h: choosing the next token from logits (greedy, temperature, top-k, top-p; seeded and reproducible,
// the same stream natively and in wasm), top-k probabilities for display, and the generation loop.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "arcscope/random.h"

namespace arcscope {

class GPT2;


struct SamplingParams {
    float temperature = 1.0f;  // 0 = greedy (argmax)
    int top_k = 0;             // keep the k most likely tokens; 0 = all
    float top_p = 1.0f;        // keep the smallest set whose probability reaches top_p; 1 = all
    uint64_t seed = 0;
    void validate() const;     // throws Error naming a bad value
};

struct TokenProb {
    int id;
    float prob;
};

class Sampler {
public:
    explicit Sampler(const SamplingParams& params);
    // logits (n) -> a token id. Ties break towards the lower id, so the choice is the same on every platform.
    int sample(const float* logits, int n);

private:
    SamplingParams params_;
    Random rng_;
    std::vector<TokenProb> candidates_;  // reused: no allocation per token once warm
};

// softmax(logits (n)) -> the k most likely tokens, most likely first.
std::vector<TokenProb> top_k_probs(const float* logits, int n, int k);

// Why generation stopped.
enum class StopReason { MaxTokens, EndOfText, ContextFull, Callback };
const char* stop_reason_name(StopReason r);  // "max_tokens", "end_of_text", "context_full", "callback"

// Runs the prompt, then samples up to max_tokens tokens one at a time through the KV cache. on_token(id) is called
// for each new token (never for <|endoftext|>, which stops generation); returning false stops early. The total
// length never exceeds n_ctx.
StopReason generate(GPT2& model, const std::vector<int>& prompt, int max_tokens, const SamplingParams& params,
                    const std::function<bool(int)>& on_token);

}  // namespace arcscope
