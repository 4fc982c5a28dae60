// rope.h: rotary position embeddings (RoPE) as Hugging Face computes them: the frequencies and the cos/sin table in
// float, then each head's first rotary_dim dims turned by position, dim i with dim i + rotary_dim/2 (rotate_half).
// Shapes: P positions, T rows (tokens), H heads, d head_dim, r rotary_dim (d, or GPT-NeoX's partial rotary_pct d).
#pragma once
#include <cstdint>

namespace arcscope {

// config.json's rope_scaling: none, or Llama 3.1/3.2's "llama3" (its four numbers, e.g. Llama 3.2: 32, 1, 4, 8192).
struct RopeScaling {
    enum class Kind : uint32_t { none, llama3 } kind = Kind::none;
    double factor = 1;                               // e.g. 32
    double low_freq_factor = 1;                      // e.g. 1
    double high_freq_factor = 4;                     // e.g. 4
    double original_max_position_embeddings = 8192;  // e.g. 8192
};

// inv_freq (r/2) = 1 / theta^(2j / r), float's theta, exponent, power and quotient as Hugging Face's float32 tensors
// (the power correctly rounded, where torch's is within an ulp), then llama3's scaling in float as
// _compute_llama3_parameters computes it. r even and positive, theta above 1.
void rope_inv_freq(float* inv_freq, int rotary_dim, double theta, const RopeScaling& scaling);

// cos, sin (P, r/2): of the float angle p * inv_freq[j] for positions p = 0 .. P - 1, correctly rounded (torch's are
// within an ulp). Both halves that rotate_half pairs use the same value, so a row holds r/2. Angles up to 1e6.
void rope_table(float* cos, float* sin, int n_positions, int rotary_dim, double theta, const RopeScaling& scaling);

// x (T, H d, row stride ld) in place: each head's first r dims rotated, x_i cos - x_{i+r/2} sin and
// x_{i+r/2} cos + x_i sin for i < r/2, as Hugging Face's q * cos + rotate_half(q) * sin; dims r .. d - 1 untouched.
// cos, sin (T, r/2): the table's rows for these T tokens' positions.
void rope_forward(float* x, int T, int n_heads, int head_dim, int rotary_dim, const float* cos, const float* sin,
                  int ld);

}  // namespace arcscope
