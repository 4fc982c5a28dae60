// heads.h: score every attention head for three patterns the tutorial talks about.
//
//   previous-token  mean attention from position i to i-1            (i = 1 .. T-1)
//   first-token     mean attention from position i to position 0     (i = 1 .. T-1; the "sink")
//   induction       on N random tokens repeated twice, mean attention from each second-copy token (i = N .. 2N-1)
//                   to the token that followed its first copy (i - N + 1)
//
// All three are read off one forward pass over the repeated random sequence. The tokens are drawn with
// arcscope::Random, so native and wasm builds score the same sequence for the same seed.
#pragma once
#include <cstdint>
#include <vector>

#include "arcscope/model/decoder.h"

namespace arcscope {

struct HeadScores {
    int n_layer = 0;
    int n_head = 0;
    std::vector<float> previous_token;  // (n_layer, n_head) row-major
    std::vector<float> first_token;     // (n_layer, n_head)
    std::vector<float> induction;       // (n_layer, n_head)
};

// `length` tokens drawn uniformly from `candidates` (seeded), then the same tokens again: -> ids (2 * length).
std::vector<int> repeated_random_tokens(const std::vector<int>& candidates, int length, uint64_t seed);

// attention (n_layer, n_head, T, T) of a sequence whose second half repeats its first (T = 2 * length) -> scores.
HeadScores score_heads(const float* attention, int n_layer, int n_head, int length);

// Every id the model can take, but a GPT-2's end-of-text (kEndOfText): the default pool to draw random tokens from.
std::vector<int> default_candidates(const ModelConfig& config);

// Draws the sequence, runs the model with attention and scores it (restarts the model's KV cache).
// length <= 0 means min(50, n_ctx / 2).
HeadScores analyze_heads(Decoder& model, const std::vector<int>& candidates, int length, uint64_t seed);

}  // namespace arcscope
