// pattern_finder.h: a Split or Replace pattern of tokenizer.json ({"String": ...} or {"Regex": ...}) compiled once,
// and its matches in UTF-8 text as byte ranges, for the normalizer and the pre-tokenizer alike.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "hf_json.h"
#include "hf_regex.h"

namespace arcscope::hf {

class PatternFinder {
public:
    // Refuses, naming `where`, a regex the matcher does not support and an empty string.
    PatternFinder(const Pattern& pattern, const std::string& where);
    // Every non-overlapping match, leftmost first, as [start, end) in bytes; a regex's empty matches too, as Hugging
    // Face's split sees them. Not thread-safe (reuses its code-point buffer).
    void find_all(std::string_view text, const std::function<void(size_t, size_t)>& found) const;

private:
    std::unique_ptr<HfRegex> regex_;  // null for a literal string
    std::string literal_;
    mutable CodePoints code_points_;
};

}  // namespace arcscope::hf
