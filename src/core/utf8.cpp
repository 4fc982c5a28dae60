// utf8.cpp: UTF-8 checking and repair, byte for byte as TextDecoder does it.
#include "arcscope/core/utf8.h"

namespace arcscope {
namespace {

// The character at s[pos]: returns its length if well-formed, else 0 and sets subpart to the length of the
// maximal subpart (the bytes one U+FFFD stands for, at least 1) and truncated if the text ended inside it.
size_t scan_char(std::string_view s, size_t pos, size_t& subpart, bool& truncated) {
    auto b = static_cast<unsigned char>(s[pos]);
    truncated = false;
    if (b < 0x80) return 1;
    size_t need = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte (excludes overlongs and surrogates)
    if (b >= 0xC2 && b <= 0xDF) {
        need = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
        need = 2;
        if (b == 0xE0) lo = 0xA0;
        if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        need = 3;
        if (b == 0xF0) lo = 0x90;
        if (b == 0xF4) hi = 0x8F;
    } else {
        subpart = 1;
        return 0;
    }
    size_t i = 1;
    for (; i <= need; ++i) {
        if (pos + i >= s.size()) {
            truncated = true;
            break;
        }
        auto c = static_cast<unsigned char>(s[pos + i]);
        if (c < lo || c > hi) break;
        lo = 0x80;
        hi = 0xBF;
    }
    if (i > need) return need + 1;
    subpart = i;
    return 0;
}

}  // namespace

size_t utf8_char_length(std::string_view s, size_t pos) {
    size_t subpart = 0;
    bool truncated = false;
    return pos < s.size() ? scan_char(s, pos, subpart, truncated) : 0;
}

bool is_valid_utf8(std::string_view s) {
    size_t i = 0, subpart = 0;
    bool truncated = false;
    while (i < s.size()) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        size_t n = scan_char(s, i, subpart, truncated);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string repair_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 16);
    size_t i = 0, subpart = 0;
    bool truncated = false;
    while (i < s.size()) {
        size_t n = scan_char(s, i, subpart, truncated);
        if (n > 0) {
            out.append(s.data() + i, n);
            i += n;
        } else {
            out += "\xEF\xBF\xBD";  // U+FFFD
            i += subpart;
        }
    }
    return out;
}

size_t utf8_incomplete_tail(std::string_view s) {
    for (size_t k = 1; k <= 3 && k <= s.size(); ++k) {
        size_t pos = s.size() - k, subpart = 0;
        bool truncated = false;
        auto b = static_cast<unsigned char>(s[pos]);
        if (b >= 0x80 && b <= 0xBF) continue;  // a continuation byte: its lead is further back
        bool cut_short = scan_char(s, pos, subpart, truncated) == 0 && truncated && subpart == k;
        return cut_short ? k : 0;
    }
    return 0;
}

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

}  // namespace arcscope
