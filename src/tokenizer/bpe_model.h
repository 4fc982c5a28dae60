// bpe_model.h: tokenizer.json's "model" of type BPE: the vocabulary, the merges (run by bpe.h's MergeTable, as GPT-2's
// are) and the options those files use: byte-level words (a ByteLevel pre-tokenizer: tokens are written with GPT-2's
// byte-to-unicode table and read here as bytes), or words of characters with byte_fallback ("<0xAB>" tokens for a
// character missing from the vocabulary) and unk_token / fuse_unk; ignore_merges (a word that is a token is that
// token). dropout, continuing_subword_prefix and end_of_word_suffix are refused by name.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "arcscope/core/json.h"
#include "arcscope/tokenizer/bpe.h"
#include "arcscope/tokenizer/word_cache.h"
#include "string_index.h"

namespace arcscope::hf {

class BpeModel {
public:
    BpeModel() = default;
    BpeModel(const Json& model, bool byte_level);
    BpeModel(const BpeModel&) = delete;  // the indexes point into the model's own strings
    BpeModel& operator=(const BpeModel&) = delete;

    // One pre-tokenized word (UTF-8) -> ids, appended. Caches words: not thread-safe.
    void encode(std::string_view word, std::vector<int>& ids) const;

    int id_of(std::string_view token) const;  // a token's id by its text as the file writes it, or -1
    // The byte a byte_fallback token ("<0xAB>") stands for, or -1 for any other id.
    int fallback_byte(int id) const;
    // Every id the vocabulary defines, with its text as the file writes it.
    const std::vector<std::pair<std::string, int>>& vocabulary() const { return vocabulary_; }

private:
    int lookup(std::string_view key) const;  // by the bytes the model reads (keys_), or -1
    // The word's first symbols, and how many bytes of it each stands for.
    void initial_symbols(std::string_view word, std::vector<int>& symbols, std::vector<uint32_t>& widths) const;
    // BPE of `symbols`, the first symbols of `bytes`, through the word cache; appended to ids.
    void merge_cached(std::string_view bytes, std::vector<int> symbols, std::vector<int>& ids) const;

    bool byte_level_ = false, byte_fallback_ = false, fuse_unk_ = false, ignore_merges_ = false;
    int unk_id_ = -1;
    std::vector<std::pair<std::string, int>> vocabulary_;  // as written in the file
    std::vector<std::string> keys_;                        // what each entry of vocabulary_ reads as
    StringIndex by_key_;                                   // views into keys_
    StringIndex by_text_;                                  // views into vocabulary_
    int byte_token_[256];                                  // the id of each one-byte token, or -1
    int fallback_token_[256];                              // byte_fallback: the id of "<0xAB>", or -1
    MergeTable merges_;
    // Pairs of first symbols (x, y) some merge can join across: the last symbol of its left token and the first of
    // its right one. Where no merge can, a long word is cut and its parts merged (and cached) on their own: a file
    // with no pre-tokenizer (Llama 2's) hands BPE whole texts.
    MergeTable crossable_;
    bool can_cut_ = false;

    mutable WordCache cache_;
    mutable std::vector<int> symbols_;
    mutable std::vector<uint32_t> widths_;
};

}  // namespace arcscope::hf
