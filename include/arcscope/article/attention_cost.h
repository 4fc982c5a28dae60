// attention_cost.h: the article's cost experiment. Time MultiHeadAttention (d_model 768, 12 heads) at growing
// sequence lengths and fit t(n) = a n² + b n + c: doubling n roughly quadruples the attention part.
#pragma once
#include <vector>

namespace arcscope {

struct CostPoint {
    int seq_len;
    double ms;  // mean wall time of one forward pass (batch 1), best of the repeats
};

struct QuadraticFit {
    double a, b, c;  // ms = a n² + b n + c
    double at(double n) const { return (a * n + b) * n + c; }
};

// Runs `repeats` forward passes per length on random input; returns the fastest per length.
std::vector<CostPoint> measure_attention_cost(const std::vector<int>& seq_lens, int d_model = 768, int n_heads = 12,
                                              int repeats = 3);

// Least-squares quadratic through the points (needs at least 3 distinct lengths).
QuadraticFit fit_quadratic(const std::vector<CostPoint>& points);

}  // namespace arcscope
