// rotary.h: rotary position embeddings (RoPE), the article's "what modern models use instead of sinusoids", as one of
// its blocks. It turns each pair of a vector's dimensions (i, i + r/2) by an angle proportional to the position, so
// the dot product of a query at m and a key at n depends on m - n only. The rotation is the decoders' own
// (core/rope.h), so what the tutorial shows is what the engine runs for Llama, Qwen and Pythia.
//   RotaryEmbedding  x (..., T, d) -> x with row t turned by position positions[t] (default t)
#pragma once
#include <vector>

#include "arcscope/article/attention.h"

namespace arcscope {

class RotaryEmbedding {
public:
    // rotary_dim: the leading dims that turn (Pythia's 16 of 64); 0 means all d_head. theta: the base of the
    // wavelengths, 10,000 as in the original paper (Llama 3's 500,000).
    RotaryEmbedding(int d_head, int max_seq_len = 2048, double theta = 10000, int rotary_dim = 0);

    // x's last dimension is d_head, its second-to-last T <= max_seq_len (or positions' length); positions
    // (T values in [0, max_seq_len)) say where each row stands, 0 .. T-1 when empty.
    Tensor forward(const Tensor& x, const std::vector<int>& positions = {}) const;

    const Matrix& cos() const { return cos_; }  // (max_seq_len, rotary_dim / 2): row p's angles' cosines
    const Matrix& sin() const { return sin_; }
    int d_head() const { return d_head_; }
    int rotary_dim() const { return rotary_dim_; }
    int max_seq_len() const { return int(cos_.rows()); }
    double theta() const { return theta_; }

private:
    int d_head_, rotary_dim_;
    double theta_;
    Matrix cos_, sin_;
};

}  // namespace arcscope
