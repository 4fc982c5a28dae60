// json_writer.cpp: see json_writer.h.
#include "json_writer.h"

#include <cstdio>

#include "json_strings.h"

namespace arcscope::cli {

void JsonWriter::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!first_.empty()) {
        if (!first_.back()) out_ += ',';
        first_.back() = false;
    }
}

JsonWriter& JsonWriter::open_object() {
    separate();
    out_ += '{';
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::close_object() {
    out_ += '}';
    first_.pop_back();
    return *this;
}

JsonWriter& JsonWriter::open_array() {
    separate();
    out_ += '[';
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::close_array() {
    out_ += ']';
    first_.pop_back();
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
    separate();
    out_ += json_quote(name);
    out_ += ':';
    after_key_ = true;
    return *this;
}

JsonWriter& JsonWriter::number(double x, int decimals) {
    separate();
    out_ += json_number(x, decimals);
    return *this;
}

JsonWriter& JsonWriter::integer(long long n) {
    separate();
    out_ += std::to_string(n);
    return *this;
}

JsonWriter& JsonWriter::boolean(bool b) {
    separate();
    out_ += b ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
    separate();
    out_ += json_quote(text);
    return *this;
}

JsonWriter& JsonWriter::integers(const std::vector<int>& values) {
    open_array();
    for (int v : values) integer(v);
    return close_array();
}

JsonWriter& JsonWriter::numbers(const float* values, size_t n) {
    open_array();
    for (size_t i = 0; i < n; ++i) number(values[i]);
    return close_array();
}

JsonWriter& JsonWriter::field(std::string_view name, double x, int decimals) {
    return key(name).number(x, decimals);
}

void JsonWriter::print() const {
    std::fwrite(out_.data(), 1, out_.size(), stdout);
    std::fputc('\n', stdout);
}

JsonWriter& JsonWriter::null() {
    separate();
    out_ += "null";
    return *this;
}

JsonWriter& JsonWriter::rows(const float* values, size_t n_rows, size_t n_cols) {
    open_array();
    for (size_t r = 0; r < n_rows; ++r) numbers(values + r * n_cols, n_cols);
    return close_array();
}

}  // namespace arcscope::cli
