// bpe.h: byte-pair merging. A word starts as one token per byte (or per character); the adjacent pair with the
// lowest merge rank is merged (all its non-overlapping occurrences, left to right) until no pair can merge. In GPT-2
// the merge of rank r makes token 256 + r, so "lowest rank" is "smallest resulting id"; in a tokenizer.json the rank
// is the merge's line in "merges" and the ids are the vocabulary's.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace arcscope {

// (left id, right id) -> (rank, merged id). Open addressing over packed 64-bit keys; ids must be in [0, 2^31).
class MergeTable {
public:
    static constexpr int kNone = -1;
    struct Merge {
        int rank = kNone;  // lower merges first; kNone: the pair does not merge
        int merged = kNone;
    };

    MergeTable() { reserve(0); }
    void reserve(size_t merges);
    void add(int left, int right, int merged) { add(left, right, merged, merged); }  // rank = merged id (GPT-2)
    void add(int left, int right, int merged, int rank);
    Merge find(int left, int right) const {
        uint64_t key = pack(left, right);
        for (size_t i = slot(key);; i = (i + 1) & mask_) {
            if (keys_[i] == key) return values_[i];
            if (keys_[i] == kEmpty) return {};
        }
    }
    size_t size() const { return count_; }

private:
    static constexpr uint64_t kEmpty = ~uint64_t(0);
    static uint64_t pack(int left, int right) { return (uint64_t(uint32_t(left)) << 32) | uint32_t(right); }
    size_t slot(uint64_t key) const { return size_t((key * 0x9E3779B97F4A7C15ull) >> shift_); }

    std::vector<uint64_t> keys_;
    std::vector<Merge> values_;
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
