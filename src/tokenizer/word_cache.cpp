// word_cache.cpp: keeping a word (lookup, in the header, is FNV-1a over its bytes and linear probing).
#include "arcscope/tokenizer/word_cache.h"

#include <algorithm>

namespace arcscope {
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
