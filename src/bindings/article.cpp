// article.cpp: the bindings of the article's attention blocks (attention.h, rotary.h, attention_cost.h).
// Every call goes through guarded() (js_values.h), so a C++ Error reaches JavaScript as an Error with its message.
#include "js_values.h"

#include <cmath>
#include <memory>

#include "arcscope/article/attention.h"
#include "arcscope/article/attention_cost.h"
#include "arcscope/article/rotary.h"
#include "arcscope/core/sizes.h"

using emscripten::val;
using namespace arcscope::bindings;
namespace article {
using namespace arcscope;

// -> {data: Float32Array, shape: [...]}, the form every block takes and returns
val data_and_shape(const float* data, size_t n, const std::vector<int>& shape) {
    val o = val::object();
    o.set("data", float32_array(data, n));
    o.set("shape", val::array(shape));
    return o;
}

val tensor_value(const Tensor& t) {
    return data_and_shape(t.data.data(), t.data.size(), t.shape);
}

val matrix_value(const Matrix& m) {
    return data_and_shape(m.data(), size_t(m.size()), {int(m.rows()), int(m.cols())});
}

Tensor tensor_from(const val& data, const val& shape) {
    // The shape's element count is checked, and compared with the data's length, before anything is allocated.
    std::vector<int> dims = int_vector(shape, "shape");
    const size_t n = tensor_elements(dims);
    const double got = data["length"].as<double>();
    require(got == double(n), "data has " + number_text(got) + " values, the shape needs " + std::to_string(n));
    return Tensor(std::move(dims), floats_from(data));
}

Matrix matrix_from(const val& data, int rows, int cols) {
    const size_t n = buffer_elements("matrix", {uint64_t(rows), uint64_t(cols)}, sizeof(float));
    const double got = data["length"].as<double>();
    require(rows > 0 && cols > 0 && got == double(n),
            "expected " + std::to_string(rows) + " x " + std::to_string(cols) + " values, got " + number_text(got));
    std::vector<float> v = floats_from(data);
    return Eigen::Map<Matrix>(v.data(), rows, cols);
}

// mask: null/undefined for none, else T*T values (1 keep, 0 block).
std::unique_ptr<Matrix> optional_mask(const val& mask, int seq) {
    if (mask.isNull() || mask.isUndefined()) return nullptr;
    const double n = mask["length"].as<double>();
    require(n == double(seq) * seq, "mask must be (" + std::to_string(seq) + ", " + std::to_string(seq) +
                                        ") for this input, got " + number_text(n) + " values");
    return std::make_unique<Matrix>(matrix_from(mask, seq, seq));
}

int seq_len(const Tensor& x) {
    return x.shape.size() == 3 ? x.shape[1] : 0;
}

SingleHeadAttention make_single(double d_model, double d_head, unsigned seed) {
    return guarded("creating a SingleHeadAttention", [&] {
        return SingleHeadAttention(int_arg(d_model, "d_model", 1, INT32_MAX), int_arg(d_head, "d_head", 1, INT32_MAX),
                                   seed);
    });
}

MultiHeadAttention make_multi(double d_model, double n_heads, unsigned seed) {
    return guarded("creating a MultiHeadAttention", [&] {
        return MultiHeadAttention(int_arg(d_model, "d_model", 1, INT32_MAX), int_arg(n_heads, "n_heads", 1, INT32_MAX),
                                  seed);
    });
}

// What both blocks return: {out, weights, q, k, v}, each {data, shape}, plus their own extras.
template <class Output>
val block_value(const Output& o) {
    val r = val::object();
    r.set("out", tensor_value(o.out));
    r.set("weights", tensor_value(o.weights));
    r.set("q", tensor_value(o.q));
    r.set("k", tensor_value(o.k));
    r.set("v", tensor_value(o.v));
    return r;
}
val output_value(const SingleHeadAttention::Output& o) {
    val r = block_value(o);
    r.set("scores", tensor_value(o.scores));
    return r;
}
val output_value(const MultiHeadAttention::Output& o) {
    val r = block_value(o);
    r.set("merged", tensor_value(o.merged));
    return r;
}

// x {data, shape [B, T, d_model]}, mask null or (T, T) -> the block's output_value.
template <class Layer>
val block_forward(const Layer& self, val data, val shape, val mask) {
    return guarded("running an attention block", [&] {
        Tensor x = tensor_from(data, shape);
        auto m = optional_mask(mask, seq_len(x));
        return output_value(self.forward(x, m.get()));
    });
}

template <class Layer>
val get_weight(const Layer& self, val name) {
    return guarded("reading a weight", [&] { return matrix_value(self.weight(js_string(name, "the weight's name"))); });
}

template <class Layer>
void set_weight(Layer& self, val given_name, val data) {
    guarded("setting a weight", [&] {
        const std::string name = js_string(given_name, "the weight's name");
        const Matrix& current = self.weight(name);
        self.set_weight(name, matrix_from(data, int(current.rows()), int(current.cols())));
    });
}

PositionalEncoding make_positional(double d_model, double max_seq_len) {
    return guarded("creating a PositionalEncoding", [&] {
        return PositionalEncoding(int_arg(d_model, "d_model", 1, INT32_MAX),
                                  int_arg(max_seq_len, "max_seq_len", 1, INT32_MAX));
    });
}

val positional_table(const PositionalEncoding& self) {
    return guarded("reading the positional table", [&] { return matrix_value(self.table()); });
}

val positional_forward(const PositionalEncoding& self, val data, val shape) {
    return guarded("running PositionalEncoding.forward",
                   [&] { return tensor_value(self.forward(tensor_from(data, shape))); });
}

RotaryEmbedding make_rotary(double d_head, double max_seq_len, double theta, double rotary_dim) {
    return guarded("creating a RotaryEmbedding", [&] {
        require(std::isfinite(theta), "theta must be a finite number, got " + number_text(theta));
        return RotaryEmbedding(int_arg(d_head, "d_head", 1, INT32_MAX),
                               int_arg(max_seq_len, "max_seq_len", 1, INT32_MAX), theta,
                               int_arg(rotary_dim, "rotary_dim", 0, INT32_MAX));
    });
}

// -> {cos, sin}: each (max_seq_len, rotary_dim / 2)
val rotary_table(const RotaryEmbedding& self) {
    return guarded("reading the rotary table", [&] {
        val o = val::object();
        o.set("cos", matrix_value(self.cos()));
        o.set("sin", matrix_value(self.sin()));
        return o;
    });
}

// positions: null/undefined for 0 .. T-1, else T integers
val rotary_forward(const RotaryEmbedding& self, val data, val shape, val positions) {
    return guarded("running RotaryEmbedding.forward", [&] {
        const bool given = !positions.isNull() && !positions.isUndefined();
        return tensor_value(
            self.forward(tensor_from(data, shape), given ? int_vector(positions, "positions") : std::vector<int>()));
    });
}

val causal_mask_value(double n) {
    return guarded("making a causal mask",
                   [&] { return matrix_value(causal_mask(int_arg(n, "n", INT32_MIN, INT32_MAX))); });
}

val random_normal_value(val shape, unsigned seed) {
    return guarded("drawing random numbers",
                   [&] { return tensor_value(random_normal(int_vector(shape, "shape"), seed)); });
}

// lengths: array of sequence lengths -> {points: [{seqLen, ms}], fit: {a, b, c} | null}
val fit_value(const QuadraticFit& fit) {
    val f = val::object();
    f.set("a", fit.a);
    f.set("b", fit.b);
    f.set("c", fit.c);
    return f;
}

val attention_cost_value(val lengths, double d_model, double n_heads, double repeats) {
    return guarded("measuring attention cost", [&] {
        const auto points =
            measure_attention_cost(int_vector(lengths, "lengths"), int_arg(d_model, "dModel", 1, 1 << 16),
                                   int_arg(n_heads, "nHeads", 1, 1 << 16), int_arg(repeats, "repeats", 1, 1000));
        val list = val::array();
        for (const auto& p : points) {
            val o = val::object();
            o.set("seqLen", p.seq_len);
            o.set("ms", p.ms);
            list.call<void>("push", o);
        }
        val r = val::object();
        r.set("points", list);
        r.set("fit", points.size() >= 3 ? fit_value(fit_quadratic(points)) : val::null());
        return r;
    });
}

// points: [{seqLen, ms}] -> {a, b, c} with ms ≈ a n² + b n + c (the one fit the page and the API use)
val fit_quadratic_value(val points) {
    return guarded("fitting a quadratic", [&] {
        const size_t n = points["length"].as<size_t>();
        std::vector<CostPoint> p(n);
        for (size_t i = 0; i < n; ++i)
            p[i] = {int_arg(points[i]["seqLen"].as<double>(), "seqLen", 1, INT32_MAX), points[i]["ms"].as<double>()};
        require(n >= 3, "a quadratic fit needs at least 3 points, got " + std::to_string(n));
        return fit_value(fit_quadratic(p));
    });
}

}  // namespace article

EMSCRIPTEN_BINDINGS(attention_blocks) {
    using namespace emscripten;
    using namespace article;
    class_<arcscope::SingleHeadAttention>("SingleHeadAttention")
        .constructor(&make_single)
        .property("d_model", &arcscope::SingleHeadAttention::d_model)
        .property("d_head", &arcscope::SingleHeadAttention::d_head)
        .function("forward", &block_forward<arcscope::SingleHeadAttention>)
        .function("weight", &get_weight<arcscope::SingleHeadAttention>)
        .function("setWeight", &set_weight<arcscope::SingleHeadAttention>);
    class_<arcscope::MultiHeadAttention>("MultiHeadAttention")
        .constructor(&make_multi)
        .property("d_model", &arcscope::MultiHeadAttention::d_model)
        .property("n_heads", &arcscope::MultiHeadAttention::n_heads)
        .property("d_head", &arcscope::MultiHeadAttention::d_head)
        .function("forward", &block_forward<arcscope::MultiHeadAttention>)
        .function("weight", &get_weight<arcscope::MultiHeadAttention>)
        .function("setWeight", &set_weight<arcscope::MultiHeadAttention>);
    class_<arcscope::PositionalEncoding>("PositionalEncoding")
        .constructor(&make_positional)
        .function("table", &positional_table)
        .function("forward", &positional_forward);
    class_<arcscope::RotaryEmbedding>("RotaryEmbedding")
        .constructor(&make_rotary)
        .property("d_head", &arcscope::RotaryEmbedding::d_head)
        .property("rotary_dim", &arcscope::RotaryEmbedding::rotary_dim)
        .property("max_seq_len", &arcscope::RotaryEmbedding::max_seq_len)
        .property("theta", &arcscope::RotaryEmbedding::theta)
        .function("table", &rotary_table)
        .function("forward", &rotary_forward);
    function("causalMask", &causal_mask_value);
    function("randomNormal", &random_normal_value);
    function("attentionCost", &attention_cost_value);
    function("fitQuadratic", &fit_quadratic_value);
}
