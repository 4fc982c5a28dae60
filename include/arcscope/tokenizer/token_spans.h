// token_spans.h: tokens grouped into whole characters, for display. A byte-level BPE token may hold only some bytes
// of a character (an emoji is often 2-3 tokens), as may a SentencePiece byte-fallback token ("<0xE4>"); shown alone
// each would be U+FFFD. Both tokenizers group their tokens' bytes here.
#pragma once
#include <string>
#include <vector>

namespace arcscope {

// Consecutive tokens whose bytes together form whole characters.
struct TokenSpan {
    int first;         // index of the span's first token in the id list
    int count;         // number of tokens, >= 1
    std::string text;  // their bytes as UTF-8 (U+FFFD for bytes that never complete a character)
};

// pieces: each token's bytes, in order -> the spans, every token in exactly one: a token joins the one before while
// its bytes carry on a character that one left unfinished.
std::vector<TokenSpan> spans_of_pieces(const std::vector<std::string>& pieces);

}  // namespace arcscope
