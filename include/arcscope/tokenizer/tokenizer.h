// tokenizer.h: GPT-2's byte-level BPE tokenizer, identical to OpenAI's (and to the npm package gpt-3-encoder).
//
//   Tokenizer tok = Tokenizer::load("models/gpt2-tokenizer.bin");
//   std::vector<int> ids = tok.encode("Hello world");   // {15496, 995}
//   tok.decode(ids) == "Hello world";                    // for every valid UTF-8 text
//
// Text is UTF-8. Invalid UTF-8 is not an error: each ill-formed sequence is encoded as U+FFFD, exactly as
// JavaScript's TextDecoder would have read those bytes. The special token <|endoftext|> is never produced by
// encode() (the text "<|endoftext|>" is tokenized like any other, as gpt-3-encoder does); use eot_id().
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arcscope/tokenizer/bpe.h"
#include "arcscope/tokenizer/token_spans.h"
#include "arcscope/tokenizer/word_cache.h"

namespace arcscope {

// ids, which `text` encoded to, as the one token they must be: an Error otherwise ("<what> ' Mary and' is 2 tokens;
// it must be exactly one ..."), for any tokenizer.
int only_token(const std::vector<int>& ids, std::string_view text, const std::string& what);

class Tokenizer {
public:
    // The file made by scripts/convert_vocab.mjs (see there for the layout). Throws Error naming what is wrong.
    static Tokenizer from_bytes(const uint8_t* data, size_t size);
    static Tokenizer load(const std::string& path);

    // text (UTF-8) -> token ids. Caches words; the cache makes this unsafe to call from two threads at once.
    std::vector<int> encode(std::string_view text) const;
    void encode_append(std::string_view text, std::vector<int>& ids) const;  // same, appending to ids

    // ids -> the exact bytes they stand for (may be invalid UTF-8 if the ids cut a character). Throws Error naming
    // the first id outside [0, vocab_size()).
    std::string decode(const std::vector<int>& ids) const;

    std::string_view token_bytes(int id) const;  // raw bytes of one token
    // Display text of one token: its bytes as UTF-8, each ill-formed or incomplete part (a token holding only some
    // bytes of a character) shown as U+FFFD; equals new TextDecoder().decode(bytes) in JavaScript.
    std::string token_text(int id) const;
    // The one token `text` is (" Mary"), else an Error: "<what> ' Mary and' is 2 tokens; it must be exactly one ...".
    int single_token(std::string_view text, const std::string& what) const;
    // Groups ids into spans of whole characters, for display: merges partial-character tokens with neighbours.
    std::vector<TokenSpan> token_spans(const std::vector<int>& ids) const;

    int vocab_size() const { return int(offsets_.size()) - 1; }  // 50257 for GPT-2
    int eot_id() const { return eot_id_; }                       // 50256 for GPT-2

private:
    void check_id(int id) const;
    void encode_word(std::string_view word, std::vector<int>& ids) const;

    std::string bytes_;              // all tokens' bytes, back to back
    std::vector<uint32_t> offsets_;  // token i is bytes_[offsets_[i], offsets_[i + 1])
    int byte_token_[256] = {};       // id of the one-byte token for each byte value
    MergeTable merges_;
    int eot_id_ = -1;

    mutable WordCache cache_;           // bytes of a word -> its ids
    mutable std::vector<int> scratch_;  // symbols of the word being merged
};

}  // namespace arcscope
