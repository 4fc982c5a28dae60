// byte_level.cpp: the table, built once.
#include "byte_level.h"

#include <array>

#include "arcscope/core/utf8.h"

namespace arcscope {
namespace {

struct ByteLevelTable {
    std::array<uint32_t, 256> char_of{};
    std::array<int16_t, 256 + 68> byte_of{};  // -1 where a code point stands for no byte
    ByteLevelTable() {
        byte_of.fill(-1);
        uint32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            char_of[b] = printable ? uint32_t(b) : next++;
            byte_of[char_of[b]] = int16_t(b);
        }
    }
};
const ByteLevelTable kTable;

}  // namespace

uint32_t byte_level_char(uint8_t byte) {
    return kTable.char_of[byte];
}

int byte_level_byte(uint32_t cp) {
    return cp < kTable.byte_of.size() ? kTable.byte_of[cp] : -1;
}

bool byte_level_decode(std::string_view token, std::string& out) {
    std::string bytes;
    const auto* s = reinterpret_cast<const unsigned char*>(token.data());
    for (size_t i = 0, len = 0; i < token.size(); i += len) {
        len = utf8_char_length(token, i);
        if (len == 0) return false;
        const int b = byte_level_byte(decode_utf8(s + i, s + token.size(), len));
        if (b < 0) return false;
        bytes += char(b);
    }
    out += bytes;
    return true;
}

}  // namespace arcscope
