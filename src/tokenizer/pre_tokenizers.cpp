// pre_tokenizers.cpp: each pre-tokenizer as Hugging Face's tokenizers (Rust) applies it. A Split finds its matches,
// then keeps, drops or joins them with their neighbours by its behaviour (Rust's SplitDelimiterBehavior).
#include "pre_tokenizers.h"

#include <algorithm>

#include "hf_json.h"
#include "hf_regex.h"
#include "pattern_finder.h"
#include "unicode_classes.h"

namespace arcscope::hf {
namespace {

enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

struct Span {
    size_t start, end;  // bytes
    bool match;
};

// Applies a behaviour to the spans covering one piece, appending the resulting non-empty pieces.
void emit(const std::string& piece, std::vector<Span>& spans, Behavior behavior, std::vector<std::string>& out) {
    if (behavior == Behavior::Isolated) {  // the common case: every span as it is
        for (const Span& s : spans)
            if (s.end > s.start) out.emplace_back(piece, s.start, s.end - s.start);
        return;
    }
    std::vector<Span> kept;
    bool previous_match = false;
    switch (behavior) {
        case Behavior::Isolated:
            kept = spans;
            break;
        case Behavior::Removed:
            for (const Span& s : spans)
                if (!s.match) kept.push_back(s);
            break;
        case Behavior::MergedWithPrevious:
            for (const Span& s : spans) {
                if (s.match && !previous_match && !kept.empty()) kept.back().end = s.end;
                else kept.push_back(s);
                previous_match = s.match;
            }
            break;
        case Behavior::MergedWithNext:
            for (size_t i = spans.size(); i-- > 0;) {
                const Span& s = spans[i];
                if (s.match && !previous_match && !kept.empty()) kept.back().start = s.start;
                else kept.push_back(s);
                previous_match = s.match;
            }
            std::reverse(kept.begin(), kept.end());
            break;
        case Behavior::Contiguous:
            for (size_t i = 0; i < spans.size(); ++i) {
                const Span& s = spans[i];
                if (i > 0 && s.match == previous_match) kept.back().end = s.end;
                else kept.push_back(s);
                previous_match = s.match;
            }
            break;
    }
    for (const Span& s : kept)
        if (s.end > s.start) out.emplace_back(piece, s.start, s.end - s.start);
}

// Spans covering `piece`: the matches and the text between them.
void add_match(std::vector<Span>& spans, size_t& previous_end, size_t start, size_t end) {
    if (start > previous_end) spans.push_back({previous_end, start, false});
    spans.push_back({start, end, true});
    previous_end = end;
}

class Split : public PreTokenizer {
public:
    Split(const Pattern& pattern, Behavior behavior, bool invert, const std::string& where)
        : finder_(pattern, where), behavior_(behavior), invert_(invert) {}
    void split(std::vector<std::string>& pieces, bool) const override {
        std::vector<std::string> out;
        size_t bytes = 0;
        for (const std::string& piece : pieces) bytes += piece.size();
        out.reserve(pieces.size() + bytes / 4);  // about a word per 4 bytes of prose
        std::vector<Span> spans;
        for (const std::string& piece : pieces) {
            spans.clear();
            size_t previous_end = 0;
            finder_.find_all(piece, [&](size_t start, size_t end) { add_match(spans, previous_end, start, end); });
            if (previous_end < piece.size()) spans.push_back({previous_end, piece.size(), false});
            if (invert_)
                for (Span& s : spans) s.match = !s.match;
            emit(piece, spans, behavior_, out);
        }
        pieces = std::move(out);
    }

private:
    PatternFinder finder_;
    Behavior behavior_;
    bool invert_;
};

// ByteLevel: the model reads bytes (its tokens are GPT-2's byte-to-unicode strings, decoded when loading), so the
// byte mapping itself is nothing to do here; add_prefix_space and use_regex (GPT-2's pattern) are.
class ByteLevel : public PreTokenizer {
public:
    ByteLevel(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space) {
        if (use_regex)
            gpt2_ = std::make_unique<Split>(
                Pattern{true, "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"},
                Behavior::Isolated, false, "ByteLevel");
    }
    void split(std::vector<std::string>& pieces, bool first_section) const override {
        if (add_prefix_space_)
            for (std::string& p : pieces)
                if (!p.empty() && p[0] != ' ') p.insert(0, " ");
        if (gpt2_) gpt2_->split(pieces, first_section);
    }
    bool byte_level() const override { return true; }

private:
    bool add_prefix_space_;
    std::unique_ptr<Split> gpt2_;
};

// Digits: numbers (\p{N}, Rust's char::is_numeric) apart from the rest, one by one or in runs.
class Digits : public PreTokenizer {
public:
    explicit Digits(bool individual) : individual_(individual) {}
    void split(std::vector<std::string>& pieces, bool) const override {
        std::vector<std::string> out;
        std::vector<Span> spans;
        for (const std::string& piece : pieces) {
            code_points_.assign(piece);
            spans.clear();
            size_t previous_end = 0;
            const auto& cps = code_points_.cps;
            const auto& offsets = code_points_.offsets;
            for (size_t i = 0; i < cps.size(); ++i)
                if (char_class(cps[i]) == CharClass::Number) add_match(spans, previous_end, offsets[i], offsets[i + 1]);
            if (previous_end < piece.size()) spans.push_back({previous_end, piece.size(), false});
            emit(piece, spans, individual_ ? Behavior::Isolated : Behavior::Contiguous, out);
        }
        pieces = std::move(out);
    }

private:
    bool individual_;
    mutable CodePoints code_points_;
};

// Metaspace: spaces become the replacement ("▁"), which is prepended as the scheme says, and words are cut before
// each replacement (MergedWithNext) when `split`.
class Metaspace : public PreTokenizer {
public:
    enum class Prepend { Always, First, Never };
    Metaspace(std::string replacement, Prepend prepend, bool split)
        : replacement_(std::move(replacement)), prepend_(prepend), split_(split) {}
    void split(std::vector<std::string>& pieces, bool first_section) const override {
        std::vector<std::string> out;
        for (size_t i = 0; i < pieces.size(); ++i) {
            std::string piece;
            for (char c : pieces[i]) {
                if (c == ' ') piece += replacement_;
                else piece += c;
            }
            const bool starts = piece.compare(0, replacement_.size(), replacement_) == 0;
            if (!starts && (prepend_ == Prepend::Always || (prepend_ == Prepend::First && first_section && i == 0)))
                piece.insert(0, replacement_);
            if (!split_) {
                if (!piece.empty()) out.push_back(std::move(piece));
                continue;
            }
            std::vector<Span> spans;
            size_t previous_end = 0;
            for (size_t at = piece.find(replacement_); at != std::string::npos;
                 at = piece.find(replacement_, at + replacement_.size()))
                add_match(spans, previous_end, at, at + replacement_.size());
            if (previous_end < piece.size()) spans.push_back({previous_end, piece.size(), false});
            emit(piece, spans, Behavior::MergedWithNext, out);
        }
        pieces = std::move(out);
    }

private:
    std::string replacement_;
    Prepend prepend_;
    bool split_;
};

class Sequence : public PreTokenizer {
public:
    explicit Sequence(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
    void split(std::vector<std::string>& pieces, bool first_section) const override {
        for (const auto& step : steps_) step->split(pieces, first_section);
    }
    bool byte_level() const override {
        for (const auto& step : steps_)
            if (step->byte_level()) return true;
        return false;
    }

private:
    std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

Behavior behavior_field(const Json& json, const std::string& where) {
    const std::string b = string_field(json, "behavior", where);
    if (b == "Removed") return Behavior::Removed;
    if (b == "Isolated") return Behavior::Isolated;
    if (b == "MergedWithPrevious") return Behavior::MergedWithPrevious;
    if (b == "MergedWithNext") return Behavior::MergedWithNext;
    if (b == "Contiguous") return Behavior::Contiguous;
    refuse(where, "behavior " + b + " is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
}

}  // namespace

std::unique_ptr<PreTokenizer> PreTokenizer::from_json(const Json& json, const std::string& where, int depth) {
    if (json.kind == Json::Kind::Null) return nullptr;
    if (depth > 8) refuse(where, "Sequence nested deeper than 8");
    const std::string type = type_of(json, where);
    const std::string at = where + ": " + type;
    if (type == "Split")
        return std::make_unique<Split>(pattern_field(json, at), behavior_field(json, at),
                                       bool_field(json, "invert", false, at), at);
    if (type == "ByteLevel")
        return std::make_unique<ByteLevel>(bool_field(json, "add_prefix_space", true, at),
                                           bool_field(json, "use_regex", true, at));
    if (type == "Digits") return std::make_unique<Digits>(bool_field(json, "individual_digits", false, at));
    if (type == "Metaspace") {
        const std::string replacement = string_field(json, "replacement", at);
        if (replacement.empty()) refuse(at, "an empty 'replacement'");
        Metaspace::Prepend prepend =
            bool_field(json, "add_prefix_space", true, at) ? Metaspace::Prepend::Always : Metaspace::Prepend::Never;
        if (const Json* scheme = json.find("prepend_scheme"); scheme && scheme->is_string()) {
            if (scheme->string == "always") prepend = Metaspace::Prepend::Always;
            else if (scheme->string == "first") prepend = Metaspace::Prepend::First;
            else if (scheme->string == "never") prepend = Metaspace::Prepend::Never;
            else refuse(at, "prepend_scheme " + scheme->string + " is not one of always, first, never");
        }
        return std::make_unique<Metaspace>(replacement, prepend, bool_field(json, "split", true, at));
    }
    if (type == "Sequence")
        return std::make_unique<Sequence>(sequence_steps<PreTokenizer>(json, "pretokenizers", at, depth, from_json));
    refuse(where, "pre_tokenizer type " + type +
                      " is not supported (supported: Split, ByteLevel, Digits, Metaspace, Sequence)");
}

}  // namespace arcscope::hf
