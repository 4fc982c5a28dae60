// rotary.cpp: the article's RotaryEmbedding (rotary.h) on the decoders' rotation (core/rope.h).
#include "arcscope/article/rotary.h"

#include <string>

#include "arcscope/core/error.h"
#include "arcscope/core/rope.h"
#include "arcscope/core/sizes.h"

namespace arcscope {

RotaryEmbedding::RotaryEmbedding(int d_head, int max_seq_len, double theta, int rotary_dim)
    : d_head_(d_head), rotary_dim_(rotary_dim ? rotary_dim : d_head), theta_(theta) {
    require(d_head > 0 && max_seq_len > 0, "RotaryEmbedding needs a positive d_head and max_seq_len, got " +
                                               std::to_string(d_head) + " and " + std::to_string(max_seq_len));
    require(rotary_dim_ > 0 && rotary_dim_ <= d_head && rotary_dim_ % 2 == 0,
            "rotary_dim " + std::to_string(rotary_dim_) + " must be even and in [2, d_head " + std::to_string(d_head) +
                "]");
    buffer_elements("rotary table (max_seq_len, rotary_dim / 2)", {uint64_t(max_seq_len), uint64_t(rotary_dim_)},
                    sizeof(float));
    cos_ = Matrix(max_seq_len, rotary_dim_ / 2);
    sin_ = Matrix(max_seq_len, rotary_dim_ / 2);
    rope_table(cos_.data(), sin_.data(), max_seq_len, rotary_dim_, theta, RopeScaling{});
}

Tensor RotaryEmbedding::forward(const Tensor& x, const std::vector<int>& positions) const {
    require(x.shape.size() >= 2 && x.shape.back() == d_head_,
            "input must be (..., seq, d_head " + std::to_string(d_head_) + ")");
    const int T = x.shape[x.shape.size() - 2];
    require(positions.empty() || int(positions.size()) == T,
            "positions has " + std::to_string(positions.size()) + " values, the input " + std::to_string(T) + " rows");
    // The rows of the table for these T positions: (T, r/2) each.
    Matrix c(T, rotary_dim_ / 2), s(T, rotary_dim_ / 2);
    for (int t = 0; t < T; ++t) {
        const int p = positions.empty() ? t : positions[size_t(t)];
        require(p >= 0 && p < max_seq_len(),
                "position " + std::to_string(p) + " is outside [0, max_seq_len " + std::to_string(max_seq_len()) + ")");
        c.row(t) = cos_.row(p);
        s.row(t) = sin_.row(p);
    }
    Tensor out = x;
    for (int i = 0; i < out.matrices(); ++i)  // each (T, d) matrix of the leading dimensions
        rope_forward(out.data.data() + size_t(i) * T * d_head_, T, 1, d_head_, rotary_dim_, c.data(), s.data(),
                     d_head_);
    return out;
}

}  // namespace arcscope
