// pretokenize.cpp: the alternatives of GPT-2's pattern, tried in the regex's order at each position.
#include "pretokenize.h"

#include "unicode_classes.h"

namespace arcscope {
namespace {

// 's 't 're 've 'm 'll 'd at s[pos] (which is an apostrophe): the match length, or 0.
size_t contraction_length(std::string_view s, size_t pos) {
    if (pos + 1 >= s.size()) return 0;
    char a = s[pos + 1];
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if (pos + 2 >= s.size()) return 0;
    char b = s[pos + 2];
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
    return 0;
}

}  // namespace

bool Pretokenizer::next(std::string_view& word) {
    const size_t n = text_.size();
    if (pos_ >= n) return false;
    const auto* s = reinterpret_cast<const unsigned char*>(text_.data());
    const auto* end = s + n;
    const size_t start = pos_;
    size_t len = 0;
    const uint32_t first = decode_utf8(s + start, end, len);

    size_t stop = 0;
    if (first == '\'' && (stop = contraction_length(text_, start)) > 0) {
        stop += start;
    } else {
        // " ?X+" for X in letters, numbers, other: an optional leading space, then a run of one class.
        CharClass run = char_class(first);
        size_t i = start + len;
        if (first == ' ' && i < n) {
            CharClass after = char_class(decode_utf8(s + i, end, len));
            if (after != CharClass::Space) {
                run = after;
                i += len;
            }
        }
        if (run != CharClass::Space) {
            while (i < n) {
                if (char_class(decode_utf8(s + i, end, len)) != run) break;
                i += len;
            }
            stop = i;
        } else {
            // "\s+(?!\S)|\s+": a whitespace run, minus its last character if a non-space follows and that leaves
            // at least one (so "  x" gives " " then " x").
            size_t last = start, count = 1;
            while (i < n) {
                if (char_class(decode_utf8(s + i, end, len)) != CharClass::Space) break;
                last = i;
                i += len;
                ++count;
            }
            stop = (i == n || count == 1) ? i : last;
        }
    }
    word = text_.substr(start, stop - start);
    pos_ = stop;
    return true;
}

std::vector<std::string_view> pretokenize(std::string_view text) {
    std::vector<std::string_view> words;
    Pretokenizer it(text);
    std::string_view w;
    while (it.next(w)) words.push_back(w);
    return words;
}

}  // namespace arcscope
