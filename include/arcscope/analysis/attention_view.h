// attention_view.h: the (T, T) attention matrix a view draws, from an analysis's kept queries and keys
// (kept_queries.h): one layer's head, or a mean or max over the layers, the heads, or both, computed here in one
// call rather than a head at a time by the caller. Layers are aggregated first, then heads, but for the mean (or max)
// over every head of every layer, which the pass kept as it went by (layer after layer, each layer's heads in
// order): the order web/lib/shared/attention-math.js's viewMatrix takes them in, with the same float32 operations,
// so a view of kept queries is the same bits as that function over the captured heads.
#pragma once
#include "arcscope/model/decoder.h"
#include "arcscope/model/kept_queries.h"

namespace arcscope {

// A view's layers or heads: one of them (index), or the mean or the max over all of them.
struct ViewChoice {
    enum class Kind { One, Mean, Max } kind = Kind::One;
    int index = 0;
};

// -> out (T, T), T = kept.length(): query rows, zeros above the diagonal. kept must come from a model of
// decoder's shape.
void attention_view(const Decoder& decoder, const KeptQueries& kept, ViewChoice layer, ViewChoice head, float* out);

// One head of one layer max-pooled to out (size, size), as Decoder::attention_thumbnail.
void attention_view_thumbnail(const Decoder& decoder, const KeptQueries& kept, int layer, int head, int size,
                              float* out);

}  // namespace arcscope
