// json.cpp: recursive-descent JSON reader (RFC 8259), with a depth limit so hostile input cannot overflow the stack.
#include "arcscope/core/json.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "arcscope/core/error.h"
#include "arcscope/core/utf8.h"

namespace arcscope {
namespace {

// A parsed document may take at most this many bytes per byte of text (plus a constant): the tree of "[0,0,0,...]"
// is far larger than its text, so without a bound a 4 MB header could take gigabytes. Charged per value and per
// string byte as they are made; GPT-2's safetensors header needs about 12 bytes per byte natively, 7 in wasm.
constexpr size_t kMemoryPerTextByte = 16;
constexpr size_t kMemorySlack = 64 << 10;

class Reader {
public:
    explicit Reader(std::string_view text)
        : s_(text),
          budget_(text.size() > (SIZE_MAX - kMemorySlack) / kMemoryPerTextByte
                      ? SIZE_MAX
                      : text.size() * kMemoryPerTextByte + kMemorySlack) {}

    Json document() {
        Json v = value(0);
        skip_space();
        if (pos_ != s_.size()) fail("unexpected trailing text");
        return v;
    }

private:
    std::string_view s_;
    size_t pos_ = 0;
    size_t budget_;  // bytes the tree may still take

    void charge(size_t bytes) {
        if (bytes > budget_)
            fail("the document needs more than " + std::to_string(kMemoryPerTextByte) +
                 " bytes of memory per byte of text (it is built to exhaust memory)");
        budget_ -= bytes;
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw Error("JSON: " + what + " at byte " + std::to_string(pos_));
    }
    void skip_space() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
            ++pos_;
    }
    char peek() {
        skip_space();
        if (pos_ >= s_.size()) fail("unexpected end");
        return s_[pos_];
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++pos_;
    }
    bool literal(std::string_view word) {
        if (s_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }

    Json value(int depth) {
        if (depth > 64) fail("nesting too deep");
        charge(sizeof(Json));
        Json v;
        char c = peek();
        if (c == '{') {
            v.kind = Json::Kind::Object;
            ++pos_;
            if (peek() == '}') {
                ++pos_;
                return v;
            }
            for (;;) {
                if (peek() != '"') fail("expected a key");
                std::string key = string();
                expect(':');
                charge(sizeof(std::string));
                v.object.emplace_back(std::move(key), value(depth + 1));
                if (peek() == ',') {
                    ++pos_;
                    continue;
                }
                expect('}');
                reject_duplicate_keys(v);
                return v;
            }
        }
        if (c == '[') {
            v.kind = Json::Kind::Array;
            ++pos_;
            if (peek() == ']') {
                ++pos_;
                return v;
            }
            for (;;) {
                v.array.push_back(value(depth + 1));
                if (peek() == ',') {
                    ++pos_;
                    continue;
                }
                expect(']');
                return v;
            }
        }
        if (c == '"') {
            v.kind = Json::Kind::String;
            v.string = string();
            return v;
        }
        if (literal("true")) {
            v.kind = Json::Kind::Bool;
            v.boolean = true;
            return v;
        }
        if (literal("false")) {
            v.kind = Json::Kind::Bool;
            return v;
        }
        if (literal("null")) return v;
        v.kind = Json::Kind::Number;
        v.number = number();
        return v;
    }

    // Keys are unique: Python's json (what Hugging Face reads config.json with) would silently keep the last of
    // two, this reader the first, so a file that repeats a key means different things to each. It is an error.
    void reject_duplicate_keys(const Json& v) {
        if (v.object.size() < 2) return;
        std::vector<std::string_view> keys;
        keys.reserve(v.object.size());
        for (const auto& kv : v.object) keys.push_back(kv.first);
        std::sort(keys.begin(), keys.end());
        auto dup = std::adjacent_find(keys.begin(), keys.end());
        if (dup != keys.end()) fail("key \"" + std::string(*dup) + "\" appears twice in the object ending here");
    }

    bool digit() const { return pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9'; }

    // RFC 8259's grammar exactly: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (no "+2", no "04", no ".5").
    double number() {
        const size_t start = pos_;
        if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
        if (!digit()) fail(pos_ == start ? "unexpected character" : "bad number");
        if (s_[pos_] == '0') {
            ++pos_;
            if (digit()) fail("bad number: leading zero");
        } else {
            while (digit()) ++pos_;
        }
        if (pos_ < s_.size() && s_[pos_] == '.') {
            ++pos_;
            if (!digit()) fail("bad number: no digits after the decimal point");
            while (digit()) ++pos_;
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
            if (!digit()) fail("bad number: no digits in the exponent");
            while (digit()) ++pos_;
        }
        const std::string text(s_.substr(start, pos_ - start));
        return std::strtod(text.c_str(), nullptr);  // the grammar above is a subset of strtod's
    }

    unsigned hex4() {
        if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
        unsigned u = 0;
        for (int i = 0; i < 4; ++i) {
            char h = s_[pos_++];
            u <<= 4;
            if (h >= '0' && h <= '9') u |= h - '0';
            else if (h >= 'a' && h <= 'f') u |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') u |= h - 'A' + 10;
            else fail("bad \\u escape");
        }
        return u;
    }

    std::string string() {
        expect('"');
        std::string out;
        for (;;) {
            if (pos_ >= s_.size()) fail("unterminated string");
            char c = s_[pos_++];
            if (c == '"') {
                charge(out.size());
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= s_.size()) fail("unterminated string");
            char e = s_[pos_++];
            switch (e) {
                case '"':
                    out += '"';
                    break;
                case '\\':
                    out += '\\';
                    break;
                case '/':
                    out += '/';
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'n':
                    out += '\n';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'u': {
                    unsigned cp = hex4();
                    if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
                        size_t high_end = pos_;
                        pos_ += 2;
                        unsigned lo = hex4();
                        if (lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        else pos_ = high_end;  // not a pair: the high surrogate stands alone
                    }
                    // A lone surrogate has no UTF-8 form; U+FFFD is what JavaScript's TextEncoder writes for it.
                    if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;
                    append_utf8(out, cp);
                    break;
                }
                default:
                    fail("bad escape");
            }
        }
    }
};

}  // namespace

Json Json::parse(std::string_view text) {
    return Reader(text).document();
}

Json Json::parse_object(std::string_view text, const char* what) {
    Json j;
    try {
        j = parse(text);
    } catch (const Error& e) {
        throw Error(std::string(what) + ": " + e.what());
    }
    require(j.is_object(), std::string(what) + " is not a JSON object");
    return j;
}

const Json* Json::find(std::string_view key) const {
    if (kind != Kind::Object) return nullptr;
    for (const auto& [k, v] : object)
        if (k == key) return &v;
    return nullptr;
}

std::string float_text(float f) {
    char buf[32];
    for (int digits = 6; digits <= 9; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, double(f));
        if (std::strtof(buf, nullptr) == f) break;
    }
    return buf;
}

}  // namespace arcscope
