// unicode_classes.h: what GPT-2's pre-tokenisation pattern needs to know about a code point: whether it is a letter, a
// number, whitespace or other (UTF-8 itself is core/utf8.h).
#pragma once
#include <array>
#include <cstdint>

#include "arcscope/core/utf8.h"

namespace arcscope {

// \p{L}, \p{N}, JavaScript's \s, or anything else. Tables are generated at build time from Node (see
// scripts/gen_unicode_tables.mjs), so they agree with the JavaScript tokenizers we test against. JavaScript's \s
// (our choice) counts U+FEFF as space and U+0085 as other; the Python `regex` module used by OpenAI's encoder.py
// does the opposite (measured), so text with those two characters can tokenize differently there.
enum class CharClass : uint8_t { Other, Letter, Number, Space };

extern const std::array<CharClass, 128> kAsciiClasses;
CharClass char_class_non_ascii(uint32_t cp);  // binary search in the generated ranges
inline CharClass char_class(uint32_t cp) {
    return cp < 128 ? kAsciiClasses[cp] : char_class_non_ascii(cp);
}
// Unicode's White_Space property: what \s means in Oniguruma, the regex engine of Hugging Face's tokenizers (Rust),
// and so in tokenizer.json's patterns. It is JavaScript's \s (CharClass::Space) with U+0085 added and U+FEFF
// removed (generated beside the classes), so GPT-2's pre-tokenizer keeps JavaScript's \s and tokenizer.json's
// follows the Rust original.
inline bool is_white_space(uint32_t cp) {
    if (cp < 128) return kAsciiClasses[cp] == CharClass::Space;
    if (cp == 0x85) return true;     // kOnlyWhiteSpace (checked against the table in unicode_classes.cpp)
    if (cp == 0xFEFF) return false;  // kOnlyJsSpace
    return char_class_non_ascii(cp) == CharClass::Space;
}
const char* unicode_version();  // of the generated tables, e.g. "17.0"

}  // namespace arcscope
