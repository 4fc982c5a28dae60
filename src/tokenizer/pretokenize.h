// pretokenize.h: GPT-2's pre-tokenisation, the regular expression
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// hand-written over UTF-8 (no regex engine). Contractions are case-sensitive, as in OpenAI's pattern.
#pragma once
#include <string_view>
#include <vector>

namespace arcscope {

// Walks valid UTF-8 text word by word: while (words.next(w)) { ... }. The words cover the text exactly, in order.
class Pretokenizer {
public:
    explicit Pretokenizer(std::string_view text) : text_(text) {}
    bool next(std::string_view& word);

private:
    std::string_view text_;
    size_t pos_ = 0;
};

std::vector<std::string_view> pretokenize(std::string_view text);  // all words at once (tests, tools)

}  // namespace arcscope
