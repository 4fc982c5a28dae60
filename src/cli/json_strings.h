// json_strings.h: JSON string values in and out, for CLI commands that speak JSON lines.
#pragma once
#include <string>
#include <string_view>

namespace arcscope::cli {

// A number as JSON: %.9g (enough for a float to read back exactly), or with `decimals` fixed digits. JSON has no
// NaN or Infinity, so a non-finite value is written as null: the output stays JSON whatever the model does.
std::string json_number(double x, int decimals = -1);

// "text" with JSON escapes; text is UTF-8 (ill-formed bytes are written as U+FFFD, so the output is valid JSON).
std::string json_quote(std::string_view text);

// The UTF-8 text of one JSON string value, e.g. the line "caf\u00e9" (whitespace around it allowed). A lone
// surrogate escape such as \ud800 becomes U+FFFD, which is what JavaScript's TextEncoder makes of that string.
// Throws Error on anything else.
std::string json_unquote(std::string_view json);

}  // namespace arcscope::cli
