// bpe.h: byte-pair merging. A word starts as one token per byte; the adjacent pair with the lowest merge rank is
// merged (all its non-overlapping occurrences, left to right) until no pair can merge. In GPT-2 the merge of rank r
// makes token 256 + r, so "lowest rank" is "smallest resulting id".
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace arcscope {

// (left id, right id) -> merged id. Open addressing over packed 32-bit keys; ids must be < 65535.
class MergeTable {
public:
    static constexpr int kNone = -1;

    MergeTable() { reserve(0); }
    void reserve(size_t merges);
    void add(int left, int right, int merged);
    int find(int left, int right) const {  // merged id, or kNone
        uint32_t key = pack(left, right);
        for (size_t i = slot(key);; i = (i + 1) & mask_) {
            if (keys_[i] == key) return values_[i];
            if (keys_[i] == kEmpty) return kNone;
        }
    }
    size_t size() const { return count_; }

private:
    static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
    static uint32_t pack(int left, int right) { return (uint32_t(left) << 16) | uint32_t(right); }
    size_t slot(uint32_t key) const { return (key * 0x9E3779B1u) >> shift_; }

    std::vector<uint32_t> keys_;
    std::vector<int32_t> values_;
    size_t mask_ = 0, count_ = 0;
    int shift_ = 32;
};

// Merges symbols (token ids, initially one per byte) in place. Picks the algorithm by length; both give the same.
void bpe_merge(const MergeTable& merges, std::vector<int>& symbols);

// Rescans all pairs after each merge: O(n^2), fastest for the short words that make up normal text.
void bpe_merge_scan(const MergeTable& merges, std::vector<int>& symbols);

// Priority queue over pairs and a linked list of symbols: O(n log n), for long words (a page of CJK has no spaces).
void bpe_merge_heap(const MergeTable& merges, std::vector<int>& symbols);

}  // namespace arcscope
