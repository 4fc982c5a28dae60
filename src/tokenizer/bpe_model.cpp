// bpe_model.cpp: loading the vocabulary and merges, and Hugging Face's BPE word encoding (Rust's merge_word, then
// the merges lowest rank first, as bpe_merge does).
#include "bpe_model.h"

#include <cstdio>

#include "arcscope/core/utf8.h"
#include "byte_level.h"
#include "hf_json.h"

namespace arcscope::hf {
namespace {

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
        by_key_.add(keys_[i], vocabulary_[i].second);  // the first entry wins if two read the same
        by_text_.add(vocabulary_[i].first, vocabulary_[i].second);
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

    // 2. merges, "a b" or ["a", "b"]; rank = position. Beside each, the pair of first symbols it joins across.
    const Json& merges = member(model, "merges", at);
    if (!merges.is_array()) refuse(at, "'merges' must be an array");
    merges_.reserve(merges.array.size());
    crossable_.reserve(merges.array.size());
    can_cut_ = true;
    std::string left, right, key;
    std::vector<int> first;
    std::vector<uint32_t> widths;
    auto edge_symbol = [&](const std::string& token, bool last) {  // the first symbol at one end of a token
        key.clear();
        if (!byte_level_ || !byte_level_decode(token, key)) key = token;
        first.clear();
        try {
            initial_symbols(key, first, widths);
        } catch (const Error&) {  // a token that could never be made from text: cutting words is not safe
            can_cut_ = false;
        }
        return first.empty() ? -1 : last ? first.back() : first.front();
    };
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
        const int x = edge_symbol(left, true), y = edge_symbol(right, false);
        if (x >= 0 && y >= 0) crossable_.add(x, y, 0, 0);
    }
}

int BpeModel::lookup(std::string_view key) const {
    return by_key_.find(key);
}

int BpeModel::id_of(std::string_view token) const {
    return by_text_.find(token);
}

// The word's first symbols, as Rust's merge_word makes them: one per byte (byte-level) or per character; a character
// missing from the vocabulary becomes its bytes' "<0xAB>" tokens (byte_fallback) or unk (fused into one if fuse_unk).
void BpeModel::initial_symbols(std::string_view word, std::vector<int>& symbols, std::vector<uint32_t>& widths) const {
    widths.clear();
    if (byte_level_) {
        for (unsigned char c : word) {
            if (byte_token_[c] < 0)
                throw Error("tokenizer.json: model: the byte " + std::to_string(c) + " has no token");
            symbols.push_back(byte_token_[c]);
        }
        widths.assign(word.size(), 1);
        return;
    }
    bool last_unk = false;
    for (size_t i = 0, len = 0; i < word.size(); i += len) {
        const unsigned char c = static_cast<unsigned char>(word[i]);
        len = c < 0x80 ? 1 : utf8_char_length(word, i);
        if (len == 0) len = 1;
        const int id = c < 0x80 ? byte_token_[c] : lookup(word.substr(i, len));  // ASCII from the table
        if (id >= 0) {
            symbols.push_back(id);
            widths.push_back(uint32_t(len));
            last_unk = false;
            continue;
        }
        bool fallback = byte_fallback_;
        for (size_t k = 0; k < len && fallback; ++k) fallback = fallback_token_[(unsigned char)word[i + k]] >= 0;
        if (fallback) {
            for (size_t k = 0; k < len; ++k) {
                symbols.push_back(fallback_token_[(unsigned char)word[i + k]]);
                widths.push_back(1);
            }
            last_unk = false;
            continue;
        }
        if (unk_id_ < 0)
            throw Error("tokenizer.json: the character '" + std::string(word.substr(i, len)) +
                        "' is not in the vocabulary, and the model has no unk_token");
        if (fuse_unk_ && last_unk) {
            widths.back() += uint32_t(len);
        } else {
            symbols.push_back(unk_id_);
            widths.push_back(uint32_t(len));
        }
        last_unk = true;
    }
}

void BpeModel::merge_cached(std::string_view bytes, std::vector<int> symbols, std::vector<int>& ids) const {
    const bool cacheable = bytes.size() <= WordCache::kMaxWord;
    if (cacheable && cache_.lookup(bytes, ids)) return;
    bpe_merge(merges_, symbols);
    ids.insert(ids.end(), symbols.begin(), symbols.end());
    if (cacheable) cache_.insert(bytes, symbols.data(), symbols.size());
}

void BpeModel::encode(std::string_view word, std::vector<int>& ids) const {
    if (word.empty()) return;
    if (ignore_merges_) {
        if (int id = lookup(word); id >= 0) {
            ids.push_back(id);
            return;
        }
    }
    if (word.size() <= WordCache::kMaxWord && cache_.lookup(word, ids)) return;
    symbols_.clear();
    initial_symbols(word, symbols_, widths_);
    if (word.size() <= WordCache::kMaxWord || !can_cut_) {
        merge_cached(word, symbols_, ids);
        return;
    }
    // a long word: its parts between symbols no merge joins, each merged (and cached) on its own
    size_t first = 0, start = 0, end = 0;
    for (size_t i = 0; i < symbols_.size(); ++i) {
        end += widths_[i];
        const bool cut =
            i + 1 == symbols_.size() || crossable_.find(symbols_[i], symbols_[i + 1]).rank == MergeTable::kNone;
        if (!cut) continue;
        merge_cached(word.substr(start, end - start),
                     std::vector<int>(symbols_.begin() + first, symbols_.begin() + i + 1), ids);
        first = i + 1;
        start = end;
    }
}

int BpeModel::fallback_byte(int id) const {
    if (!byte_fallback_) return -1;
    for (int b = 0; b < 256; ++b)
        if (fallback_token_[b] == id) return b;
    return -1;
}

}  // namespace arcscope::hf
