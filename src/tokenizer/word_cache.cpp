// word_cache.cpp: FNV-1a over the word's bytes, linear probing.
#include "arcscope/tokenizer/word_cache.h"

#include <algorithm>
#include <cstring>

namespace arcscope {
namespace {

constexpr size_t kSlots = size_t(1) << 17;  // power of two; cleared when half full

uint32_t fnv1a(std::string_view s) {
    uint32_t h = 2166136261u;
    for (unsigned char c : s) h = (h ^ c) * 16777619u;
    return h;
}

}  // namespace

WordCache::WordCache() : slots_(kSlots) {}

bool WordCache::lookup(std::string_view word, std::vector<int>& ids) const {
    const uint32_t h = fnv1a(word);
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

void WordCache::insert(std::string_view word, const int* ids, size_t count) {
    if (word.size() > kMaxWord || count == 0 || count > kMaxWord) return;
    size_t slot = last_slot_;
    const uint32_t h = last_hash_;
    if (used_ * 2 >= kSlots) {  // full: start over
        std::fill(slots_.begin(), slots_.end(), Slot{});
        keys_.clear();
        ids_.clear();
        used_ = 0;
        slot = h & (kSlots - 1);
    }
    slots_[slot] = {h, uint32_t(keys_.size()), uint32_t(ids_.size()), uint16_t(word.size()), uint16_t(count)};
    keys_.append(word);
    ids_.insert(ids_.end(), ids, ids + count);
    ++used_;
}

}  // namespace arcscope
