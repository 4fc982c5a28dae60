// pattern_finder.cpp: a tokenizer.json pattern's matches (pattern_finder.h).
#include "pattern_finder.h"

namespace arcscope::hf {

PatternFinder::PatternFinder(const Pattern& pattern, const std::string& where) {
    if (!pattern.regex) {
        if (pattern.text.empty()) refuse(where, "an empty 'String' pattern");
        literal_ = pattern.text;
        return;
    }
    try {
        regex_ = std::make_unique<HfRegex>(HfRegex::compile(pattern.text));
    } catch (const Error& e) {
        refuse(where, e.what());
    }
}

void PatternFinder::find_all(std::string_view text, const std::function<void(size_t, size_t)>& found) const {
    if (!regex_) {
        for (size_t at = text.find(literal_); at != std::string_view::npos;
             at = text.find(literal_, at + literal_.size()))
            found(at, at + literal_.size());
        return;
    }
    code_points_.assign(text);
    const auto& offsets = code_points_.offsets;
    regex_->find_all(code_points_.cps.data(), code_points_.cps.size(),
                     [&](size_t start, size_t end) { found(offsets[start], offsets[end]); });
}

}  // namespace arcscope::hf
