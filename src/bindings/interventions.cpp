// interventions.cpp: the bindings of interventions.h (hooks that change the pass, patching, ablation, the logit
// lens, direct logit attribution); web/lib/engine/model.js wraps them. Bindings only.
#include "arcscope/analysis/interventions.h"

#include "model.h"

using emscripten::val;
using namespace arcscope::bindings;

namespace intervention_bindings {
using namespace arcscope;
using model_bindings::Model;

std::vector<int> int_list(const val& v, const std::string& what) {
    return v.isUndefined() || v.isNull() ? std::vector<int>() : int_vector(v, what.c_str());
}

// One JavaScript hook: {hook: name, heads?: [...], positions?: [...], ablate?: 'zero' | 'mean', values?: numbers}.
Intervention intervention_of(const val& spec, const GPT2Config& c, size_t i) {
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
        iv.values.assign(numbers.begin(), numbers.end());
    }
    return iv;
}

val run_with_hooks(Model& m, val ids, val given_hooks, bool all_logits) {
    return guarded("running the model with hooks", [&] {
        const GPT2Config& c = m.gpt2().config();
        const val hooks = plain(given_hooks, "hooks");  // read once, before anything is allocated for them
        const std::vector<int> v = m.prompt(ids);
        require(hooks.isArray(), "hooks must be an array, got " + js_description(hooks));
        std::vector<Intervention> list;
        for (int i = 0, n = hooks["length"].as<int>(); i < n; ++i)
            list.push_back(intervention_of(hooks[i], c, size_t(i)));
        run_with_interventions(m.gpt2(), v, std::move(list), all_logits);
        return m.result(false);
    });
}

val grid(const std::vector<float>& values, int rows, int cols) {
    val o = val::object();
    o.set("data", float32_array(values.data(), values.size()));
    o.set("shape", val::array(std::vector<int>{rows, cols}));
    return o;
}

val patching(Model& m, val clean, val corrupted, double answer, double wrong) {
    return guarded("patching activations", [&] {
        const GPT2Config& c = m.gpt2().config();
        const Patching p =
            patching_sweep(m.gpt2(), m.prompt(clean), m.prompt(corrupted), int_arg(answer, "answer", 0, c.n_vocab - 1),
                           int_arg(wrong, "wrong", 0, c.n_vocab - 1));
        val o = val::object();
        o.set("clean", p.clean);
        o.set("corrupted", p.corrupted);
        o.set("firstDifference", p.first_difference);
        o.set("heads", grid(p.heads, c.n_layer, c.n_head));
        o.set("resid", grid(p.resid, c.n_layer, int(p.resid.size()) / c.n_layer));
        return o;
    });
}

val ablation(Model& m, val ids, double answer, double wrong, val kind_name) {
    return guarded("ablating heads", [&] {
        const GPT2Config& c = m.gpt2().config();
        require(kind_name.isString(), "kind must be 'zero' or 'mean', got " + js_description(kind_name));
        const std::string kind = js_string(kind_name);
        require(kind == "zero" || kind == "mean", "kind must be 'zero' or 'mean', got '" + kind + "'");
        const Ablation a = ablation_sweep(m.gpt2(), m.prompt(ids), int_arg(answer, "answer", 0, c.n_vocab - 1),
                                          int_arg(wrong, "wrong", 0, c.n_vocab - 1),
                                          kind == "zero" ? Intervention::Kind::Zero : Intervention::Kind::Mean);
        val o = val::object();
        o.set("baseline", a.baseline);
        o.set("heads", grid(a.heads, c.n_layer, c.n_head));
        return o;
    });
}

val lens(Model& m, val ids, double k, double target) {
    return guarded("reading the logit lens", [&] {
        const GPT2Config& c = m.gpt2().config();
        const LogitLens l = logit_lens(m.gpt2(), m.prompt(ids), int_arg(k, "k", 1, 100),
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
        const GPT2Config& c = m.gpt2().config();
        const Attribution a =
            direct_logit_attribution(m.gpt2(), m.prompt(ids), int_arg(token, "token", 0, c.n_vocab - 1),
                                     int_arg(position, "position", -c.n_ctx, c.n_ctx - 1));
        val o = val::object();
        o.set("logit", a.logit);
        val parts = val::array();
        for (const auto& [name, value] : a.parts) {
            val part = val::object();
            part.set("name", name);
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
    function("logitLens", &intervention_bindings::lens);
    function("directLogitAttribution", &intervention_bindings::attribution);
}
