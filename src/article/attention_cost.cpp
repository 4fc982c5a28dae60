// attention_cost.cpp: timing and the quadratic fit for the cost experiment.
#include "arcscope/article/attention_cost.h"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>

#include "arcscope/article/attention.h"
#include "arcscope/core/error.h"

namespace arcscope {

std::vector<CostPoint> measure_attention_cost(const std::vector<int>& seq_lens, int d_model, int n_heads, int repeats) {
    require(repeats >= 1 && repeats <= 100, "repeats must be between 1 and 100");
    MultiHeadAttention mha(d_model, n_heads, 1);
    std::vector<CostPoint> points;
    for (int n : seq_lens) {
        require(n >= 1 && n <= 4096, "sequence length must be between 1 and 4096, got " + std::to_string(n));
        const Tensor x = random_normal({1, n, d_model}, uint64_t(n));
        double best = 1e300;
        for (int r = 0; r < repeats; ++r) {
            const auto start = std::chrono::steady_clock::now();
            auto out = mha.forward(x);
            const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
            best = std::min(best, took.count());
        }
        points.push_back({n, best});
    }
    return points;
}

QuadraticFit fit_quadratic(const std::vector<CostPoint>& points) {
    require(points.size() >= 3, "a quadratic fit needs at least 3 points");
    Eigen::MatrixXd A(points.size(), 3);
    Eigen::VectorXd y(points.size());
    for (size_t i = 0; i < points.size(); ++i) {
        const double n = points[i].seq_len;
        A.row(i) << n * n, n, 1.0;
        y(i) = points[i].ms;
    }
    const Eigen::Vector3d p = A.colPivHouseholderQr().solve(y);
    return {p(0), p(1), p(2)};
}

}  // namespace arcscope
