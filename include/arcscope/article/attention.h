// attention.h: the article's building blocks of self-attention, in Eigen.
//   SingleHeadAttention  x (B, T, d_model) -> out (B, T, d_head), weights (B, T, T)
//   MultiHeadAttention   x (B, T, d_model) -> out (B, T, d_model), weights (B, H, T, T)
//   PositionalEncoding   x (B, T, d_model) -> x + pe[:T]
//   causal_mask(n)       (n, n) lower-triangular ones
// Weights are initialised from a seed exactly like torch.nn.Linear's default (uniform in ±1/sqrt(fan_in)) and can
// be replaced, so tests and the page can load known weights.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

namespace arcscope {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;

// A dense row-major tensor of up to 4 dimensions, e.g. (batch, seq, d_model).
struct Tensor {
    std::vector<int> shape;
    std::vector<float> data;

    Tensor() = default;
    explicit Tensor(std::vector<int> shape);
    Tensor(std::vector<int> shape, std::vector<float> data);  // checks data.size() against the shape

    size_t size() const { return data.size(); }
    // The trailing two dimensions as a matrix, at index i of the leading ones (e.g. one batch element).
    MatrixMap matrix(int i);
    ConstMatrixMap matrix(int i) const;
    int matrices() const;  // product of the leading dimensions (0 for a vector); matrix(i) needs i < matrices()
};

// The element count of a tensor of this shape (1 to 4 positive dimensions), or Error if it is invalid or larger
// than this build can allocate.
size_t tensor_elements(const std::vector<int>& shape);

// (batch, seq, dim) samples of a standard normal, deterministic for a seed.
Tensor random_normal(const std::vector<int>& shape, uint64_t seed);

// (n, n): 1 where key position j <= query position i, else 0.
Matrix causal_mask(int n);

// q kᵀ / sqrt(d) with mask (1 keep, 0 block: -inf). q (T, d), k (S, d) -> (T, S).
Matrix scaled_dot_product_scores(const Matrix& q, const Matrix& k, const Matrix* mask);
// Softmax along each row; a row that is all -inf (its mask blocks every key) is an Error (its softmax is 0/0).
Matrix softmax_rows(Matrix scores);
// softmax_rows(scaled_dot_product_scores(q, k, mask)).
Matrix scaled_dot_product_weights(const Matrix& q, const Matrix& k, const Matrix* mask);

class SingleHeadAttention {
public:
    SingleHeadAttention(int d_model, int d_head, uint64_t seed = 42);

    struct Output {
        Tensor out;      // (B, T, d_head)
        Tensor weights;  // (B, T, T), each row sums to 1
        Tensor q, k, v;  // (B, T, d_head): the projections, for display
        Tensor scores;   // (B, T, T): q kᵀ / sqrt(d_head) before the softmax, -inf where masked
    };
    // x (B, T, d_model); mask (T, T) or null.
    Output forward(const Tensor& x, const Matrix* mask = nullptr) const;

    int d_model() const { return d_model_; }
    int d_head() const { return d_head_; }
    // name is "W_q", "W_k" or "W_v"; each is (d_model, d_head) so that Q = X · W_q.
    const Matrix& weight(const std::string& name) const;
    void set_weight(const std::string& name, const Matrix& w);

private:
    int d_model_, d_head_;
    Matrix W_q_, W_k_, W_v_;
};

class MultiHeadAttention {
public:
    MultiHeadAttention(int d_model, int n_heads, uint64_t seed = 42);  // Error unless n_heads divides d_model

    struct Output {
        Tensor out;      // (B, T, d_model)
        Tensor weights;  // (B, H, T, T)
        Tensor q, k, v;  // (B, H, T, d_head): the projections after the split, for display
        Tensor merged;   // (B, T, d_model): heads concatenated, before W_o
    };
    Output forward(const Tensor& x, const Matrix* mask = nullptr) const;

    int d_model() const { return d_model_; }
    int n_heads() const { return n_heads_; }
    int d_head() const { return d_model_ / n_heads_; }
    // "W_q", "W_k", "W_v", "W_o", each (d_model, d_model), applied as X · W.
    const Matrix& weight(const std::string& name) const;
    void set_weight(const std::string& name, const Matrix& w);

private:
    int d_model_, n_heads_;
    Matrix W_q_, W_k_, W_v_, W_o_;
};

// (B, T, H·d) -> (B, H, T, d) and back.
Tensor split_heads(const Tensor& x, int n_heads);
Tensor merge_heads(const Tensor& x);

class PositionalEncoding {
public:
    PositionalEncoding(int d_model, int max_seq_len = 2048);
    // pe[pos, 2i] = sin(pos / 10000^(2i/d_model)), pe[pos, 2i+1] = cos(same angle).
    const Matrix& table() const { return pe_; }  // (max_seq_len, d_model)
    Tensor forward(const Tensor& x) const;       // x (B, T, d_model) -> x + pe[:T]

private:
    Matrix pe_;
};

}  // namespace arcscope
