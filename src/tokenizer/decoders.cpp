// decoders.cpp: each decoder as Hugging Face's tokenizers (Rust) applies it.
#include "decoders.h"

#include <cctype>

#include "arcscope/core/utf8.h"
#include "byte_level.h"
#include "hf_json.h"

namespace arcscope::hf {
namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    if (from.empty() || s.find(from) == std::string::npos) return;
    std::string out;
    for (size_t at = 0;;) {
        size_t hit = s.find(from, at);
        out.append(s, at, hit == std::string::npos ? std::string::npos : hit - at);
        if (hit == std::string::npos) break;
        out += to;
        at = hit + from.size();
    }
    s = std::move(out);
}

// ByteLevel: every token's characters back to the bytes they stand for (a token with a character that stands for
// none keeps its own UTF-8), all joined into one, invalid UTF-8 shown as U+FFFD in a whole text. A token alone keeps
// its bytes: one holding part of a character (an emoji's first two bytes) is grouped with its neighbours into the
// character by token_spans, which U+FFFD would hide.
class ByteLevel : public Decoder {
public:
    void apply(std::vector<std::string>& tokens, bool whole_text) const override {
        std::string bytes;
        for (const std::string& t : tokens)
            if (!byte_level_decode(t, bytes)) bytes += t;
        tokens.assign(1, whole_text ? repair_utf8(bytes) : bytes);
    }
};

class Replace : public Decoder {
public:
    Replace(std::string from, std::string to) : from_(std::move(from)), to_(std::move(to)) {}
    void apply(std::vector<std::string>& tokens, bool) const override {
        for (std::string& t : tokens) replace_all(t, from_, to_);
    }

private:
    std::string from_, to_;
};

// ByteFallback: runs of "<0xAB>" tokens become the text their bytes spell, or one U+FFFD per byte if they do not
// spell valid UTF-8.
class ByteFallback : public Decoder {
public:
    void apply(std::vector<std::string>& tokens, bool) const override {
        std::vector<std::string> out;
        std::string bytes;
        auto flush = [&] {
            if (bytes.empty()) return;
            if (is_valid_utf8(bytes)) {
                out.push_back(bytes);
            } else {
                for (size_t i = 0; i < bytes.size(); ++i) out.push_back("\xEF\xBF\xBD");
            }
            bytes.clear();
        };
        for (std::string& t : tokens) {
            int byte = -1;
            if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>' && std::isxdigit((unsigned char)t[3]) &&
                std::isxdigit((unsigned char)t[4]))
                byte = std::stoi(t.substr(3, 2), nullptr, 16);
            if (byte >= 0) {
                bytes += char(byte);
                continue;
            }
            flush();
            out.push_back(std::move(t));
        }
        flush();
        tokens = std::move(out);
    }
};

class Fuse : public Decoder {
public:
    void apply(std::vector<std::string>& tokens, bool) const override {
        std::string all;
        for (const std::string& t : tokens) all += t;
        tokens.assign(1, all);
    }
};

// Strip: up to `start` copies of `content` from each token's start and `stop` from its end.
class Strip : public Decoder {
public:
    Strip(std::string content, size_t start, size_t stop) : content_(std::move(content)), start_(start), stop_(stop) {}
    void apply(std::vector<std::string>& tokens, bool whole_text) const override {
        if (!whole_text) return;
        for (std::string& t : tokens) {
            for (size_t i = 0; i < start_ && t.compare(0, content_.size(), content_) == 0; ++i)
                t.erase(0, content_.size());
            for (size_t i = 0; i < stop_ && t.size() >= content_.size() &&
                               t.compare(t.size() - content_.size(), content_.size(), content_) == 0;
                 ++i)
                t.erase(t.size() - content_.size());
        }
    }

private:
    std::string content_;
    size_t start_, stop_;
};

// Metaspace: the replacement back to spaces; in the first token it is dropped unless prepend_scheme is "never".
class Metaspace : public Decoder {
public:
    Metaspace(std::string replacement, bool drop_first)
        : replacement_(std::move(replacement)), drop_first_(drop_first) {}
    void apply(std::vector<std::string>& tokens, bool whole_text) const override {
        for (size_t i = 0; i < tokens.size(); ++i)
            replace_all(tokens[i], replacement_, whole_text && drop_first_ && i == 0 ? "" : " ");
    }

private:
    std::string replacement_;
    bool drop_first_;
};

class Sequence : public Decoder {
public:
    explicit Sequence(std::vector<std::unique_ptr<Decoder>> steps) : steps_(std::move(steps)) {}
    void apply(std::vector<std::string>& tokens, bool whole_text) const override {
        for (const auto& step : steps_) step->apply(tokens, whole_text);
    }

private:
    std::vector<std::unique_ptr<Decoder>> steps_;
};

size_t count_field(const Json& json, const char* key, const std::string& at) {
    const Json& v = member(json, key, at);
    if (!v.is_number() || v.number < 0 || v.number > 1024 || v.number != double(size_t(v.number)))
        refuse(at, std::string("'") + key + "' must be a whole number in [0, 1024]");
    return size_t(v.number);
}

}  // namespace

std::unique_ptr<Decoder> Decoder::from_json(const Json& json, const std::string& where, int depth) {
    if (json.kind == Json::Kind::Null) return nullptr;
    if (depth > 8) refuse(where, "Sequence nested deeper than 8");
    const std::string type = type_of(json, where);
    const std::string at = where + ": " + type;
    if (type == "ByteLevel") return std::make_unique<ByteLevel>();
    if (type == "Replace") {
        Pattern p = pattern_field(json, at);
        if (p.regex) refuse(at, "a Regex pattern in the decoder is not supported (supported: String)");
        return std::make_unique<Replace>(p.text, string_field(json, "content", at));
    }
    if (type == "ByteFallback") return std::make_unique<ByteFallback>();
    if (type == "Fuse") return std::make_unique<Fuse>();
    if (type == "Strip")
        return std::make_unique<Strip>(string_field(json, "content", at), count_field(json, "start", at),
                                       count_field(json, "stop", at));
    if (type == "Metaspace") {
        bool drop_first = bool_field(json, "add_prefix_space", true, at);
        if (const Json* scheme = json.find("prepend_scheme"); scheme && scheme->is_string())
            drop_first = scheme->string != "never";
        return std::make_unique<Metaspace>(string_field(json, "replacement", at), drop_first);
    }
    if (type == "Sequence")
        return std::make_unique<Sequence>(sequence_steps<Decoder>(json, "decoders", at, depth, from_json));
    refuse(where,
           "decoder type " + type +
               " is not supported (supported: ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, Sequence)");
}

}  // namespace arcscope::hf
