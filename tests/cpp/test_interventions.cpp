// test_interventions.cpp: the shortcuts of the sweeps give the numbers of the plain passes they replace, bit for
// bit; attribution adds up; bad requests are clear errors. (The values against PyTorch: tests/reference/
// test_interventions_engine.py.)
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "arcscope/analysis/interventions.h"
#include "arcscope/core/error.h"
#include "decoder_fixture.h"

using namespace arcscope;
using namespace arcscope::testing;

namespace {

const std::vector<int> kClean = {5, 17, 42, 99, 7, 250, 3, 64, 120, 8};
const std::vector<int> kCorrupted = {5, 17, 42, 99, 7, 251, 3, 64, 11, 8};  // differs at 5 and 8
constexpr int kAnswer = 10, kWrong = 20;

std::vector<float> cache_of(Decoder& g, const std::vector<int>& ids, HookName hook) {
    ActivationCache cache(g.config(), {hook}, int(ids.size()));
    g.forward(ids.data(), int(ids.size()), ForwardOptions().with_hooks(&cache));
    return cache.entries()[0].data;
}

float metric_with(Decoder& g, const std::vector<int>& ids, std::vector<Intervention> list) {
    run_with_interventions(g, ids, std::move(list), false);
    return logit_difference(g, kAnswer, kWrong);
}

using Case = std::tuple<Arch, DType>;

class Interventions : public ::testing::TestWithParam<Case> {
protected:
    Loaded load(uint64_t seed) const { return load_arch(std::get<0>(GetParam()), std::get<1>(GetParam()), seed); }
};

TEST_P(Interventions, ResumingAtAnyLayerAndPositionGivesTheForwardPassBits) {
    Loaded m = load(3);
    Decoder& g = *m.model;
    const int T = int(kClean.size()), C = g.config().n_embd, V = g.config().n_vocab;
    for (int l = 0; l < g.config().n_layer; ++l) {
        const std::vector<float> resid = cache_of(g, kClean, {HookPoint::ResidPre, l});
        const std::vector<float> expected(g.logits(), g.logits() + V);
        for (int p : {0, 4, T - 1}) {
            g.resume(l, p, resid.data() + size_t(p) * C, T - p);
            EXPECT_EQ(std::vector<float>(g.logits(), g.logits() + V), expected) << "layer " << l << ", from " << p;
        }
    }
}

TEST_P(Interventions, PatchingSweepEqualsAPlainPassPerPatch) {
    Loaded m = load(3);
    Decoder& g = *m.model;
    const ModelConfig& c = g.config();
    const int T = int(kClean.size());
    const Patching p = patching_sweep(g, kClean, kCorrupted, kAnswer, kWrong);
    EXPECT_EQ(p.first_difference, 5);
    const float clean = metric_with(g, kClean, {}), corrupted = metric_with(g, kCorrupted, {});
    EXPECT_EQ(p.clean, clean);
    EXPECT_EQ(p.corrupted, corrupted);
    auto effect = [&](float x) { return (x - corrupted) / (clean - corrupted); };
    for (int l = 0; l < c.n_layer; ++l) {
        const std::vector<float> z = cache_of(g, kClean, {HookPoint::Z, l});
        const std::vector<float> resid = cache_of(g, kClean, {HookPoint::ResidPre, l});
        for (int h = 0; h < c.n_head; ++h) {
            const float x = metric_with(g, kCorrupted, {{{HookPoint::Z, l}, Intervention::Kind::Replace, {h}, {}, z}});
            EXPECT_EQ(p.heads[size_t(l) * c.n_head + h], effect(x)) << "layer " << l << " head " << h;
        }
        for (int pos = 0; pos < T; ++pos) {
            const float x =
                metric_with(g, kCorrupted, {{{HookPoint::ResidPre, l}, Intervention::Kind::Replace, {}, {pos}, resid}});
            EXPECT_EQ(p.resid[size_t(l) * T + pos], effect(x)) << "layer " << l << " position " << pos;
        }
    }
    // The whole residual stream at layer 0 from the clean run is the clean run.
    EXPECT_EQ(metric_with(g, kCorrupted,
                          {{{HookPoint::ResidPre, 0},
                            Intervention::Kind::Replace,
                            {},
                            {},
                            cache_of(g, kClean, {HookPoint::ResidPre, 0})}}),
              clean);
}

TEST_P(Interventions, AblationSweepEqualsAPlainPassPerHead) {
    Loaded m = load(3);
    Decoder& g = *m.model;
    const ModelConfig& c = g.config();
    for (auto kind : {Intervention::Kind::Zero, Intervention::Kind::Mean}) {
        const Ablation a = ablation_sweep(g, kClean, kAnswer, kWrong, kind);
        EXPECT_EQ(a.baseline, metric_with(g, kClean, {}));
        for (int l = 0; l < c.n_layer; ++l)
            for (int h = 0; h < c.n_head; ++h)
                EXPECT_EQ(a.heads[size_t(l) * c.n_head + h],
                          metric_with(g, kClean, {{{HookPoint::Z, l}, kind, {h}, {}, {}}}))
                    << intervention_kind_name(kind) << ", layer " << l << " head " << h;
    }
}

TEST_P(Interventions, SweepsAStepAtATimeGiveTheSameCellsWhateverRunsBetweenSteps) {
    // A worker runs a sweep a step (a batch of variants) at a time so that a cancel gets in; other passes may touch the
    // model meanwhile. 48 tokens differing from position 1: a layer's residual positions take several batches.
    Loaded m = load(3);
    Decoder& g = *m.model;
    std::vector<int> clean(48), corrupted;
    for (int t = 0; t < 48; ++t) clean[size_t(t)] = (t * 37 + 5) % 300;
    corrupted = clean;
    corrupted[1] = 299;
    const Patching whole = patching_sweep(g, clean, corrupted, kAnswer, kWrong);
    const Ablation ablation = ablation_sweep(g, clean, kAnswer, kWrong, Intervention::Kind::Mean);
    PatchingSweep patching(g, clean, corrupted, kAnswer, kWrong);
    AblationSweep ablating(g, clean, kAnswer, kWrong, Intervention::Kind::Mean);
    const std::vector<int> other = {9, 8, 7, 6, 5, 4, 3};
    int steps = 0;
    for (; !patching.done(); ++steps) {
        g.forward(other.data(), int(other.size()));
        patching.next();
    }
    while (!ablating.done()) {
        g.forward(other.data(), int(other.size()));
        ablating.next();
    }
    EXPECT_GT(steps, 2 * g.config().n_layer);  // (4 heads x 47 rows, then 47 positions: 1,316 rows a layer)
    EXPECT_EQ(patching.layers_done(), g.config().n_layer);
    EXPECT_EQ(patching.result().heads, whole.heads);
    EXPECT_EQ(patching.result().resid, whole.resid);
    EXPECT_EQ(ablating.result().heads, ablation.heads);
    EXPECT_THROW(patching.next(), Error);
}

TEST_P(Interventions, ZeroingAHeadZeroesItsZAndNothingElseAtThatPoint) {
    Loaded m = load(3);
    Decoder& g = *m.model;
    const int T = int(kClean.size()), C = g.config().q_width(), hd = g.config().head_dim();
    const std::vector<float> before = cache_of(g, kClean, {HookPoint::Z, 1});
    // The cache sees the edited values: it runs after the intervention at the same point.
    struct Both : Hooks {
        InterventionHooks edit;
        ActivationCache seen;
        Both(const ModelConfig& c, int T)
            : edit(c, {{{HookPoint::Z, 1}, Intervention::Kind::Zero, {2}, {}, {}}}, T),
              seen(c, {{HookPoint::Z, 1}}, T) {}
        bool wants(const HookName& h) const override { return edit.wants(h); }
        void visit(const HookSite& s, float* v) override {
            edit.visit(s, v);
            seen.visit(s, v);
        }
    } both(g.config(), T);
    g.forward(kClean.data(), T, ForwardOptions().with_hooks(&both));
    const std::vector<float>& after = both.seen.entries()[0].data;
    for (int t = 0; t < T; ++t)
        for (int i = 0; i < C; ++i) {
            const bool head2 = i / hd == 2;
            EXPECT_EQ(after[size_t(t) * C + i], head2 ? 0.0f : before[size_t(t) * C + i]);
        }
}

TEST_P(Interventions, AttributionAddsUpToTheLogitAndTheLensEndsAtTheOutput) {
    Loaded m = load(3);
    Decoder& g = *m.model;
    const ModelConfig& c = g.config();
    const Attribution a = direct_logit_attribution(g, kClean, kAnswer, -1);
    // The embedding, each head, the attention's bias (if any) and the MLP of each layer, the final norm's bias (if
    // any).
    EXPECT_EQ(a.parts.size(), size_t(1 + c.n_layer * (c.n_head + 1 + c.o_bias) + (c.norm == NormKind::layernorm)));
    double sum = 0;
    for (const auto& part : a.parts) sum += part.second;
    // f32: float rounding only; q8: the logit itself is computed with int8 activations, the parts in float.
    const double bound = std::get<1>(GetParam()) == DType::F32 ? 1e-4 : 0.05;
    EXPECT_NEAR(sum, a.logit, bound * std::max(1.0, std::fabs(double(a.logit))));

    const LogitLens lens = logit_lens(g, kClean, 3, kAnswer);
    g.forward(kClean.data(), int(kClean.size()));
    const float* out = g.logits();
    const size_t last = (size_t(c.n_layer - 1) * lens.positions + lens.positions - 1) * 3;
    const int best = int(std::max_element(out, out + c.n_vocab) - out);
    EXPECT_EQ(lens.top_ids[last], best);
}

TEST_P(Interventions, BadRequestsAreClearErrors) {
    Loaded m = load(3);
    Decoder& g = *m.model;
    auto message = [](auto f) {
        try {
            f();
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message([&] {
                  patching_sweep(g, kClean, {1, 2, 3}, kAnswer, kWrong);
              }),
              "patching needs prompts of the same length: the clean prompt has 10 tokens, the corrupted one 3");
    EXPECT_EQ(message([&] { patching_sweep(g, kClean, kClean, kAnswer, kWrong); }),
              "the clean and corrupted prompts are the same tokens: patching one into the other changes nothing");
    EXPECT_EQ(message([&] { patching_sweep(g, kClean, kCorrupted, 300, kWrong); }),
              "the answer token id 300 is outside the vocabulary [0, 300)");
    EXPECT_EQ(message([&] {
                  metric_with(g, kClean, {{{HookPoint::Z, 0}, Intervention::Kind::Zero, {4}, {}, {}}});
              }),
              "blocks.0.attn.hook_z: head 4 is not in [0, 4)");
    EXPECT_EQ(message([&] {
                  metric_with(g, kClean, {{{HookPoint::MlpOut, 0}, Intervention::Kind::Zero, {0}, {}, {}}});
              }),
              "blocks.0.hook_mlp_out has no heads: give heads only for attn.hook_q, hook_k, hook_v, hook_rot_q, "
              "hook_rot_k, hook_z or hook_pattern");
    EXPECT_EQ(message([&] {
                  metric_with(g, kClean, {{{HookPoint::ResidPre, 1}, Intervention::Kind::Zero, {}, {10}, {}}});
              }),
              "blocks.1.hook_resid_pre: position 10 is not in [0, 10) of this 10-token input");
    EXPECT_EQ(message([&] {
                  metric_with(g, kClean, {{{HookPoint::Z, 1}, Intervention::Kind::Replace, {}, {}, {1.0f}}});
              }),
              "blocks.1.attn.hook_z: replacing it needs " + std::to_string(10 * g.config().q_width()) +
                  " values (10 positions), got 1");
    EXPECT_EQ(message([&] { direct_logit_attribution(g, kClean, kAnswer, 10); }),
              "position 10 is not in [0, 10) of this input");
    EXPECT_EQ(message([&] { g.resume(0, 11, nullptr, 1); }).rfind("resume: positions [11, 12) do not follow", 0), 0u);
}

INSTANTIATE_TEST_SUITE_P(EveryArchitecture, Interventions,
                         ::testing::Combine(::testing::ValuesIn(kEveryArch),
                                            ::testing::Values(DType::F32, DType::Q8, DType::Q16)),
                         [](const auto& info) {
                             return std::string(arch_name(std::get<0>(info.param))) + "_" +
                                    dtype_name(std::get<1>(info.param));
                         });

}  // namespace
