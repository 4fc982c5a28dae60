// kv_cache.h: every layer's keys and values of the positions seen so far, for attention to read back.
// Stored as f32 (the default), or as f16: half the memory (38 MB instead of 75 MB for GPT-2 small at 1,024
// positions) for a rounding of 2^-11 relative. That rounding is far below an int8 activation's step, yet it moves
// which activations round up or down after attention, so a q8 model's results move by about as much as q8 already
// costs (on the shipped 4-layer model, the median logit-difference error against PyTorch went from 0.018 to 0.041
// over 40 prompts): an opt-in for long texts on small devices. K is kept transposed, (C, ld), so a query's scores
// read keys contiguously; V is (capacity, C).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace arcscope {

enum class KVType { F32, F16 };
const char* kv_type_name(KVType t);          // "f32", "f16"
KVType parse_kv_type(const std::string& s);  // throws Error naming the choices

class KVCache {
public:
    static constexpr int kPad = 16;  // K's rows run this many floats past the capacity: score loops read in 16s

    // width: a position's keys across the n_heads key/value heads (n_embd but in grouped-query attention). Empties
    // the cache.
    void configure(int n_layer, int width, int n_heads, int n_ctx, KVType type);
    KVType type() const { return half_ ? KVType::F16 : KVType::F32; }
    // Capacity for `positions`, keeping the first `keep` positions' contents. Grows geometrically.
    void reserve(int positions, int keep);
    int capacity() const { return capacity_; }
    size_t bytes() const;  // what the stored keys and values take
    // Position p's key and value (width floats each) of layer l.
    void store(int l, int p, const float* k, const float* v);
    // What storing does to a value: identity for f32, the f16 rounding otherwise.
    float stored(float x) const;

    // Head h of layer l over positions [0, n) as f32: keys transposed kt (head_dim, ld) with ld >= n rounded up to
    // kPad, values v (n, head_dim) with rows ldv apart. Pointers into the cache (f32) or into scratch (f16: each head
    // its own part, valid until a call with a larger n or for the same head again), so every head of a layer can be
    // read at once.
    struct Head {
        const float* kt;
        int ld;
        const float* v;
        int ldv;
    };
    Head head(int l, int h, int n);

private:
    // Every layer's K (transposed, C rows of ld) and V (capacity rows of C), in one element type.
    template <class T>
    struct Planes {
        std::vector<std::vector<T>> k, v;
        void grow(int C, int old_ld, int ld, int capacity, int keep);  // keeps each row's first `keep` positions
        void release();                                                // frees the storage, keeps the layers
        size_t bytes() const;
    };

    int layers_ = 0, C_ = 0, hd_ = 0, n_ctx_ = 0;
    bool half_ = false;
    int capacity_ = 0, ld_ = 0;
    Planes<float> f32_;
    Planes<uint16_t> f16_;
    std::vector<float> kt_scratch_, v_scratch_;
};

}  // namespace arcscope
