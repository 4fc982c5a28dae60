// kv_cache.cpp: the KV cache's storage, growth and f16 conversion (kv_cache.h).
#include "arcscope/model/kv_cache.h"

#include <algorithm>

#include "arcscope/core/error.h"
#include "arcscope/core/half.h"
#include "arcscope/core/sizes.h"

namespace arcscope {

template <class T>
void KVCache::Planes<T>::grow(int C, int old_ld, int ld, int capacity, int keep) {
    for (auto& kl : k) {  // transposed: each of the C rows moves from old_ld to ld apart
        std::vector<T> grown(size_t(C) * ld, T(0));
        for (int r = 0; r < C && keep > 0; ++r)
            std::copy(kl.begin() + size_t(r) * old_ld, kl.begin() + size_t(r) * old_ld + keep,
                      grown.begin() + size_t(r) * ld);
        kl.swap(grown);
    }
    for (auto& vl : v) vl.resize(size_t(capacity) * C);
}

template <class T>
void KVCache::Planes<T>::release() {
    for (auto* layers : {&k, &v})
        for (auto& l : *layers) std::vector<T>().swap(l);
}

template <class T>
size_t KVCache::Planes<T>::bytes() const {
    size_t n = 0;
    for (const auto* layers : {&k, &v})
        for (const auto& l : *layers) n += l.size() * sizeof(T);
    return n;
}

const char* kv_type_name(KVType t) {
    return t == KVType::F16 ? "f16" : "f32";
}

KVType parse_kv_type(const std::string& s) {
    if (s == "f32") return KVType::F32;
    if (s == "f16") return KVType::F16;
    throw Error("the KV cache is 'f32' or 'f16', not '" + s + "'");
}

void KVCache::configure(int n_layer, int width, int n_heads, int n_ctx, KVType type) {
    const bool half = type == KVType::F16;
    layers_ = n_layer;
    C_ = width;
    hd_ = width / n_heads;
    n_ctx_ = n_ctx;
    half_ = half;
    capacity_ = ld_ = 0;
    f32_.k.assign(half ? 0 : n_layer, {});
    f32_.v.assign(half ? 0 : n_layer, {});
    f16_.k.assign(half ? n_layer : 0, {});
    f16_.v.assign(half ? n_layer : 0, {});
}

void KVCache::reserve(int positions, int keep) {
    if (positions <= capacity_) return;
    const int cap = std::min(n_ctx_, std::max({positions, 2 * capacity_, 16}));
    // The padding also keeps the rows of a power-of-two capacity off the same cache sets.
    const int ld = cap + kPad;
    // Checked as a whole before any layer grows: K and V of every layer.
    buffer_elements("KV cache (2 x n_layer x positions x key/value width)",
                    {2, uint64_t(layers_), uint64_t(ld), uint64_t(C_)}, half_ ? sizeof(uint16_t) : sizeof(float));
    if (keep == 0) {  // nothing to carry over: free the old storage first, so the new can take its place
        f32_.release();
        f16_.release();
        ld_ = 0;
    }
    if (half_) f16_.grow(C_, ld_, ld, cap, keep);
    else f32_.grow(C_, ld_, ld, cap, keep);
    capacity_ = cap;
    ld_ = ld;
}

void KVCache::store(int l, int p, const float* k, const float* v) {
    if (half_) {
        uint16_t* kt = f16_.k[l].data() + p;
        uint16_t* vp = f16_.v[l].data() + size_t(p) * C_;
        for (int c = 0; c < C_; ++c) {
            kt[size_t(c) * ld_] = f16_from_float(k[c]);
            vp[c] = f16_from_float(v[c]);
        }
    } else {
        float* kt = f32_.k[l].data() + p;
        for (int c = 0; c < C_; ++c) kt[size_t(c) * ld_] = k[c];
        std::copy(v, v + C_, f32_.v[l].data() + size_t(p) * C_);
    }
}

size_t KVCache::bytes() const {
    return f32_.bytes() + f16_.bytes();
}

float KVCache::stored(float x) const {
    return half_ ? f16_to_float(f16_from_float(x)) : x;
}

KVCache::Head KVCache::head(int l, int h, int n) {
    if (!half_) return {f32_.k[l].data() + size_t(h) * hd_ * ld_, ld_, f32_.v[l].data() + size_t(h) * hd_, C_};
    // f16: this head's slice converted once into its own part of the scratch, then read by every query row of the
    // chunk. The scratch holds every head at this n, so the heads of one layer can be read side by side.
    const int ld = (n + kPad - 1) / kPad * kPad;
    if (kt_scratch_.size() < size_t(C_) * ld) kt_scratch_.resize(size_t(C_) * ld);
    if (v_scratch_.size() < size_t(n) * C_) v_scratch_.resize(size_t(n) * C_);
    float* kt = kt_scratch_.data() + size_t(h) * hd_ * ld;
    float* v = v_scratch_.data() + size_t(h) * n * hd_;
    for (int d = 0; d < hd_; ++d) {
        float* row = kt + size_t(d) * ld;
        f16_to_float_n(f16_.k[l].data() + size_t(h * hd_ + d) * ld_, row, n);
        std::fill(row + n, row + ld, 0.0f);
    }
    for (int j = 0; j < n; ++j) f16_to_float_n(f16_.v[l].data() + size_t(j) * C_ + h * hd_, v + size_t(j) * hd_, hd_);
    return {kt, ld, v, hd_};
}

}  // namespace arcscope
