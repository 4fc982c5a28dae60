// token_spans.cpp: tokens grouped into whole characters (token_spans.h).
#include "arcscope/tokenizer/token_spans.h"

#include <string_view>

#include "arcscope/core/utf8.h"

namespace arcscope {

std::vector<TokenSpan> spans_of_pieces(const std::vector<std::string>& pieces) {
    // Does `more` carry on the unfinished character at the end of `bytes`?
    auto continues = [](std::string_view bytes, std::string_view more) {
        size_t tail = utf8_incomplete_tail(bytes);
        if (tail == 0 || more.empty()) return false;
        std::string joined(bytes.substr(bytes.size() - tail));
        joined += more.substr(0, 4 - tail);
        return utf8_char_length(joined, 0) > 0 || utf8_incomplete_tail(joined) == joined.size();
    };
    std::vector<TokenSpan> spans;
    std::string bytes;
    for (size_t i = 0; i < pieces.size();) {
        size_t j = i;
        bytes.assign(pieces[j++]);
        while (j < pieces.size() && continues(bytes, pieces[j])) bytes += pieces[j++];
        spans.push_back({int(i), int(j - i), repair_utf8(bytes)});
        i = j;
    }
    return spans;
}

}  // namespace arcscope
