// test_kept_queries.cpp: an analysis's kept queries and keys (kept_queries.h) and the views computed from them
// (attention_view.h), in every architecture: the pass fills them in place, an edit resumes from them (growing past
// their room) with a fresh pass's rows, and each head's pattern, the means and maxes over layers and heads, and the
// thumbnails are the bits of the pass's own capture aggregated as the page's viewMatrix does it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "arcscope/analysis/attention_view.h"
#include "arcscope/core/error.h"
#include "arcscope/model/kept_queries.h"
#include "decoder_fixture.h"

using namespace arcscope;
using namespace arcscope::testing;

namespace {

using Kind = ViewChoice::Kind;

// A model of arch with room for texts past KeptQueries::kRoom.
Loaded load_long(Arch arch) {
    ModelConfig c = tiny_arch_config(arch);
    c.n_ctx = 300;
    return Loaded(random_model_bytes(c, DType::Q8, 3));
}

// Keeps the queries and keys of a pass over ids from `first` (the KV cache holding the positions before it).
void analyse(Decoder& g, KeptQueries& kept, const std::vector<int>& ids, int first) {
    kept.begin(first, int(ids.size()));
    g.forward_from(first, ids.data(), int(ids.size()), ForwardOptions().with_hooks(&kept));
    kept.finish();
}

// viewMatrix (web/lib/shared/attention-math.js) over a captured (L, H, T, T) tensor, as the page computes it: layers
// first, then heads, but for the same aggregate over both, which takes every head of every layer at once.
std::vector<float> view_of_capture(const std::vector<float>& att, int L, int H, int T, ViewChoice layer,
                                   ViewChoice head) {
    const size_t n = size_t(T) * T;
    const auto matrix = [&](int l, int h) { return att.begin() + ptrdiff_t((size_t(l) * H + h) * n); };
    const auto aggregate = [&](int count, Kind how, auto item) {
        std::vector<float> out(n, 0.0f);
        for (int i = 0; i < count; ++i) {
            const std::vector<float> m = item(i);
            for (size_t j = 0; j < n; ++j) out[j] = how == Kind::Max ? (m[j] > out[j] ? m[j] : out[j]) : out[j] + m[j];
        }
        if (how == Kind::Mean)
            for (float& x : out) x /= float(count);
        return out;
    };
    const auto per_head = [&](int h) {
        if (layer.kind == Kind::One)
            return std::vector<float>(matrix(layer.index, h), matrix(layer.index, h) + ptrdiff_t(n));
        return aggregate(L, layer.kind,
                         [&](int l) { return std::vector<float>(matrix(l, h), matrix(l, h) + ptrdiff_t(n)); });
    };
    if (head.kind == Kind::One) return per_head(head.index);
    if (layer.kind == head.kind)  // every head of every layer at once, layer by layer
        return aggregate(L * H, head.kind, [&](int k) {
            return std::vector<float>(matrix(k / H, k % H), matrix(k / H, k % H) + ptrdiff_t(n));
        });
    return aggregate(H, head.kind, per_head);
}

class KeptQueriesOf : public ::testing::TestWithParam<Arch> {};

TEST_P(KeptQueriesOf, AnEditResumedInPlaceKeepsAFreshPassesQueriesAndKeys) {
    Loaded m = load_long(GetParam());
    Decoder& g = *m.model;
    const ModelConfig& c = g.config();
    const std::vector<int> text = some_ids(250, c.n_vocab, 4);
    KeptQueries kept(c);
    analyse(g, kept, std::vector<int>(text.begin(), text.begin() + 100), 0);
    const size_t R = KeptQueries::kRoom;  // rows of queries and keys, and the triangles of the sum and max
    EXPECT_EQ(kept.bytes(), (R * c.n_layer * (c.q_width() + c.kv_width()) + R * (R + 1)) * sizeof(float));
    const float* room = kept.queries(0);
    analyse(g, kept, std::vector<int>(text.begin(), text.begin() + 120), 100);  // typed at the end, within its room
    EXPECT_EQ(kept.queries(0), room);
    analyse(g, kept, text, 120);  // past its room: grown, the kept rows copied
    std::vector<int> edited = text;
    edited[60] = (edited[60] + 1) % c.n_vocab;
    analyse(g, kept, edited, 60);  // a token changed in the middle
    ASSERT_EQ(kept.length(), 250);
    std::vector<HookName> names;
    for (int l = 0; l < c.n_layer; ++l) {
        names.push_back(KeptQueries::queries_hook(c, l));
        names.push_back(KeptQueries::keys_hook(c, l));
    }
    ActivationCache fresh(c, names, 250);
    g.forward(edited.data(), 250, ForwardOptions().with_hooks(&fresh));
    for (int l = 0; l < c.n_layer; ++l) {
        const std::vector<float>&q = fresh.entries()[size_t(2 * l)].data, &k = fresh.entries()[size_t(2 * l + 1)].data;
        EXPECT_TRUE(std::equal(q.begin(), q.end(), kept.queries(l))) << "layer " << l << " queries";
        EXPECT_TRUE(std::equal(k.begin(), k.end(), kept.keys(l))) << "layer " << l << " keys";
    }
    // The sum and max over every head: those of a fresh analysis, the edited rows started again from nothing.
    KeptQueries again(c);
    analyse(g, again, edited, 0);
    for (int i = 0; i < 250; ++i) {
        EXPECT_TRUE(std::equal(again.sum_row(i), again.sum_row(i) + i + 1, kept.sum_row(i))) << "row " << i;
        EXPECT_TRUE(std::equal(again.max_row(i), again.max_row(i) + i + 1, kept.max_row(i))) << "row " << i;
    }
    EXPECT_THROW(kept.begin(251, 260), Error);  // past what it holds
}

TEST_P(KeptQueriesOf, ViewsAreTheCapturedAttentionAggregatedAsThePageDoes) {
    Loaded m = load_long(GetParam());
    Decoder& g = *m.model;
    const ModelConfig& c = g.config();
    const int T = 140, L = c.n_layer, H = c.n_head;
    const std::vector<int> ids = some_ids(T, c.n_vocab, 5);
    g.forward(ids.data(), T, ForwardOptions().with_attention());
    const std::vector<float> att(g.attention(), g.attention() + g.attention_values());
    KeptQueries kept(c);
    analyse(g, kept, std::vector<int>(ids.begin(), ids.begin() + 90), 0);
    analyse(g, kept, ids, 90);
    std::vector<float> out(size_t(T) * T);
    const ViewChoice one_layer{Kind::One, L - 1}, one_head{Kind::One, H - 1};
    for (ViewChoice layer : {one_layer, ViewChoice{Kind::Mean}, ViewChoice{Kind::Max}})
        for (ViewChoice head : {one_head, ViewChoice{Kind::Mean}, ViewChoice{Kind::Max}}) {
            attention_view(g, kept, layer, head, out.data());
            EXPECT_EQ(out, view_of_capture(att, L, H, T, layer, head))
                << "layer kind " << int(layer.kind) << ", head kind " << int(head.kind);
        }
    std::vector<float> thumb(16 * 16), want(16 * 16);
    attention_view_thumbnail(g, kept, 1, 2, 16, thumb.data());
    g.attention_thumbnail(kept.queries(1), kept.keys(1), T, 2, 16, want.data());
    EXPECT_EQ(thumb, want);
    EXPECT_THROW(attention_view(g, kept, {Kind::One, L}, one_head, out.data()), Error);
    EXPECT_THROW(attention_view(g, kept, one_layer, {Kind::One, -1}, out.data()), Error);
    ModelConfig other = c;
    other.n_layer += 1;
    EXPECT_THROW(attention_view(g, KeptQueries(other), one_layer, one_head, out.data()), Error);
}

std::string arch_case(const ::testing::TestParamInfo<Arch>& info) {
    return arch_name(info.param);
}

INSTANTIATE_TEST_SUITE_P(EveryArchitecture, KeptQueriesOf, ::testing::ValuesIn(kEveryArch), arch_case);

}  // namespace
