// sampling.h: choosing the next token from logits (greedy, temperature, top-k, top-p; seeded and reproducible,
// the same stream natively and in wasm), top-k probabilities for display, and the generation loop.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "arcscope/core/random.h"
#include "arcscope/formats/model_config.h"

namespace arcscope {

class Decoder;

struct SamplingParams {
    float temperature = 1.0f;  // 0 = greedy (argmax)
    int top_k = 0;             // keep the k most likely tokens; 0 = all
    float top_p = 1.0f;        // keep the smallest set whose probability reaches top_p; 1 = all
    uint64_t seed = 0;
    // The token that ends a text, not fed nor returned: GPT-2's <|endoftext|>, or the model's tokenizer's EOS
    // (Llama 3's 128001 is an ordinary token to GPT-2's count); -1: none, generation runs to max_tokens.
    int end_of_text = kEndOfText;
    void validate() const;  // throws Error naming a bad value
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

// The one generation loop, a token at a time, so a caller that must wait between tokens (JavaScript drawing each
// one) drives the same loop as generate(). The constructor runs the prompt; each step() samples the next token
// from the latest logits and feeds it through the KV cache, so its logits (and, if asked, its attention row) are
// ready. step() returns false once generation stops: max_tokens made, params.end_of_text sampled (not fed, not
// returned), or the context full (the total length never exceeds n_ctx).
class Generator {
public:
    Generator(Decoder& model, const std::vector<int>& prompt, int max_tokens, const SamplingParams& params);
    bool step(int& id, bool attention = false);
    StopReason stop() const { return stop_; }  // why step() returned false (MaxTokens until then)

private:
    Decoder& model_;
    Sampler sampler_;
    int end_of_text_;
    int left_;
    StopReason stop_ = StopReason::MaxTokens;
};

// Runs a Generator to the end. on_token(id) sees each new token; returning false stops early (Callback).
StopReason generate(Decoder& model, const std::vector<int>& prompt, int max_tokens, const SamplingParams& params,
                    const std::function<bool(int)>& on_token);

}  // namespace arcscope
