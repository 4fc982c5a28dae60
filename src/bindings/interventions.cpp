// interventions.cpp: the bindings of interventions.h (hooks that change the pass, patching, ablation, the logit
// lens, direct logit attribution); web/lib/engine/model.js wraps them. Bindings only.
#include "arcscope/analysis/interventions.h"

#include "model.h"

#include <cfloat>
#include <cmath>

using emscripten::val;
using namespace arcscope::bindings;

namespace intervention_bindings {
using namespace arcscope;
using model_bindings::Model;

std::vector<int> int_list(const val& v, const std::string& what) {
    return v.isUndefined() || v.isNull() ? std::vector<int>() : int_vector(v, what.c_str());
}

// One JavaScript hook: {hook: name, heads?: [...], positions?: [...], ablate?: 'zero' | 'mean', values?: numbers}.
Intervention intervention_of(const val& spec, const ModelConfig& c, size_t i) {
    const std::string at = "hooks[" + std::to_string(i) + "]";
    require(js_string(spec.typeOf()) == "object" && !spec.isNull(),
            at + " must be an object such as {hook: 'blocks.0.attn.hook_z', heads: [0], ablate: 'zero'}");
    const val name = spec["hook"];
    require(name.isString(), at + ".hook must be a hook name, got " + js_description(name));
    Intervention iv;
    iv.hook = parse_hook_name(js_string(name), c);
    iv.heads = int_list(spec["heads"], at + ".heads");
    iv.positions = int_list(spec["positions"], at + ".positions");
    const val ablate = spec["ablate"], values = spec["values"];
    require(ablate.isUndefined() != values.isUndefined(), at + ": give either ablate ('zero' or 'mean') or values");
    if (!ablate.isUndefined()) {
        const std::string kind = ablate.isString() ? js_string(ablate) : "";
        require(kind == "zero" || kind == "mean",
                at + ".ablate must be 'zero' or 'mean', got " + js_description(ablate));
        iv.kind = kind == "zero" ? Intervention::Kind::Zero : Intervention::Kind::Mean;
    } else {
        iv.kind = Intervention::Kind::Replace;
        const std::vector<double> numbers = js_numbers(values, (at + ".values").c_str());
        // A NaN or an infinity put in would surface as a non-finite logit blamed on the weights: name it here.
        for (size_t j = 0; j < numbers.size(); ++j)
            require(std::isfinite(numbers[j]) && std::fabs(numbers[j]) <= FLT_MAX,
                    at + ".values[" + std::to_string(j) + "] is " + number_text(numbers[j]) +
                        ": the values put in must be finite float32 numbers (at most 3.4e38 in magnitude)");
        iv.values.assign(numbers.begin(), numbers.end());
    }
    return iv;
}

val run_with_hooks(Model& m, val ids, val given_hooks, bool all_logits) {
    return guarded("running the model with hooks", [&] {
        const ModelConfig& c = m.decoder().config();
        const val hooks = plain(given_hooks, "hooks");  // read once, before anything is allocated for them
        const std::vector<int> v = m.prompt(ids);
        require(hooks.isArray(), "hooks must be an array, got " + js_description(hooks));
        std::vector<Intervention> list;
        for (int i = 0, n = hooks["length"].as<int>(); i < n; ++i)
            list.push_back(intervention_of(hooks[i], c, size_t(i)));
        run_with_interventions(m.decoder(), v, std::move(list), all_logits);
        return m.result(false);
    });
}

val grid(const std::vector<float>& values, int rows, int cols) {
    val o = val::object();
    o.set("data", float32_array(values.data(), values.size()));
    o.set("shape", val::array(std::vector<int>{rows, cols}));
    return o;
}

val patching_result(const Patching& p, const ModelConfig& c) {
    val o = val::object();
    o.set("clean", p.clean);
    o.set("corrupted", p.corrupted);
    o.set("firstDifference", p.first_difference);
    o.set("heads", grid(p.heads, c.n_layer, c.n_head));
    o.set("resid", grid(p.resid, c.n_layer, int(p.resid.size()) / c.n_layer));
    return o;
}

val ablation_result(const Ablation& a, const ModelConfig& c) {
    val o = val::object();
    o.set("baseline", a.baseline);
    o.set("heads", grid(a.heads, c.n_layer, c.n_head));
    return o;
}

Intervention::Kind ablation_kind(const val& kind_name) {
    require(kind_name.isString(), "kind must be 'zero' or 'mean', got " + js_description(kind_name));
    const std::string kind = js_string(kind_name);
    require(kind == "zero" || kind == "mean", "kind must be 'zero' or 'mean', got '" + kind + "'");
    return kind == "zero" ? Intervention::Kind::Zero : Intervention::Kind::Mean;
}

// A sweep a step at a time (interventions.h), for model.js to give the page its progress and a cancel its chance
// between steps. It reads the model it was made on: model.js frees it before the model.
class SweepSteps {
public:
    static SweepSteps* patching(Model& m, val clean, val corrupted, double answer, double wrong) {
        return guarded("patching activations", [&] {
            const ModelConfig& c = m.decoder().config();
            auto s = std::make_unique<SweepSteps>(c);
            s->patching_ = std::make_unique<PatchingSweep>(m.decoder(), m.prompt(clean), m.prompt(corrupted),
                                                           int_arg(answer, "answer", 0, c.n_vocab - 1),
                                                           int_arg(wrong, "wrong", 0, c.n_vocab - 1));
            return s.release();
        });
    }
    static SweepSteps* ablation(Model& m, val ids, double answer, double wrong, val kind) {
        return guarded("ablating heads", [&] {
            const ModelConfig& c = m.decoder().config();
            auto s = std::make_unique<SweepSteps>(c);
            s->ablation_ =
                std::make_unique<AblationSweep>(m.decoder(), m.prompt(ids), int_arg(answer, "answer", 0, c.n_vocab - 1),
                                                int_arg(wrong, "wrong", 0, c.n_vocab - 1), ablation_kind(kind));
            return s.release();
        });
    }
    explicit SweepSteps(const ModelConfig& c) : config_(c) {}
    bool done() const { return patching_ ? patching_->done() : ablation_->done(); }
    int layers_done() const { return patching_ ? patching_->layers_done() : ablation_->layers_done(); }
    void next() {
        guarded("running a step of the sweep", [&] { patching_ ? patching_->next() : ablation_->next(); });
    }
    val result() const {
        return guarded("reading the sweep's result", [&] {
            return patching_ ? patching_result(patching_->result(), config_)
                             : ablation_result(ablation_->result(), config_);
        });
    }

private:
    ModelConfig config_;
    std::unique_ptr<PatchingSweep> patching_;
    std::unique_ptr<AblationSweep> ablation_;
};

// A whole sweep in one call: its steps, run to the end.
val to_the_end(SweepSteps* started) {
    const std::unique_ptr<SweepSteps> steps(started);
    while (!steps->done()) steps->next();
    return steps->result();
}

val patching(Model& m, val clean, val corrupted, double answer, double wrong) {
    return to_the_end(SweepSteps::patching(m, clean, corrupted, answer, wrong));
}

val ablation(Model& m, val ids, double answer, double wrong, val kind_name) {
    return to_the_end(SweepSteps::ablation(m, ids, answer, wrong, kind_name));
}

val lens(Model& m, val ids, double k, double target) {
    return guarded("reading the logit lens", [&] {
        const ModelConfig& c = m.decoder().config();
        const LogitLens l = logit_lens(m.decoder(), m.prompt(ids), int_arg(k, "k", 1, 100),
                                       target < 0 ? -1 : int_arg(target, "target", 0, c.n_vocab - 1));
        val o = val::object();
        o.set("topIds", int32_array(l.top_ids.data(), l.top_ids.size()));
        o.set("topProbs", float32_array(l.top_probs.data(), l.top_probs.size()));
        o.set("shape", val::array(std::vector<int>{l.layers, l.positions, l.k}));
        o.set("target", l.target.empty() ? val::null() : float32_array(l.target.data(), l.target.size()));
        return o;
    });
}

val attribution(Model& m, val ids, double token, double position) {
    return guarded("attributing the logit", [&] {
        const ModelConfig& c = m.decoder().config();
        const Attribution a =
            direct_logit_attribution(m.decoder(), m.prompt(ids), int_arg(token, "token", 0, c.n_vocab - 1),
                                     int_arg(position, "position", -c.n_ctx, c.n_ctx - 1));
        val o = val::object();
        o.set("logit", a.logit);
        val parts = val::array();
        for (const auto& [name, value] : a.parts) {
            val part = val::object();
            part.set("name", text_val(name));
            part.set("value", value);
            parts.call<void>("push", part);
        }
        o.set("parts", parts);
        return o;
    });
}

}  // namespace intervention_bindings

EMSCRIPTEN_BINDINGS(interventions) {
    using namespace emscripten;
    function("runWithHooks", &intervention_bindings::run_with_hooks);
    function("patchingSweep", &intervention_bindings::patching);
    function("ablationSweep", &intervention_bindings::ablation);
    class_<intervention_bindings::SweepSteps>("SweepSteps")
        .class_function("patching", &intervention_bindings::SweepSteps::patching, allow_raw_pointers())
        .class_function("ablation", &intervention_bindings::SweepSteps::ablation, allow_raw_pointers())
        .function("done", &intervention_bindings::SweepSteps::done)
        .function("layersDone", &intervention_bindings::SweepSteps::layers_done)
        .function("next", &intervention_bindings::SweepSteps::next)
        .function("result", &intervention_bindings::SweepSteps::result);
    function("logitLens", &intervention_bindings::lens);
    function("directLogitAttribution", &intervention_bindings::attribution);
}
