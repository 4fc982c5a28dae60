// fuzz_tokenizer.cpp: libFuzzer target for the GPT-2 tokenizer. Any bytes are text to encode (invalid UTF-8 included);
// valid UTF-8 must survive decode(encode(text)) unchanged; spans and token texts must stay in bounds.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "arcscope/core/error.h"
#include "arcscope/tokenizer/tokenizer.h"

namespace {
bool valid_utf8(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        const unsigned char c = s[i];
        const int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
        if (n < 0 || i + n >= s.size()) return false;
        unsigned cp = n == 0 ? c : c & (0x3F >> n);
        for (int k = 1; k <= n; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp < 0xE000))
            return false;
        i += n + 1;
    }
    return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const arcscope::Tokenizer tok = arcscope::Tokenizer::load(ARCSCOPE_TOKENIZER_PATH);
    std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<int> ids = tok.encode(text);
    std::string back = tok.decode(ids);
    if (valid_utf8(text) && back != text) std::abort();  // the round trip is the tokenizer's promise
    for (const auto& span : tok.token_spans(ids))
        if (span.first < 0 || span.count < 1 || size_t(span.first + span.count) > ids.size()) std::abort();
    for (int id : ids) (void)tok.token_text(id);
    return 0;
}
