// unicode_normalization.h: Unicode normalization forms (UAX #15) over UTF-8, with tables generated at build time
// from Node's String.prototype.normalize (scripts/gen_unicode_normalization.mjs), so they agree with the JavaScript
// tokenizers we test against. Input must be valid UTF-8.
#pragma once
#include <string>
#include <string_view>

namespace arcscope {

enum class NormalForm { NFC, NFD, NFKC, NFKD };

std::string normalize(std::string_view text, NormalForm form);
const char* normalization_unicode_version();  // of the generated tables, e.g. "17.0"

}  // namespace arcscope
