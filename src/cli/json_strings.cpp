// json_strings.cpp: escaping and unescaping JSON string values (RFC 8259).
#include "json_strings.h"

#include "error.h"
#include "unicode_classes.h"

namespace arcscope::cli {

std::string json_quote(std::string_view text) {
    std::string repaired;
    if (!is_valid_utf8(text)) text = repaired = repair_utf8(text);
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    const char* hex = "0123456789abcdef";
                    out += "\\u00";
                    out += hex[c >> 4];
                    out += hex[c & 15];
                } else {
                    out += c;
                }
        }
    }
    out += '"';
    return out;
}

std::string json_unquote(std::string_view json) {
    size_t pos = 0;
    auto fail = [&](const std::string& what) -> void {
        throw Error("expected a JSON string: " + what + " at byte " + std::to_string(pos));
    };
    auto skip_space = [&] {
        while (pos < json.size() && (json[pos] == ' ' || json[pos] == '\t' || json[pos] == '\r' || json[pos] == '\n'))
            ++pos;
    };
    auto hex4 = [&]() -> uint32_t {
        if (pos + 4 > json.size()) fail("truncated \\u escape");
        uint32_t u = 0;
        for (int i = 0; i < 4; ++i) {
            char h = json[pos++];
            u <<= 4;
            if (h >= '0' && h <= '9') u |= uint32_t(h - '0');
            else if (h >= 'a' && h <= 'f') u |= uint32_t(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') u |= uint32_t(h - 'A' + 10);
            else fail("bad \\u escape");
        }
        return u;
    };

    skip_space();
    if (pos >= json.size() || json[pos] != '"') fail("no opening quote");
    ++pos;
    std::string out;
    for (;;) {
        if (pos >= json.size()) fail("unterminated string");
        char c = json[pos++];
        if (c == '"') break;
        if (static_cast<unsigned char>(c) < 0x20) fail("raw control character");
        if (c != '\\') {
            out += c;
            continue;
        }
        if (pos >= json.size()) fail("unterminated string");
        char e = json[pos++];
        switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                uint32_t cp = hex4();
                if (cp >= 0xD800 && cp < 0xDC00 && json.substr(pos, 2) == "\\u") {
                    size_t save = pos;
                    pos += 2;
                    uint32_t lo = hex4();
                    if (lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    else pos = save;  // not a pair: the high surrogate stands alone
                }
                if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;
                append_utf8(out, cp);
                break;
            }
            default: fail("bad escape");
        }
    }
    skip_space();
    if (pos != json.size()) fail("trailing text");
    return out;
}

}  // namespace arcscope::cli
