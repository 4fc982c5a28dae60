// hooks.cpp: TransformerLens hook names and the activation cache (hooks.h).
#include "arcscope/model/hooks.h"

#include <algorithm>

#include "arcscope/core/error.h"
#include "arcscope/core/sizes.h"

namespace arcscope {
namespace {

// The part of a name after "blocks.{l}.", per point.
struct Suffix {
    HookPoint point;
    const char* text;
};
constexpr Suffix kBlockSuffixes[] = {
    {HookPoint::ResidPre, "hook_resid_pre"},
    {HookPoint::Q, "attn.hook_q"},
    {HookPoint::K, "attn.hook_k"},
    {HookPoint::V, "attn.hook_v"},
    {HookPoint::RotQ, "attn.hook_rot_q"},
    {HookPoint::RotK, "attn.hook_rot_k"},
    {HookPoint::Pattern, "attn.hook_pattern"},
    {HookPoint::Z, "attn.hook_z"},
    {HookPoint::AttnOut, "hook_attn_out"},
    {HookPoint::ResidMid, "hook_resid_mid"},
    {HookPoint::MlpPost, "mlp.hook_post"},
    {HookPoint::MlpOut, "hook_mlp_out"},
    {HookPoint::ResidPost, "hook_resid_post"},
};
constexpr const char* kLnFinal = "ln_final.hook_normalized";

std::string known_names() {
    std::string list;
    for (const Suffix& s : kBlockSuffixes) list += std::string(list.empty() ? "" : ", ") + "blocks.{l}." + s.text;
    return list + ", " + kLnFinal;
}

}  // namespace

HookName parse_hook_name(const std::string& name, const ModelConfig& config) {
    if (name == kLnFinal) return {HookPoint::LnFinalNormalized, -1};
    const std::string prefix = "blocks.";
    size_t dot = name.find('.', prefix.size());
    if (name.compare(0, prefix.size(), prefix) == 0 && dot != std::string::npos && dot > prefix.size() &&
        dot - prefix.size() <= 4) {
        const std::string digits = name.substr(prefix.size(), dot - prefix.size());
        const bool numeric = std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
        const std::string rest = name.substr(dot + 1);
        for (const Suffix& s : kBlockSuffixes) {
            if (!numeric || rest != s.text) continue;
            const int layer = std::stoi(digits);
            require(layer < config.n_layer,
                    "hook " + name + ": the model has layers 0 to " + std::to_string(config.n_layer - 1));
            require(has_hook_point(s.point, config),
                    "hook " + name + ": " + arch_name(config.arch) +
                        (s.point == HookPoint::ResidMid ? " runs attention and MLP side by side (parallel residual): "
                                                          "there is no stream between them"
                                                        : " learns its positions: nothing rotates"));
            return {s.point, layer};
        }
    }
    throw Error("unknown hook name '" + name + "': the names are " + known_names());
}

std::string hook_name(const HookName& hook) {
    if (hook.point == HookPoint::LnFinalNormalized) return kLnFinal;
    for (const Suffix& s : kBlockSuffixes)
        if (s.point == hook.point) return "blocks." + std::to_string(hook.layer) + "." + s.text;
    throw Error("hook_name: not a hook point");
}

bool has_hook_point(HookPoint point, const ModelConfig& config) {
    if (point == HookPoint::RotQ || point == HookPoint::RotK) return config.rotary();
    if (point == HookPoint::ResidMid) return !config.parallel_residual;
    return true;
}

std::vector<HookName> all_hooks(const ModelConfig& config) {
    std::vector<HookName> names;
    for (int l = 0; l < config.n_layer; ++l)
        for (const Suffix& s : kBlockSuffixes)
            if (has_hook_point(s.point, config)) names.push_back({s.point, l});
    names.push_back({HookPoint::LnFinalNormalized, -1});
    return names;
}

std::vector<int> hook_shape(const HookName& hook, const ModelConfig& c, int T, int first) {
    switch (hook.point) {
        case HookPoint::Q:
        case HookPoint::RotQ:
        case HookPoint::Z:
            return {T, c.n_head, c.head_dim()};
        case HookPoint::K:
        case HookPoint::V:
        case HookPoint::RotK:
            return {T, c.kv_heads(), c.head_dim()};
        case HookPoint::Pattern:
            return {c.n_head, T, first + T};
        case HookPoint::MlpPost:
            return {T, c.mlp_width()};
        default:
            return {T, c.n_embd};
    }
}

std::vector<HookSlot> hook_slots(const ModelConfig& config, const std::vector<HookName>& names, int T, int first) {
    std::vector<HookSlot> slots;
    for (const HookName& h : names) {
        if (std::any_of(slots.begin(), slots.end(), [&](const HookSlot& s) { return s.hook == h; })) continue;
        std::vector<int> shape = hook_shape(h, config, T, first);
        const std::vector<uint64_t> dims(shape.begin(), shape.end());
        const std::string what = "cache of " + hook_name(h);
        const size_t n = buffer_elements(what.c_str(), dims.data(), dims.size(), sizeof(float));
        slots.push_back({h, std::move(shape), n});
    }
    return slots;
}

ActivationCache::ActivationCache(const ModelConfig& config, std::vector<HookName> names, int T, int first)
    : config_(config), T_(T), first_(first) {
    for (HookSlot& s : hook_slots(config, names, T, first))
        entries_.push_back({s.hook, std::move(s.shape), std::vector<float>(s.elements)});
}

bool ActivationCache::wants(const HookName& hook) const {
    return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.hook == hook; });
}

HookRows hook_rows(const HookSite& site, int T, size_t elements, int first) {
    const size_t row = size_t(site.first - first);
    if (site.hook.point == HookPoint::Pattern) return {size_t(site.head) * T + row, size_t(first + T)};
    return {row, elements / size_t(T)};
}

void ActivationCache::visit(const HookSite& site, float* values) {
    for (Entry& e : entries_) {
        if (!(e.hook == site.hook)) continue;
        const HookRows to = hook_rows(site, T_, e.data.size(), first_);
        for (int r = 0; r < site.rows; ++r)
            std::copy(values + size_t(r) * site.stride, values + size_t(r) * site.stride + site.width,
                      e.data.data() + (to.first + r) * to.length);
    }
}

}  // namespace arcscope
