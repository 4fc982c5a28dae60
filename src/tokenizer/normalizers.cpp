// normalizers.cpp: each normalizer as Hugging Face's tokenizers (Rust) applies it to one piece of text.
#include "normalizers.h"

#include <vector>

#include "hf_json.h"
#include "pattern_finder.h"
#include "unicode_classes.h"
#include "unicode_normalization.h"

namespace arcscope::hf {
namespace {

class UnicodeForm : public Normalizer {
public:
    explicit UnicodeForm(NormalForm form) : form_(form) {}
    void apply(std::string& text) const override { text = normalize(text, form_); }

private:
    NormalForm form_;
};

class Prepend : public Normalizer {  // the prefix before any non-empty text ("▁" in SentencePiece-style files)
public:
    explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
    void apply(std::string& text) const override {
        if (!text.empty()) text.insert(0, prefix_);
    }

private:
    std::string prefix_;
};

class Replace : public Normalizer {  // every match of a string or a regex, by `content`
public:
    Replace(const Pattern& pattern, std::string content, const std::string& where)
        : finder_(pattern, where), content_(std::move(content)) {}
    void apply(std::string& text) const override {
        std::string out;
        size_t copied = 0;  // bytes of text already in out
        finder_.find_all(text, [&](size_t start, size_t end) {
            if (end == start) return;
            out.append(text, copied, start - copied);
            out += content_;
            copied = end;
        });
        if (copied == 0 && out.empty()) return;  // no match
        out.append(text, copied, std::string::npos);
        text = std::move(out);
    }

private:
    PatternFinder finder_;
    std::string content_;
};

class Strip : public Normalizer {  // White_Space at either end (Rust's char::is_whitespace)
public:
    Strip(bool left, bool right) : left_(left), right_(right) {}
    void apply(std::string& text) const override {
        CodePoints cp;
        cp.assign(text);
        size_t a = 0, b = cp.cps.size();
        while (left_ && a < b && is_white_space(cp.cps[a])) ++a;
        while (right_ && b > a && is_white_space(cp.cps[b - 1])) --b;
        text = text.substr(cp.offsets[a], cp.offsets[b] - cp.offsets[a]);
    }

private:
    bool left_, right_;
};

class Sequence : public Normalizer {
public:
    explicit Sequence(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
    void apply(std::string& text) const override {
        for (const auto& step : steps_) step->apply(text);
    }

private:
    std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace

std::unique_ptr<Normalizer> Normalizer::from_json(const Json& json, const std::string& where, int depth) {
    if (json.kind == Json::Kind::Null) return nullptr;
    if (depth > 8) refuse(where, "Sequence nested deeper than 8");
    const std::string type = type_of(json, where);
    const std::string at = where + ": " + type;
    if (type == "NFC") return std::make_unique<UnicodeForm>(NormalForm::NFC);
    if (type == "NFD") return std::make_unique<UnicodeForm>(NormalForm::NFD);
    if (type == "NFKC") return std::make_unique<UnicodeForm>(NormalForm::NFKC);
    if (type == "NFKD") return std::make_unique<UnicodeForm>(NormalForm::NFKD);
    if (type == "Prepend") return std::make_unique<Prepend>(string_field(json, "prepend", at));
    if (type == "Replace")
        return std::make_unique<Replace>(pattern_field(json, at), string_field(json, "content", at), at);
    if (type == "Strip")
        return std::make_unique<Strip>(bool_field(json, "strip_left", true, at),
                                       bool_field(json, "strip_right", true, at));
    if (type == "Sequence")
        return std::make_unique<Sequence>(sequence_steps<Normalizer>(json, "normalizers", at, depth, from_json));
    refuse(where, "normalizer type " + type +
                      " is not supported (supported: NFC, NFD, NFKC, NFKD, Prepend, Replace, Strip, Sequence)");
}

}  // namespace arcscope::hf
