// hf_regex.h: the regular expressions of tokenizer.json's Split pre-tokenizers, matched over code points with
// Oniguruma's meaning (the engine Hugging Face's tokenizers run them with): leftmost match, alternatives tried in
// order, greedy quantifiers with backtracking.
//
//   HfRegex re = HfRegex::compile("\\p{N}{1,3}| ?\\p{L}+|\\s+(?!\\S)|\\s+");
//   re.find_all(cps, [&](size_t start, size_t end) { ... });   // each match, in order
//
// Supported: literals, alternation, groups (...) (?:...) (?i:...), classes [...] [^...] with ranges, \p{L} \p{N}
// (\p{Letter} \p{Number}) and their \P negations, \s \S (Unicode White_Space: see is_white_space), escapes
// \r \n \t \f \v \xHH \x{H..} \uHHHH and escaped punctuation, quantifiers ? * + {m} {m,} {m,n} (greedy), lookahead
// (?=...) (?!...). Anything else is refused by name when compiling ("regex: \d is not supported ..."), so a file is
// never matched with a meaning it does not have. A search that takes more than 1,000 steps per code point (a pattern
// that backtracks exponentially, as "(?:a+)+b" does) stops with an Error rather than hang. (?i:...) folds ASCII
// letters, and U+017F (long s) with s and U+212A (Kelvin sign) with k as Oniguruma's Unicode folding does (the
// JavaScript reference folds ASCII only: "it'ſelf" splits differently there).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace arcscope {

// A UTF-8 text as code points, with each one's byte offset (offsets has one more entry: the text's size).
struct CodePoints {
    std::vector<uint32_t> cps;
    std::vector<uint32_t> offsets;
    void assign(std::string_view valid_utf8);
};

class HfRegex {
public:
    static HfRegex compile(std::string_view pattern);  // throws Error("regex /.../: ... is not supported ...")

    // The match starting exactly at cps[start], as its end, or -1. Not thread-safe (reuses a backtracking stack).
    long match_at(const uint32_t* cps, size_t n, size_t start) const;
    // Every non-overlapping match, leftmost first, as [start, end) in code points. An empty match is reported too
    // (as Hugging Face's split sees it) and the search goes on one code point further.
    void find_all(const uint32_t* cps, size_t n, const std::function<void(size_t, size_t)>& found) const;

    struct CharSet;
    struct Inst;
    struct Program;

    HfRegex();
    ~HfRegex();
    HfRegex(HfRegex&&) noexcept;
    HfRegex& operator=(HfRegex&&) noexcept;

private:
    std::vector<Program> programs_;  // [0] is the pattern; lookaheads are programs of their own
    std::vector<CharSet> sets_;
    struct Frame {
        int pc;
        uint32_t pos;
        int32_t count;  // -1: resume an alternative at pc; else retry the run at pc with `count` repetitions
    };
    mutable std::vector<Frame> stack_;
    mutable uint64_t budget_ = 0;  // steps left for this search (a hostile pattern can backtrack exponentially)
    std::string pattern_;
    void start_budget(size_t n) const;
    bool run(int program, const uint32_t* cps, size_t n, size_t start, size_t& end) const;
    friend class RegexCompiler;
};

}  // namespace arcscope
