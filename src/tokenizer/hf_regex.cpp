// hf_regex.cpp: a recursive-descent parser that compiles straight to a small backtracking program, and the loop
// that runs it. A run of one character set under a quantifier ("\p{L}+") is one instruction that takes the longest
// run and gives back one code point per backtrack, so long words cost no stack; other backtracking points live on a
// vector, never on the C++ stack.
#include "hf_regex.h"

#include <algorithm>
#include <cctype>
#include <climits>

#include "arcscope/core/error.h"
#include "unicode_classes.h"

namespace arcscope {

enum class Property : uint8_t { Letter, Number, WhiteSpace };

struct HfRegex::CharSet {
    std::vector<std::pair<uint32_t, uint32_t>> ranges;
    std::vector<std::pair<Property, bool>> properties;  // (property, negated): \p{L} is (Letter, false)
    bool negated = false;
    uint64_t ascii[2] = {0, 0};  // membership of code points < 128, filled by finish()

    static bool has(Property p, uint32_t cp) {
        switch (p) {
            case Property::Letter:
                return char_class(cp) == CharClass::Letter;
            case Property::Number:
                return char_class(cp) == CharClass::Number;
            case Property::WhiteSpace:
                return is_white_space(cp);
        }
        return false;
    }
    bool contains_slow(uint32_t cp) const {
        bool in = false;
        for (const auto& r : ranges) in = in || (cp >= r.first && cp <= r.second);
        for (const auto& p : properties) in = in || (has(p.first, cp) != p.second);
        return in != negated;
    }
    void finish() {
        for (uint32_t cp = 0; cp < 128; ++cp)
            if (contains_slow(cp)) ascii[cp >> 6] |= uint64_t(1) << (cp & 63);
    }
    bool contains(uint32_t cp) const { return cp < 128 ? (ascii[cp >> 6] >> (cp & 63)) & 1 : contains_slow(cp); }
};

struct HfRegex::Inst {
    enum Op : uint8_t { Run, Split, Jmp, Look, Match } op;
    int a = 0, b = 0;           // Run: set; Split: preferred pc, other pc; Jmp: pc; Look: program
    uint32_t min = 0, max = 0;  // Run: repetitions
    bool negate = false;        // Look: (?!...)
    // Split: the ASCII code points branch a can start with; when `filtered`, an ASCII code point outside them skips
    // straight to branch b (most alternatives of a pattern fail on their first character).
    bool filtered = false;
    uint64_t first[2] = {0, 0};
};

struct HfRegex::Program {
    std::vector<Inst> code;
};

HfRegex::HfRegex() = default;
HfRegex::~HfRegex() = default;
HfRegex::HfRegex(HfRegex&&) noexcept = default;
HfRegex& HfRegex::operator=(HfRegex&&) noexcept = default;

// Parses one pattern and emits code as it goes. Grammar:
//   alternation := sequence ('|' sequence)*      sequence := (atom quantifier?)*
//   atom := '(' ('?:' | '?i:' | '?=' | '?!')? alternation ')' | '[' class ']' | '\' escape | literal
class RegexCompiler {
public:
    RegexCompiler(HfRegex& re, std::string_view pattern) : re_(re), s_(pattern) {}

    void compile() {
        require(s_.size() <= 4096, "regex: the pattern is " + std::to_string(s_.size()) + " bytes (at most 4096)");
        re_.programs_.emplace_back();
        program(0);
        for (auto& prog : re_.programs_)
            for (auto& in : prog.code)
                if (in.op == HfRegex::Inst::Split) {
                    std::vector<bool> seen(prog.code.size());
                    in.filtered = !first_ascii(prog.code, in.a, seen, in.first);
                }
    }

private:
    using Code = std::vector<HfRegex::Inst>;
    HfRegex& re_;
    std::string_view s_;
    size_t pos_ = 0;
    int depth_ = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw Error("regex /" + std::string(s_) + "/: " + what + " (at byte " + std::to_string(pos_) + ")");
    }
    [[noreturn]] void unsupported(const std::string& what) const {
        fail(what +
             " is not supported (supported: alternation, groups, (?i:...), classes with \\p{L} \\p{N} \\s, "
             "? * + {m,n}, (?=...) (?!...))");
    }
    bool at_end() const { return pos_ >= s_.size(); }
    char peek() const { return at_end() ? '\0' : s_[pos_]; }

    // A program of its own (the pattern, or a lookahead's body), ending in Match.
    void program(int index) {
        Code code;
        alternation(code, false);
        if (!at_end()) fail(peek() == ')' ? "unbalanced ')'" : "unexpected character");
        code.push_back({HfRegex::Inst::Match});
        re_.programs_[index].code = std::move(code);
    }

    // Appends `body` to `code`, relocating its jumps.
    static void append(Code& code, const Code& body) {
        const int shift = int(code.size());
        for (HfRegex::Inst in : body) {
            if (in.op == HfRegex::Inst::Split) {
                in.a += shift;
                in.b += shift;
            } else if (in.op == HfRegex::Inst::Jmp) {
                in.a += shift;
            }
            code.push_back(in);
        }
    }

    void alternation(Code& out, bool fold) {
        if (++depth_ > 32) fail("groups nested deeper than 32");
        std::vector<Code> branches(1);
        sequence(branches.back(), fold);
        while (peek() == '|') {
            ++pos_;
            branches.emplace_back();
            sequence(branches.back(), fold);
        }
        // Split(b0, next); b0; Jmp end; Split(b1, next); b1; Jmp end; ... ; b_last
        std::vector<size_t> jumps;
        for (size_t i = 0; i < branches.size(); ++i) {
            const bool last = i + 1 == branches.size();
            size_t split = out.size();
            if (!last) out.push_back({HfRegex::Inst::Split});
            append(out, branches[i]);
            if (!last) {
                jumps.push_back(out.size());
                out.push_back({HfRegex::Inst::Jmp});
                out[split].a = int(split + 1);
                out[split].b = int(out.size());
            }
        }
        for (size_t j : jumps) out[j].a = int(out.size());
        --depth_;
    }

    void sequence(Code& out, bool fold) {
        while (!at_end() && peek() != '|' && peek() != ')') {
            Code atom_code;
            int set = -1;  // the atom is one character set
            atom(atom_code, set, fold);
            quantified(out, atom_code, set);
        }
    }

    // Reads a quantifier (if any) and emits the atom under it.
    void quantified(Code& out, Code& atom_code, int set) {
        uint32_t min = 1, max = 1;
        const char q = peek();
        if (q == '?' || q == '*' || q == '+') {
            ++pos_;
            min = q == '+' ? 1 : 0;
            max = q == '?' ? 1 : UINT32_MAX;
        } else if (q == '{') {
            size_t save = pos_++;
            if (!braces(min, max)) {  // not a quantifier: Oniguruma reads '{' as a literal then
                pos_ = save;
                return emit_once(out, atom_code);
            }
        } else {
            return emit_once(out, atom_code);
        }
        if (peek() == '?') unsupported("a lazy quantifier (" + std::string(1, q) + "?)");
        if (peek() == '+') unsupported("a possessive quantifier (" + std::string(1, q) + "+)");
        if (set >= 0) {
            HfRegex::Inst run{HfRegex::Inst::Run};
            run.a = set;
            run.min = min;
            run.max = max;
            out.push_back(run);
            return;
        }
        if (atom_code.empty()) return;  // an empty group repeated is still empty
        if (max == UINT32_MAX && can_be_empty(atom_code)) unsupported("a group that can match nothing under * or +");
        if (min > 16 || (max != UINT32_MAX && max > 16)) unsupported("a group repeated more than 16 times");
        for (uint32_t i = 0; i < min; ++i) append(out, atom_code);
        if (max == UINT32_MAX) {  // L: Split(body, end); body; Jmp L
            size_t loop = out.size();
            out.push_back({HfRegex::Inst::Split});
            append(out, atom_code);
            HfRegex::Inst back{HfRegex::Inst::Jmp};
            back.a = int(loop);
            out.push_back(back);
            out[loop].a = int(loop + 1);
            out[loop].b = int(out.size());
            return;
        }
        std::vector<size_t> splits;  // optional copies, each skipping to the end
        for (uint32_t i = min; i < max; ++i) {
            splits.push_back(out.size());
            out.push_back({HfRegex::Inst::Split});
            append(out, atom_code);
        }
        for (size_t s : splits) {
            out[s].a = int(s + 1);
            out[s].b = int(out.size());
        }
    }

    // ORs into `first` the ASCII code points a match from pc can start with; true if it can match nothing (or loops),
    // so that no filter applies. Lookaheads are looked through: the filter may let through more than matches.
    bool first_ascii(const Code& code, int pc, std::vector<bool>& seen, uint64_t first[2]) const {
        if (seen[pc]) return true;
        seen[pc] = true;
        const HfRegex::Inst& in = code[pc];
        switch (in.op) {
            case HfRegex::Inst::Run: {
                const HfRegex::CharSet& set = re_.sets_[in.a];
                first[0] |= set.ascii[0];
                first[1] |= set.ascii[1];
                return in.min == 0 ? first_ascii(code, pc + 1, seen, first) : false;
            }
            case HfRegex::Inst::Split: {
                const bool a = first_ascii(code, in.a, seen, first);
                const bool b = first_ascii(code, in.b, seen, first);
                return a || b;
            }
            case HfRegex::Inst::Jmp:
                return first_ascii(code, in.a, seen, first);
            case HfRegex::Inst::Look:
                return first_ascii(code, pc + 1, seen, first);
            case HfRegex::Inst::Match:
                return true;
        }
        return true;
    }

    static void emit_once(Code& out, const Code& atom_code) { append(out, atom_code); }

    // Whether a group's code can reach its end without consuming a code point (then * or + would loop forever):
    // a walk over the paths that consume nothing (runs that may repeat 0 times, splits, jumps, lookaheads).
    static bool can_be_empty(const Code& code) {
        std::vector<bool> seen(code.size() + 1);
        std::vector<size_t> todo{0};
        while (!todo.empty()) {
            const size_t pc = todo.back();
            todo.pop_back();
            if (pc >= code.size()) return true;  // reached the end
            if (seen[pc]) continue;
            seen[pc] = true;
            const HfRegex::Inst& in = code[pc];
            if (in.op == HfRegex::Inst::Run && in.min == 0) todo.push_back(pc + 1);
            if (in.op == HfRegex::Inst::Look) todo.push_back(pc + 1);
            if (in.op == HfRegex::Inst::Jmp) todo.push_back(size_t(in.a));
            if (in.op == HfRegex::Inst::Split) {
                todo.push_back(size_t(in.a));
                todo.push_back(size_t(in.b));
            }
        }
        return false;
    }

    // After '{': "m}", "m,}", "m,n}". False (nothing consumed that matters) if it is not that.
    bool braces(uint32_t& min, uint32_t& max) {
        auto number = [&](uint32_t& v) {
            size_t start = pos_;
            v = 0;
            while (!at_end() && peek() >= '0' && peek() <= '9') {
                v = v * 10 + uint32_t(peek() - '0');
                if (v > 100000) fail("a repetition count over 100000");
                ++pos_;
            }
            return pos_ > start;
        };
        if (!number(min)) return false;
        max = min;
        if (peek() == ',') {
            ++pos_;
            if (!number(max)) max = UINT32_MAX;
        }
        if (peek() != '}') return false;
        ++pos_;
        if (max < min) fail("a repetition {m,n} with n < m");
        return true;
    }

    // Under (?i:...), a set also holds the other case of its ASCII letters, and the two code points outside ASCII
    // that Unicode's simple case folding sends to an ASCII letter: U+017F (long s) to s, U+212A (Kelvin sign) to k.
    // Oniguruma folds with Unicode's table; letters outside ASCII keep their one case here (refusing them would
    // refuse Llama 3's and Qwen's patterns, whose groups hold ASCII only).
    int add_set(HfRegex::CharSet set, bool fold) {
        if (fold) {
            std::vector<std::pair<uint32_t, uint32_t>> extra;
            auto add = [&](uint32_t c) { extra.push_back({c, c}); };
            auto has = [&](uint32_t c) {
                for (const auto& r : set.ranges)
                    if (c >= r.first && c <= r.second) return true;
                return false;
            };
            for (uint32_t c = 'a'; c <= 'z'; ++c) {
                const bool either = has(c) || has(c - 32) || (c == 's' && has(0x17F)) || (c == 'k' && has(0x212A));
                if (!either) continue;
                add(c);
                add(c - 32);
                if (c == 's') add(0x17F);
                if (c == 'k') add(0x212A);
            }
            set.ranges.insert(set.ranges.end(), extra.begin(), extra.end());
        }
        set.finish();
        re_.sets_.push_back(std::move(set));
        return int(re_.sets_.size() - 1);
    }

    void emit_set(Code& out, int set) {
        HfRegex::Inst run{HfRegex::Inst::Run};
        run.a = set;
        run.min = run.max = 1;
        out.push_back(run);
    }

    void atom(Code& out, int& set, bool fold) {
        const char c = peek();
        if (c == '(') {
            ++pos_;
            bool group_fold = fold;
            if (peek() == '?') {
                ++pos_;
                const char kind = peek();
                if (kind == ':') {
                    ++pos_;
                } else if (kind == 'i' && pos_ + 1 < s_.size() && s_[pos_ + 1] == ':') {
                    pos_ += 2;
                    group_fold = true;
                } else if (kind == '=' || kind == '!') {
                    ++pos_;
                    lookahead(out, kind == '!', fold);
                    return;
                } else {
                    unsupported("the group (?" + std::string(1, kind) + "...)");
                }
            }
            alternation(out, group_fold);
            if (peek() != ')') fail("missing ')'");
            ++pos_;
            return;
        }
        if (c == '[') {
            ++pos_;
            set = add_set(char_class(), fold);
            emit_set(out, set);
            return;
        }
        if (c == '.' || c == '^' || c == '$') unsupported(std::string("'") + c + "'");
        HfRegex::CharSet one;
        if (c == '\\') {
            ++pos_;
            escape(one, false);
        } else {
            uint32_t cp = literal();
            one.ranges.push_back({cp, cp});
        }
        set = add_set(std::move(one), fold);
        emit_set(out, set);
    }

    void lookahead(Code& out, bool negate, bool fold) {
        const int index = int(re_.programs_.size());
        re_.programs_.emplace_back();
        Code body;
        alternation(body, fold);
        if (peek() != ')') fail("missing ')'");
        ++pos_;
        body.push_back({HfRegex::Inst::Match});
        re_.programs_[index].code = std::move(body);
        HfRegex::Inst look{HfRegex::Inst::Look};
        look.a = index;
        look.negate = negate;
        out.push_back(look);
    }

    uint32_t literal() {  // one UTF-8 code point of the pattern
        size_t len = utf8_char_length(s_, pos_);
        if (len == 0) fail("invalid UTF-8");
        size_t unused = 0;
        auto p = reinterpret_cast<const unsigned char*>(s_.data()) + pos_;
        uint32_t cp = decode_utf8(p, p + len, unused);
        pos_ += len;
        return cp;
    }

    uint32_t hex_digits(size_t count, bool braced) {
        uint32_t v = 0;
        size_t digits = 0;
        while (!at_end() && (braced || digits < count) && std::isxdigit(static_cast<unsigned char>(peek()))) {
            const char h = peek();
            v = v * 16 + uint32_t(h <= '9' ? h - '0' : (h | 32) - 'a' + 10);
            if (v > 0x10FFFF) fail("a code point above U+10FFFF");
            ++pos_;
            ++digits;
        }
        if (digits == 0 || (!braced && digits != count)) fail("a malformed hexadecimal escape");
        return v;
    }

    // After '\': adds what the escape stands for to `set`.
    void escape(HfRegex::CharSet& set, bool in_class) {
        if (at_end()) fail("a pattern ending in '\\'");
        const char e = s_[pos_++];
        auto add = [&](uint32_t cp) { set.ranges.push_back({cp, cp}); };
        switch (e) {
            case 'r':
                return add('\r');
            case 'n':
                return add('\n');
            case 't':
                return add('\t');
            case 'f':
                return add('\f');
            case 'v':
                return add('\v');
            case 's':
                return set.properties.push_back({Property::WhiteSpace, false});
            case 'S':
                return set.properties.push_back({Property::WhiteSpace, true});
            case 'p':
            case 'P': {
                if (peek() != '{') unsupported(std::string("\\") + e + " without {...}");
                size_t close = s_.find('}', pos_);
                if (close == std::string_view::npos) fail("missing '}'");
                std::string name(s_.substr(pos_ + 1, close - pos_ - 1));
                pos_ = close + 1;
                Property p;
                if (name == "L" || name == "Letter") p = Property::Letter;
                else if (name == "N" || name == "Number") p = Property::Number;
                else unsupported(std::string("\\") + e + "{" + name + "}");
                set.properties.push_back({p, e == 'P'});
                return;
            }
            case 'x':
                if (peek() == '{') {
                    ++pos_;
                    uint32_t v = hex_digits(0, true);
                    if (peek() != '}') fail("missing '}'");
                    ++pos_;
                    return add(v);
                }
                return add(hex_digits(2, false));
            case 'u':
                return add(hex_digits(4, false));
            default:
                break;
        }
        const unsigned char u = static_cast<unsigned char>(e);
        if (u < 0x80 && !std::isalnum(u)) return add(u);  // escaped punctuation: itself
        (void)in_class;
        unsupported(std::string("\\") + e);
    }

    // After '[': the class up to its ']'.
    HfRegex::CharSet char_class() {
        HfRegex::CharSet set;
        if (peek() == '^') {
            set.negated = true;
            ++pos_;
        }
        bool first = true;
        for (;;) {
            if (at_end()) fail("missing ']'");
            const char c = peek();
            if (c == ']' && !first) {
                ++pos_;
                return set;
            }
            first = false;
            if (c == '[') unsupported("a nested class or POSIX bracket inside [...]");
            if (c == '&' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '&') unsupported("class intersection &&");
            uint32_t lo;
            if (c == '\\') {
                ++pos_;
                const size_t before = set.properties.size(), ranges = set.ranges.size();
                escape(set, true);
                if (set.properties.size() != before || set.ranges.size() != ranges + 1) continue;  // \s, \p{..}
                lo = set.ranges.back().first;
                set.ranges.pop_back();
            } else {
                lo = literal();
            }
            // a range lo-hi?
            if (peek() == '-' && pos_ + 1 < s_.size() && s_[pos_ + 1] != ']') {
                ++pos_;
                uint32_t hi;
                if (peek() == '\\') {
                    ++pos_;
                    HfRegex::CharSet end;
                    escape(end, true);
                    if (end.ranges.size() != 1 || !end.properties.empty()) fail("a range ending in a class");
                    hi = end.ranges[0].first;
                } else {
                    hi = literal();
                }
                if (hi < lo) fail("a range out of order");
                set.ranges.push_back({lo, hi});
            } else {
                set.ranges.push_back({lo, lo});
            }
        }
    }
};

void CodePoints::assign(std::string_view text) {
    require(text.size() < UINT32_MAX, "text longer than 4 GB");
    cps.clear();
    offsets.clear();
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    for (size_t i = 0, len = 0; i < text.size(); i += len) {
        offsets.push_back(uint32_t(i));
        cps.push_back(s[i] < 0x80 ? (len = 1, uint32_t(s[i])) : decode_utf8(s + i, s + text.size(), len));
    }
    offsets.push_back(uint32_t(text.size()));
}

HfRegex HfRegex::compile(std::string_view pattern) {
    HfRegex re;
    RegexCompiler(re, pattern).compile();
    re.pattern_ = pattern;
    return re;
}

void HfRegex::start_budget(size_t n) const {
    stack_.clear();  // what a search stopped by an Error left
    budget_ = 1000000 + 1000 * uint64_t(n);
}

bool HfRegex::run(int program, const uint32_t* cps, size_t n, size_t start, size_t& end) const {
    const std::vector<Inst>& code = programs_[program].code;
    const size_t base = stack_.size();
    int pc = 0;
    size_t p = start;
    for (;;) {
        if (--budget_ == 0)
            throw Error("regex /" + pattern_ +
                        "/: this text makes the pattern backtrack more than 1,000 steps per "
                        "code point; refusing to go on");
        const Inst& in = code[pc];
        bool ok = true;
        switch (in.op) {
            case Inst::Run: {
                const CharSet& set = sets_[in.a];
                size_t k = 0;
                while (k < in.max && p + k < n && set.contains(cps[p + k])) ++k;
                if (k < in.min) {
                    ok = false;
                    break;
                }
                if (k > in.min) stack_.push_back({pc, uint32_t(p), int32_t(k - 1)});
                p += k;
                ++pc;
                break;
            }
            case Inst::Split:
                if (in.filtered && (p == n || (cps[p] < 128 && !((in.first[cps[p] >> 6] >> (cps[p] & 63)) & 1)))) {
                    pc = in.b;  // branch a cannot start here
                    break;
                }
                stack_.push_back({in.b, uint32_t(p), -1});
                pc = in.a;
                break;
            case Inst::Jmp:
                pc = in.a;
                break;
            case Inst::Look: {
                size_t unused = 0;
                const bool matched = run(in.a, cps, n, p, unused);
                ok = matched != in.negate;
                ++pc;
                break;
            }
            case Inst::Match:
                end = p;
                stack_.resize(base);
                return true;
        }
        if (ok) continue;
        if (stack_.size() == base) return false;
        const Frame f = stack_.back();
        stack_.pop_back();
        if (f.count < 0) {
            pc = f.pc;
            p = f.pos;
        } else {  // the run at f.pc gives back one more code point
            if (uint32_t(f.count) > code[f.pc].min) stack_.push_back({f.pc, f.pos, f.count - 1});
            p = size_t(f.pos) + size_t(f.count);
            pc = f.pc + 1;
        }
    }
}

long HfRegex::match_at(const uint32_t* cps, size_t n, size_t start) const {
    require(n < INT32_MAX, "regex: text longer than 2 G code points");
    start_budget(n);
    size_t end = 0;
    return run(0, cps, n, start, end) ? long(end) : -1;
}

void HfRegex::find_all(const uint32_t* cps, size_t n, const std::function<void(size_t, size_t)>& found) const {
    require(n < INT32_MAX, "regex: text longer than 2 G code points");  // a backtracking frame holds a count
    start_budget(n);
    size_t end = 0;
    for (size_t start = 0; start < n;) {
        if (run(0, cps, n, start, end)) {
            found(start, end);
            start = end > start ? end : start + 1;
        } else {
            ++start;
        }
    }
}

}  // namespace arcscope
