// attention.cpp: the article's attention blocks. Shapes in the comments; B batch, T sequence, H heads.
#include "arcscope/article/attention.h"

#include <cmath>
#include <limits>
#include <numeric>

#include "arcscope/core/error.h"
#include "arcscope/core/random.h"
#include "arcscope/core/sizes.h"

namespace arcscope {

namespace {

// A (rows, cols) matrix whose size has been checked before Eigen allocates it.
Matrix sized_matrix(const char* what, int rows, int cols) {
    require(rows > 0 && cols > 0, std::string(what) + " needs positive dimensions, got (" + std::to_string(rows) +
                                      ", " + std::to_string(cols) + ")");
    buffer_elements(what, {uint64_t(rows), uint64_t(cols)}, sizeof(float));
    return Matrix(rows, cols);
}

// Like torch.nn.Linear's default init: uniform in ±1/sqrt(fan_in). Stored (in, out) so that y = x · W.
Matrix linear_init(int in, int out, Random& rng) {
    const double bound = 1.0 / std::sqrt(double(in));
    Matrix w = sized_matrix("weight matrix", in, out);
    for (int i = 0; i < in; ++i)
        for (int j = 0; j < out; ++j) w(i, j) = float(rng.uniform(-bound, bound));
    return w;
}

void check_input(const Tensor& x, int d_model) {
    require(x.shape.size() == 3, "input must be (batch, seq, d_model)");
    require(x.shape[2] == d_model,
            "input has d_model " + std::to_string(x.shape[2]) + ", the layer expects " + std::to_string(d_model));
}

void check_mask(const Matrix* mask, int seq) {
    if (!mask) return;
    require(mask->rows() == seq && mask->cols() == seq,
            "mask must be (" + std::to_string(seq) + ", " + std::to_string(seq) + "), got (" +
                std::to_string(mask->rows()) + ", " + std::to_string(mask->cols()) + ")");
}

Matrix& select(const std::string& name, Matrix& q, Matrix& k, Matrix& v, Matrix* o) {
    if (name == "W_q") return q;
    if (name == "W_k") return k;
    if (name == "W_v") return v;
    if (name == "W_o" && o) return *o;
    throw Error("unknown weight '" + name + "'");
}

void replace(Matrix& target, const Matrix& w, const std::string& name) {
    require(w.rows() == target.rows() && w.cols() == target.cols(),
            name + " must be (" + std::to_string(target.rows()) + ", " + std::to_string(target.cols()) + ")");
    target = w;
}

}  // namespace

size_t tensor_elements(const std::vector<int>& shape) {
    require(!shape.empty() && shape.size() <= 4, "tensor must have 1 to 4 dimensions");
    uint64_t dims[4];
    for (size_t i = 0; i < shape.size(); ++i) {
        require(shape[i] > 0, "tensor dimensions must be positive, got " + std::to_string(shape[i]));
        dims[i] = uint64_t(shape[i]);
    }
    return buffer_elements("tensor", dims, shape.size(), sizeof(float));
}

Tensor::Tensor(std::vector<int> s) : shape(std::move(s)), data(tensor_elements(shape), 0.0f) {}

Tensor::Tensor(std::vector<int> s, std::vector<float> d) : shape(std::move(s)), data(std::move(d)) {
    require(data.size() == tensor_elements(shape), "tensor data size does not match its shape");
}

int Tensor::matrices() const {
    if (shape.size() < 2) return 0;  // a vector has no matrix view
    return std::accumulate(shape.begin(), shape.end() - 2, 1, std::multiplies<int>());
}

MatrixMap Tensor::matrix(int i) {
    if (i < 0 || i >= matrices()) throw Error("tensor has no matrix " + std::to_string(i));
    const int r = shape[shape.size() - 2], c = shape.back();
    return MatrixMap(data.data() + size_t(i) * r * c, r, c);
}

ConstMatrixMap Tensor::matrix(int i) const {
    if (i < 0 || i >= matrices()) throw Error("tensor has no matrix " + std::to_string(i));
    const int r = shape[shape.size() - 2], c = shape.back();
    return ConstMatrixMap(data.data() + size_t(i) * r * c, r, c);
}

Tensor random_normal(const std::vector<int>& shape, uint64_t seed) {
    Tensor t(shape);
    Random rng(seed);
    for (float& v : t.data) v = float(rng.normal());
    return t;
}

Matrix causal_mask(int n) {
    require(n > 0, "causal_mask needs n > 0");
    Matrix m = sized_matrix("causal mask", n, n);
    m.setZero();
    for (int i = 0; i < n; ++i) m.row(i).head(i + 1).setOnes();
    return m;
}

Matrix scaled_dot_product_scores(const Matrix& q, const Matrix& k, const Matrix* mask) {
    // scores (T, S) = q kᵀ / sqrt(d); masked entries -inf.
    Matrix scores = (q * k.transpose()) / std::sqrt(float(q.cols()));
    if (mask)
        for (int i = 0; i < scores.rows(); ++i)
            for (int j = 0; j < scores.cols(); ++j)
                if ((*mask)(i, j) == 0.0f) scores(i, j) = -std::numeric_limits<float>::infinity();
    return scores;
}

Matrix softmax_rows(Matrix scores) {
    for (int i = 0; i < scores.rows(); ++i) {
        const float top = scores.row(i).maxCoeff();
        require(top != -std::numeric_limits<float>::infinity(),
                "mask blocks every position of row " + std::to_string(i));
        scores.row(i) = (scores.row(i).array() - top).exp();
        scores.row(i) /= scores.row(i).sum();
    }
    return scores;
}

Matrix scaled_dot_product_weights(const Matrix& q, const Matrix& k, const Matrix* mask) {
    return softmax_rows(scaled_dot_product_scores(q, k, mask));
}

SingleHeadAttention::SingleHeadAttention(int d_model, int d_head, uint64_t seed) : d_model_(d_model), d_head_(d_head) {
    require(d_model > 0 && d_head > 0, "d_model and d_head must be positive");
    Random rng(seed);
    W_q_ = linear_init(d_model, d_head, rng);
    W_k_ = linear_init(d_model, d_head, rng);
    W_v_ = linear_init(d_model, d_head, rng);
}

const Matrix& SingleHeadAttention::weight(const std::string& name) const {
    auto* self = const_cast<SingleHeadAttention*>(this);
    return select(name, self->W_q_, self->W_k_, self->W_v_, nullptr);
}

void SingleHeadAttention::set_weight(const std::string& name, const Matrix& w) {
    replace(select(name, W_q_, W_k_, W_v_, nullptr), w, name);
}

SingleHeadAttention::Output SingleHeadAttention::forward(const Tensor& x, const Matrix* mask) const {
    check_input(x, d_model_);
    const int B = x.shape[0], T = x.shape[1];
    check_mask(mask, T);
    Output o{Tensor({B, T, d_head_}), Tensor({B, T, T}),       Tensor({B, T, d_head_}),
             Tensor({B, T, d_head_}), Tensor({B, T, d_head_}), Tensor({B, T, T})};
    for (int b = 0; b < B; ++b) {
        const Matrix X = x.matrix(b);                            // (T, d_model)
        const Matrix Q = X * W_q_, K = X * W_k_, V = X * W_v_;   // (T, d_head)
        const Matrix S = scaled_dot_product_scores(Q, K, mask);  // (T, T)
        const Matrix W = softmax_rows(S);
        o.q.matrix(b) = Q;
        o.k.matrix(b) = K;
        o.v.matrix(b) = V;
        o.scores.matrix(b) = S;
        o.weights.matrix(b) = W;  // (T, T)
        o.out.matrix(b) = W * V;  // (T, d_head)
    }
    return o;
}

MultiHeadAttention::MultiHeadAttention(int d_model, int n_heads, uint64_t seed) : d_model_(d_model), n_heads_(n_heads) {
    require(d_model > 0 && n_heads > 0, "d_model and n_heads must be positive");
    require(d_model % n_heads == 0,
            "d_model (" + std::to_string(d_model) + ") is not divisible by n_heads (" + std::to_string(n_heads) + ")");
    Random rng(seed);
    W_q_ = linear_init(d_model, d_model, rng);
    W_k_ = linear_init(d_model, d_model, rng);
    W_v_ = linear_init(d_model, d_model, rng);
    W_o_ = linear_init(d_model, d_model, rng);
}

const Matrix& MultiHeadAttention::weight(const std::string& name) const {
    auto* self = const_cast<MultiHeadAttention*>(this);
    return select(name, self->W_q_, self->W_k_, self->W_v_, &self->W_o_);
}

void MultiHeadAttention::set_weight(const std::string& name, const Matrix& w) {
    replace(select(name, W_q_, W_k_, W_v_, &W_o_), w, name);
}

Tensor split_heads(const Tensor& x, int n_heads) {
    require(x.shape.size() == 3 && x.shape[2] % n_heads == 0, "split_heads needs (batch, seq, n_heads * d_head)");
    const int B = x.shape[0], T = x.shape[1], d = x.shape[2] / n_heads;
    Tensor out({B, n_heads, T, d});
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < n_heads; ++h) out.matrix(b * n_heads + h) = x.matrix(b).middleCols(h * d, d);
    return out;
}

Tensor merge_heads(const Tensor& x) {
    require(x.shape.size() == 4, "merge_heads needs (batch, n_heads, seq, d_head)");
    const int B = x.shape[0], H = x.shape[1], T = x.shape[2], d = x.shape[3];
    Tensor out({B, T, H * d});
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) out.matrix(b).middleCols(h * d, d) = x.matrix(b * H + h);
    return out;
}

MultiHeadAttention::Output MultiHeadAttention::forward(const Tensor& x, const Matrix* mask) const {
    check_input(x, d_model_);
    const int B = x.shape[0], T = x.shape[1], H = n_heads_;
    check_mask(mask, T);
    Tensor q({B, T, d_model_}), k({B, T, d_model_}), v({B, T, d_model_});
    for (int b = 0; b < B; ++b) {
        q.matrix(b) = x.matrix(b) * W_q_;
        k.matrix(b) = x.matrix(b) * W_k_;
        v.matrix(b) = x.matrix(b) * W_v_;
    }
    Output o;
    o.q = split_heads(q, H);  // (B, H, T, d_head)
    o.k = split_heads(k, H);
    o.v = split_heads(v, H);
    o.weights = Tensor({B, H, T, T});
    Tensor heads({B, H, T, d_head()});
    for (int i = 0; i < B * H; ++i) {
        const Matrix W = scaled_dot_product_weights(o.q.matrix(i), o.k.matrix(i), mask);
        o.weights.matrix(i) = W;
        heads.matrix(i) = W * Matrix(o.v.matrix(i));
    }
    o.merged = merge_heads(heads);  // (B, T, d_model)
    o.out = Tensor({B, T, d_model_});
    for (int b = 0; b < B; ++b) o.out.matrix(b) = o.merged.matrix(b) * W_o_;
    return o;
}

PositionalEncoding::PositionalEncoding(int d_model, int max_seq_len)
    : pe_(sized_matrix("positional encoding table (max_seq_len, d_model)", max_seq_len, d_model)) {
    for (int pos = 0; pos < max_seq_len; ++pos)
        for (int i = 0; i < d_model; ++i) {
            // Dimensions 2i and 2i+1 share the frequency 1 / 10000^(2i / d_model).
            const double angle = pos * std::exp(-std::log(10000.0) * double(i - i % 2) / d_model);
            pe_(pos, i) = float(i % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
}

Tensor PositionalEncoding::forward(const Tensor& x) const {
    require(x.shape.size() == 3 && x.shape[2] == pe_.cols(), "input must be (batch, seq, d_model)");
    require(x.shape[1] <= pe_.rows(),
            "sequence length " + std::to_string(x.shape[1]) + " exceeds max_seq_len " + std::to_string(pe_.rows()));
    Tensor out = x;
    for (int b = 0; b < x.shape[0]; ++b) out.matrix(b) += pe_.topRows(x.shape[1]);
    return out;
}

}  // namespace arcscope
