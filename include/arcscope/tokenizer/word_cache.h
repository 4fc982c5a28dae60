// word_cache.h: a word's bytes -> its BPE ids, for both tokenizers (GPT-2's and tokenizer.json's). Text repeats its
// words, so most words are merged once. Open addressing; cleared when half full, so memory stays bounded (about
// 2 MB of slots plus the words and ids) on endless novel text. Not thread-safe.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace arcscope {

class WordCache {
public:
    static constexpr size_t kMaxWord = 128;  // bytes; longer words are rare: not worth the memory

    WordCache() : slots_(kSlots) {}
    // Appends the word's ids and returns true if it is cached. Remembers where the word would go for insert().
    // Inline: it runs once per word of every text.
    bool lookup(std::string_view word, std::vector<int>& ids) const {
        uint32_t h = 2166136261u;  // FNV-1a
        for (unsigned char c : word) h = (h ^ c) * 16777619u;
        size_t slot = h & (kSlots - 1);
        for (;; slot = (slot + 1) & (kSlots - 1)) {
            const Slot& c = slots_[slot];
            if (c.ids_count == 0) break;
            if (c.hash == h && c.key_length == word.size() &&
                std::memcmp(keys_.data() + c.key_offset, word.data(), word.size()) == 0) {
                ids.insert(ids.end(), ids_.begin() + c.ids_offset, ids_.begin() + c.ids_offset + c.ids_count);
                return true;
            }
        }
        last_hash_ = h;
        last_slot_ = slot;
        return false;
    }
    // After a lookup() of the same word that failed: keeps its ids (count <= kMaxWord).
    void insert(std::string_view word, const int* ids, size_t count);

private:
    static constexpr size_t kSlots = size_t(1) << 17;  // power of two; cleared when half full
    struct Slot {                                      // 16 bytes; ids_count 0 marks an empty slot
        uint32_t hash = 0, key_offset = 0, ids_offset = 0;
        uint16_t key_length = 0, ids_count = 0;
    };
    std::vector<Slot> slots_;
    std::string keys_;
    std::vector<int> ids_;
    size_t used_ = 0;
    mutable uint32_t last_hash_ = 0;
    mutable size_t last_slot_ = 0;
};

}  // namespace arcscope
