// byte_level.h: GPT-2's byte-to-unicode table, which byte-level BPE files (tokenizer.json's ByteLevel) use to
// write every byte as a printable character: bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF stand for themselves, the
// other 68 for U+0100.. in byte order. The tokenizer works on the bytes; the table turns a file's token strings back
// into them.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace arcscope {

uint32_t byte_level_char(uint8_t byte);  // the code point that stands for `byte`
int byte_level_byte(uint32_t cp);        // the byte `cp` stands for, or -1

// The bytes a byte-level token string stands for; false (out untouched) if a character of it stands for no byte.
bool byte_level_decode(std::string_view token, std::string& out);

}  // namespace arcscope
