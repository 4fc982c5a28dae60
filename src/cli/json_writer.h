// json_writer.h: how every CLI command writes its JSON. One small writer places the commas, quotes the strings
// (json_quote) and writes the numbers (json_number: null for a non-finite one), so no command assembles JSON by hand.
//   JsonWriter w;
//   w.open_object().field("ids", ids).field("stop", "max_tokens").close_object().print();  // {"ids":[1,2],"stop":...}
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace arcscope::cli {

class JsonWriter {
public:
    JsonWriter& open_object();
    JsonWriter& close_object();
    JsonWriter& open_array();
    JsonWriter& close_array();
    JsonWriter& key(std::string_view name);  // inside an object: the name of the value that follows

    JsonWriter& number(double x, int decimals = -1);  // %.9g, or `decimals` fixed digits
    JsonWriter& integer(long long n);
    JsonWriter& boolean(bool b);
    JsonWriter& null();
    JsonWriter& string(std::string_view text);
    JsonWriter& integers(const std::vector<int>& values);
    JsonWriter& numbers(const float* values, size_t n);
    JsonWriter& rows(const float* values, size_t n_rows, size_t n_cols);  // [[...], ...]: a row-major matrix

    // key(name) followed by one value.
    JsonWriter& field(std::string_view name, double x, int decimals);
    JsonWriter& field(std::string_view name, bool b) { return key(name).boolean(b); }
    JsonWriter& field(std::string_view name, long long n) { return key(name).integer(n); }
    JsonWriter& field(std::string_view name, int n) { return key(name).integer(n); }
    JsonWriter& field(std::string_view name, size_t n) { return key(name).integer((long long)n); }
    JsonWriter& field(std::string_view name, const char* text) { return key(name).string(text); }
    JsonWriter& field(std::string_view name, std::string_view text) { return key(name).string(text); }
    JsonWriter& field(std::string_view name, const std::string& text) { return key(name).string(text); }
    JsonWriter& field(std::string_view name, const std::vector<int>& values) { return key(name).integers(values); }

    const std::string& text() const { return out_; }
    void print() const;  // the text and a newline on stdout: one JSON line

private:
    void separate();  // a comma before every element but the first of its object or array
    std::string out_;
    std::vector<bool> first_;  // per open container: nothing written in it yet
    bool after_key_ = false;
};

}  // namespace arcscope::cli
