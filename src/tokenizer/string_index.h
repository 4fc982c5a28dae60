// string_index.h: byte strings -> ids, for vocabularies of a few hundred thousand tokens looked up once per word:
// open addressing over (hash, id) pairs, the strings kept by the caller (views must outlive the index).
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace arcscope {

inline uint64_t hash_bytes64(std::string_view s) {  // 8 bytes at a time, multiply-xorshift mixing
    uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        uint64_t v;
        std::memcpy(&v, s.data() + i, 8);
        h = (h ^ v) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    uint64_t tail = 0;
    if (i < s.size()) std::memcpy(&tail, s.data() + i, s.size() - i);
    h = (h ^ tail) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

class StringIndex {
public:
    // Adds `key` (kept by reference) -> id; a key already there keeps its first id. Call reserve() first.
    void reserve(size_t count) {
        size_t capacity = 16;
        while (capacity < count * 2) capacity *= 2;
        slots_.assign(capacity, Slot{});
        keys_.clear();
        keys_.reserve(count);
    }
    void add(std::string_view key, int id) {
        const uint64_t h = hash_bytes64(key);
        size_t i = h & (slots_.size() - 1);
        for (; slots_[i].entry >= 0; i = (i + 1) & (slots_.size() - 1))
            if (slots_[i].hash == uint32_t(h) && keys_[slots_[i].entry].first == key) return;
        slots_[i] = {uint32_t(h), int32_t(keys_.size())};
        keys_.push_back({key, id});
    }
    int find(std::string_view key) const {  // the id, or -1
        const uint64_t h = hash_bytes64(key);
        for (size_t i = h & (slots_.size() - 1); slots_[i].entry >= 0; i = (i + 1) & (slots_.size() - 1))
            if (slots_[i].hash == uint32_t(h) && keys_[slots_[i].entry].first == key)
                return keys_[slots_[i].entry].second;
        return -1;
    }

private:
    struct Slot {
        uint32_t hash = 0;
        int32_t entry = -1;  // into keys_
    };
    std::vector<Slot> slots_ = std::vector<Slot>(16);
    std::vector<std::pair<std::string_view, int>> keys_;
};

}  // namespace arcscope
