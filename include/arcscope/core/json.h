// json.h: a small JSON reader for the JSON texts arcscope reads (HF config.json, the safetensors header, CLI input).
// Numbers are kept as double, objects keep their keys' order. Strings come out as UTF-8; a lone surrogate escape
// (\ud800) becomes U+FFFD, as in JavaScript's TextEncoder. Malformed text throws Error with the byte offset.
// Strict: numbers follow RFC 8259's grammar ("+2", "04" and ".5" are errors), a key repeated in one object is an
// error, nesting stops at 64 levels, and the tree may take at most 16 bytes of memory per byte of text.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace arcscope {

struct Json {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Json> array;
    std::vector<std::pair<std::string, Json>> object;  // in document order

    static Json parse(std::string_view text);  // throws Error("JSON: ... at byte N")
    // A document that must be an object; errors start with `what` ("config.json: JSON: ... at byte N").
    static Json parse_object(std::string_view text, const char* what);

    const Json* find(std::string_view key) const;  // nullptr if absent or not an object
    bool is_number() const { return kind == Kind::Number; }
    bool is_string() const { return kind == Kind::String; }
    bool is_array() const { return kind == Kind::Array; }
    bool is_object() const { return kind == Kind::Object; }
};

// The shortest decimal that reads back as f ("1e-05" for 1e-5f, not 9.99999975e-06), for a float written as JSON.
std::string float_text(float f);

}  // namespace arcscope
