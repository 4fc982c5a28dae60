// bpe_model.cpp: loading the vocabulary and merges, and Hugging Face's BPE word encoding (Rust's merge_word, then
// the merges lowest rank first, as bpe_merge does).
#include "bpe_model.h"

#include <cstdio>

#include "arcscope/core/utf8.h"
#include "byte_level.h"
#include "hf_json.h"

namespace arcscope::hf {
namespace {

constexpr size_t kCacheWords = 1 << 16;
constexpr size_t kCacheMaxWord = 256;  // bytes; as Hugging Face's cache, longer words are not kept
constexpr int kMaxId = 1 << 24;

}  // namespace

BpeModel::BpeModel(const Json& model, bool byte_level) : byte_level_(byte_level) {
    const std::string at = "model: BPE";
    if (const Json* d = model.find("dropout"); d && d->kind != Json::Kind::Null && !(d->is_number() && d->number == 0))
        refuse(at, "dropout is not supported");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
        if (const Json* v = model.find(key); v && v->is_string() && !v->string.empty())
            refuse(at, std::string(key) + " is not supported");
    byte_fallback_ = bool_field(model, "byte_fallback", false, at);
    fuse_unk_ = bool_field(model, "fuse_unk", false, at);
    ignore_merges_ = bool_field(model, "ignore_merges", false, at);

    // 1. vocabulary: text -> id; the key each token is looked up by (bytes, for byte-level files)
    const Json& vocab = member(model, "vocab", at);
    if (!vocab.is_object()) refuse(at, "'vocab' must be an object of token -> id");
    vocabulary_.reserve(vocab.object.size());
    keys_.reserve(vocab.object.size());
    for (const auto& [text, id] : vocab.object) {
        if (!id.is_number() || id.number < 0 || id.number >= kMaxId || id.number != double(int(id.number)))
            refuse(at, "vocab: the id of '" + text + "' must be a whole number in [0, 2^24)");
        std::string key;
        if (!byte_level_ || !byte_level_decode(text, key)) key = text;
        vocabulary_.push_back({text, int(id.number)});
        keys_.push_back(std::move(key));
    }
    by_key_.reserve(keys_.size());
    by_text_.reserve(keys_.size());
    for (size_t i = 0; i < keys_.size(); ++i) {
        by_key_.emplace(keys_[i], vocabulary_[i].second);  // the first entry wins if two read the same
        by_text_.emplace(vocabulary_[i].first, vocabulary_[i].second);
    }
    for (int b = 0; b < 256; ++b) {
        byte_token_[b] = lookup(std::string(1, char(b)));
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        fallback_token_[b] = id_of(name);
    }
    if (const Json* unk = model.find("unk_token"); unk && unk->is_string()) {
        unk_id_ = id_of(unk->string);
        if (unk_id_ < 0) refuse(at, "unk_token '" + unk->string + "' is not in the vocabulary");
    }

    // 2. merges, "a b" or ["a", "b"]; rank = position
    const Json& merges = member(model, "merges", at);
    if (!merges.is_array()) refuse(at, "'merges' must be an array");
    merges_.reserve(merges.array.size());
    std::string left, right;
    for (size_t r = 0; r < merges.array.size(); ++r) {
        const Json& m = merges.array[r];
        if (m.is_string()) {
            const size_t space = m.string.find(' ');
            if (space == std::string::npos || m.string.find(' ', space + 1) != std::string::npos)
                refuse(at, "merge " + std::to_string(r) + " '" + m.string + "' is not two tokens with a space between");
            left = m.string.substr(0, space);
            right = m.string.substr(space + 1);
        } else if (m.is_array() && m.array.size() == 2 && m.array[0].is_string() && m.array[1].is_string()) {
            left = m.array[0].string;
            right = m.array[1].string;
        } else {
            refuse(at, "merge " + std::to_string(r) + " is neither \"a b\" nor [\"a\", \"b\"]");
        }
        const int a = id_of(left), b = id_of(right), merged = id_of(left + right);
        if (a < 0 || b < 0 || merged < 0)
            refuse(at, "merge " + std::to_string(r) + " ('" + left + "', '" + right + "') uses or makes a token " +
                           "that is not in the vocabulary");
        merges_.add(a, b, merged, int(r));
    }
    cache_.reserve(kCacheWords);
}

int BpeModel::lookup(std::string_view key) const {
    auto it = by_key_.find(key);
    return it == by_key_.end() ? -1 : it->second;
}

int BpeModel::id_of(std::string_view token) const {
    auto it = by_text_.find(token);
    return it == by_text_.end() ? -1 : it->second;
}

// The word's first symbols, as Rust's merge_word makes them: one per byte (byte-level) or per character; a character
// missing from the vocabulary becomes its bytes' "<0xAB>" tokens (byte_fallback) or unk (fused into one if fuse_unk).
void BpeModel::merge_word(std::string_view word, std::vector<int>& symbols) const {
    if (byte_level_) {
        for (unsigned char c : word) {
            if (byte_token_[c] < 0) throw Error("tokenizer.json: model: the byte " + std::to_string(c) + " has no token");
            symbols.push_back(byte_token_[c]);
        }
        return;
    }
    bool last_unk = false;
    for (size_t i = 0, len = 0; i < word.size(); i += len) {
        len = utf8_char_length(word, i);
        if (len == 0) len = 1;
        const int id = lookup(word.substr(i, len));
        if (id >= 0) {
            symbols.push_back(id);
            last_unk = false;
            continue;
        }
        bool fallback = byte_fallback_;
        for (size_t k = 0; k < len && fallback; ++k) fallback = fallback_token_[(unsigned char)word[i + k]] >= 0;
        if (fallback) {
            for (size_t k = 0; k < len; ++k) symbols.push_back(fallback_token_[(unsigned char)word[i + k]]);
            last_unk = false;
            continue;
        }
        if (unk_id_ < 0)
            throw Error("tokenizer.json: the character '" + std::string(word.substr(i, len)) +
                        "' is not in the vocabulary, and the model has no unk_token");
        if (!(fuse_unk_ && last_unk)) symbols.push_back(unk_id_);
        last_unk = true;
    }
}

void BpeModel::encode(std::string_view word, std::vector<int>& ids) const {
    if (word.empty()) return;
    if (ignore_merges_) {
        if (int id = lookup(word); id >= 0) {
            ids.push_back(id);
            return;
        }
    }
    const bool cacheable = word.size() < kCacheMaxWord;
    std::string key;
    if (cacheable) {
        key.assign(word);
        auto it = cache_.find(key);
        if (it != cache_.end()) {
            ids.insert(ids.end(), it->second.begin(), it->second.end());
            return;
        }
    }
    symbols_.clear();
    merge_word(word, symbols_);
    bpe_merge(merges_, symbols_);
    ids.insert(ids.end(), symbols_.begin(), symbols_.end());
    if (!cacheable) return;
    if (cache_.size() >= kCacheWords) cache_.clear();  // keeps memory bounded on endless novel text
    cache_.emplace(std::move(key), symbols_);
}

}  // namespace arcscope::hf
