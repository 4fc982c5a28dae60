// utf8.h: UTF-8 decoding, checking and repair (the WHATWG replacement rule for invalid bytes, as TextDecoder has
// it), shared by the tokenizer, the JSON reader and the CLI.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace arcscope {

// Decodes one code point of VALID UTF-8 at p (p < end); stores its byte length in len.
inline uint32_t decode_utf8(const unsigned char* p, const unsigned char* end, size_t& len) {
    unsigned char b = p[0];
    if (b < 0x80) {
        len = 1;
        return b;
    }
    if (b < 0xE0 && p + 1 < end) {
        len = 2;
        return (uint32_t(b & 0x1F) << 6) | (p[1] & 0x3F);
    }
    if (b < 0xF0 && p + 2 < end) {
        len = 3;
        return (uint32_t(b & 0x0F) << 12) | (uint32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    }
    if (p + 3 < end) {
        len = 4;
        return (uint32_t(b & 0x07) << 18) | (uint32_t(p[1] & 0x3F) << 12) | (uint32_t(p[2] & 0x3F) << 6) |
               (p[3] & 0x3F);
    }
    len = 1;  // truncated: cannot happen in valid UTF-8; never read past end
    return 0xFFFD;
}

// Length of the well-formed UTF-8 character at s[pos], or 0 if the bytes there are not one (bad or truncated).
size_t utf8_char_length(std::string_view s, size_t pos);

bool is_valid_utf8(std::string_view s);

// s with every ill-formed byte sequence replaced by U+FFFD, exactly as TextDecoder (WHATWG "maximal subpart")
// does: so encoding invalid bytes in C++ gives what JavaScript gets from new TextDecoder().decode(bytes).
std::string repair_utf8(std::string_view s);

// How many bytes at the end of s start a character that more bytes could still complete (0..3).
size_t utf8_incomplete_tail(std::string_view s);

void append_utf8(std::string& out, uint32_t cp);

}  // namespace arcscope
