// bpe.cpp: the two merge loops. Merging a pair (a, b) into X only creates pairs with X, and X's merges have higher
// ranks than (a, b) (a token is made before it is used), so processing candidates in (rank, position) order merges
// every occurrence of the current best pair left to right before anything newer: the heap loop gives exactly what
// the rescanning loop gives.
#include "arcscope/tokenizer/bpe.h"

#include <algorithm>
#include <climits>
#include <queue>

#include "arcscope/core/error.h"

namespace arcscope {

void MergeTable::reserve(size_t merges) {
    size_t capacity = 16;
    shift_ = 60;
    while (capacity < merges * 2) {
        capacity *= 2;
        --shift_;
    }
    keys_.assign(capacity, kEmpty);
    values_.assign(capacity, Merge{});
    mask_ = capacity - 1;
    count_ = 0;
}

void MergeTable::add(int left, int right, int merged, int rank) {
    require(left >= 0 && right >= 0 && merged >= 0 && rank >= 0, "merge ids and ranks must be >= 0");
    require(count_ * 2 < keys_.size(), "MergeTable: reserve() before add()");
    uint64_t key = pack(left, right);
    size_t i = slot(key);
    while (keys_[i] != kEmpty && keys_[i] != key) i = (i + 1) & mask_;
    if (keys_[i] == kEmpty) ++count_;
    keys_[i] = key;
    values_[i] = {rank, merged};
}

void bpe_merge(const MergeTable& merges, std::vector<int>& symbols) {
    constexpr size_t kLongWord = 64;  // bytes; nearly all words are shorter and take the simpler scan
    if (symbols.size() > kLongWord) bpe_merge_heap(merges, symbols);
    else bpe_merge_scan(merges, symbols);
}

void bpe_merge_scan(const MergeTable& merges, std::vector<int>& symbols) {
    int* s = symbols.data();
    size_t n = symbols.size();
    while (n > 1) {
        // 1. the best pair: lowest rank, first occurrence
        int best_rank = INT_MAX, best = 0;
        size_t at = 0;
        for (size_t i = 0; i + 1 < n; ++i) {
            MergeTable::Merge m = merges.find(s[i], s[i + 1]);
            if (m.rank != MergeTable::kNone && m.rank < best_rank) {
                best_rank = m.rank;
                best = m.merged;
                at = i;
            }
        }
        if (best_rank == INT_MAX) break;
        // 2. merge every occurrence of it, left to right, compacting in place
        const int a = s[at], b = s[at + 1];
        size_t out = at;
        for (size_t i = at; i < n;) {
            if (i + 1 < n && s[i] == a && s[i + 1] == b) {
                s[out++] = best;
                i += 2;
            } else {
                s[out++] = s[i++];
            }
        }
        n = out;
    }
    symbols.resize(n);
}

void bpe_merge_heap(const MergeTable& merges, std::vector<int>& symbols) {
    const int n = int(symbols.size());
    if (n < 2) return;
    std::vector<int> id(symbols), next(n), prev(n);  // id -1: merged into its left neighbour
    for (int i = 0; i < n; ++i) {
        next[i] = i + 1 < n ? i + 1 : -1;
        prev[i] = i - 1;
    }
    struct Candidate {
        int rank, left;  // the pair starting at symbol `left` merges with this rank
        bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
    auto push = [&](int left) {
        if (left < 0 || next[left] < 0) return;
        MergeTable::Merge m = merges.find(id[left], id[next[left]]);
        if (m.rank != MergeTable::kNone) queue.push({m.rank, left});
    };
    for (int i = 0; i + 1 < n; ++i) push(i);

    while (!queue.empty()) {
        Candidate c = queue.top();
        queue.pop();
        int r = next[c.left];
        // stale unless the pair there still merges with c.rank (one rank, one pair: so it is the same pair)
        if (id[c.left] < 0 || r < 0) continue;
        const MergeTable::Merge m = merges.find(id[c.left], id[r]);
        if (m.rank != c.rank) continue;
        id[c.left] = m.merged;
        id[r] = -1;
        next[c.left] = next[r];
        if (next[r] >= 0) prev[next[r]] = c.left;
        push(prev[c.left]);
        push(c.left);
    }
    symbols.clear();
    for (int i = 0; i >= 0; i = next[i]) symbols.push_back(id[i]);
}

}  // namespace arcscope
