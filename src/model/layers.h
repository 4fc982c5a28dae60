// layers.h: the forward pass's numeric steps as named functions over plain arrays, each with its shapes (T
// positions, C channels, hd a head's width, n the keys a query sees). Every sum runs in one fixed order, whatever the
// build or the number of threads, so native and wasm give the same bits. decoder.cpp strings them together.
#pragma once
#include <cstddef>

namespace arcscope {

// Attention's inner loops keep kLanes independent sums in registers, as four 4-float vectors; a key block of the
// score loop is kLanes keys (the KV cache pads its rows to it).
constexpr int kLanes = 16;

// a (T, C) += b (T, C), as n = T C values: a residual connection.
void residual_forward(float* a, const float* b, size_t n);

// x (T, C) -> out (T, C): each row normalised, then scaled and shifted by w, b (C); with w null, only normalised
// (scale_shift_forward then finishes with the same bits: the sums run in the same order). Rows apart on the threads.
void layernorm_forward(float* out, const float* x, int T, int C, const float* w, const float* b, float eps);
// x (T, C) in place: x * w + b, per channel (b may be null: x * w).
void scale_shift_forward(float* x, int T, int C, const float* w, const float* b);

// x (T, C) -> out (T, C), out may be x: RMSNorm, x * (1 / sqrt(mean(x^2) + eps)) * w, in float as Hugging Face computes
// it; with w null, only normalised (scale_shift_forward with a null b then gives the same bits). The squares are
// summed in kLanes lanes, then the lanes in order. Rows apart on the threads.
void rmsnorm_forward(float* out, const float* x, int T, int C, const float* w, float eps);

// x (rows, width) in place: GPT-2's tanh GELU ("gelu_new"). Rows apart on the threads.
void gelu_forward(float* x, int rows, int width);

// x (rows, width) in place: GPT-NeoX's exact GELU, x Phi(x) = x/2 erfc(-x / sqrt 2). Rows apart on the threads.
void gelu_erf_forward(float* x, int rows, int width);
// x (rows, width) in place: SiLU, x / (1 + e^-x). Rows apart on the threads.
void silu_forward(float* x, int rows, int width);
// gate (rows, width) in place: silu(gate) * up (rows, width), the gated MLP's (SwiGLU's) activation. Rows apart on the
// threads.
void swiglu_forward(float* gate, const float* up, int rows, int width);

// The key/value head query head h reads in grouped-query attention: h / (n_heads / n_kv_heads), consecutive query
// heads sharing one (Hugging Face's repeat_kv). n_kv_heads divides n_heads; n_kv_heads = n_heads is plain attention.
inline int kv_head_of(int h, int n_heads, int n_kv_heads) {
    return h / (n_heads / n_kv_heads);
}

// row (n) = (q (hd) . kt (hd, ld)) * scale: one query's scores against n keys held transposed, ld >= n rounded up
// to kLanes.
void attention_scores_row(float* row, const float* q, const float* kt, int hd, int ld, int n, float scale);
// row (total) in place: softmax of the first n entries, zero after them (the causally masked keys).
void masked_softmax_row(float* row, int n, int total);
// out (hd) = p (n) . V (n, hd), V's rows ldv floats apart: one query's weighted values. With `accumulate`, the sums
// go on from what out holds, as if these keys followed the earlier ones in one call: the same bits.
void attention_values_row(float* out, const float* p, const float* v, int n, int hd, int ldv, bool accumulate = false);

}  // namespace arcscope
