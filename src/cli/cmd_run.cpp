// cmd_run.cpp: `arcscope run`, one forward pass written out for the element and for tools.
// Writes {"model":NAME,"ids":[...],"tokens":[...],"logits_last":[n_vocab],"attention":[layer][head][T][T]} to --out
// (or stdout), where NAME is --model's file name: <arc-scope src=...> draws that file as it is, with NAME in its
// caption. --logits-bin also writes every position's logits as raw little-endian f32 (T, n_vocab).
// --hooks NAMES (comma-separated TransformerLens hook names, or "all") with --cache-out DIR writes each named
// activation as DIR/<name>.f32 (raw little-endian f32 in its full shape) and DIR/cache.json, {"T": T, "hooks":
// {name: shape}} (hooks.h lists the names and shapes). --no-attention leaves out "attention" (and does not compute
// it), --no-logits "logits_last" (the element draws a file without it: 96% smaller).
#include <cstdio>
#include <filesystem>
#include <string>

#include "arcscope/core/error.h"
#include "arcscope/core/files.h"
#include "arcscope/core/sizes.h"
#include "arcscope/model/hooks.h"
#include "command.h"
#include "json_writer.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

std::vector<HookName> hook_names(const std::string& list, const ModelConfig& config) {
    if (list == "all") return all_hooks(config);
    std::vector<HookName> names;
    size_t at = 0;
    while (at <= list.size()) {
        size_t comma = list.find(',', at);
        names.push_back(
            parse_hook_name(list.substr(at, comma == std::string::npos ? std::string::npos : comma - at), config));
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return names;
}

void write_cache(const ActivationCache& cache, const std::string& dir, int T) {
    std::filesystem::create_directories(dir);
    JsonWriter w;
    w.open_object().field("T", T).key("hooks").open_object();
    for (const ActivationCache::Entry& e : cache.entries()) {
        const std::string name = hook_name(e.hook);
        write_file(dir + "/" + name + ".f32", e.data.data(), e.data.size() * sizeof(float));
        w.field(name, e.shape);
    }
    w.close_object().close_object();
    const std::string index = w.text() + "\n";
    write_file(dir + "/cache.json", index.data(), index.size());
}

// The attention the JSON output may hold: what the wasm build can address at all (4 GB of floats; as text about
// three times that). Checked before the pass, so a long-context model is refused instead of killed by the system.
constexpr uint64_t kMaxAttentionBytes = uint64_t(1) << 32;

void require_attention_fits(const ModelConfig& c, int T) {
    const uint64_t dims[] = {uint64_t(c.n_layer), uint64_t(c.n_head), uint64_t(T), uint64_t(T)};
    uint64_t bytes = 4;
    for (uint64_t d : dims) bytes = checked_mul(bytes, d, "the attention capture's size");
    require(bytes <= kMaxAttentionBytes, "attention capture " + shape_text(dims, 4) + " of 4-byte values needs " +
                                             human_bytes(bytes) + "; `arcscope run` writes at most " +
                                             human_bytes(kMaxAttentionBytes) +
                                             " of attention: pass --no-attention, or fewer tokens");
}

int run(const Args& args) {
    require(args.has("text") != args.has("ids"), "give exactly one of --text TEXT or --ids 1,2,3");
    require(args.has("hooks") == args.has("cache-out"), "--hooks NAMES and --cache-out DIR go together");
    std::unique_ptr<Decoder> model = load_model(args);
    const ModelTokenizer tok(args, *model);
    std::vector<int> ids = prompt_ids(args, tok, "text");
    require(!ids.empty(), "the text is empty: it has no tokens to run");

    const bool all = args.has("logits-bin"), attention = !args.has("no-attention");
    const ModelConfig& c = model->config();
    const int T = int(ids.size());
    if (attention) require_attention_fits(c, T);
    std::unique_ptr<ActivationCache> cache;
    if (auto names = args.get("hooks")) cache = std::make_unique<ActivationCache>(c, hook_names(*names, c), T);
    model->forward(ids.data(), T,
                   ForwardOptions().with_attention(attention).with_all_logits(all).with_hooks(cache.get()));
    if (cache) write_cache(*cache, args.require("cache-out"), T);
    const float* last = model->logits() + size_t(model->logits_rows() - 1) * c.n_vocab;
    if (all) write_file(args.require("logits-bin"), model->logits(), size_t(T) * c.n_vocab * sizeof(float));

    JsonWriter w;
    const std::string name = std::filesystem::path(args.require("model")).filename().string();
    w.open_object().field("model", name).field("ids", ids).key("tokens").open_array();
    for (int id : ids) w.string(tok.label(id));
    w.close_array();
    if (!args.has("no-logits")) w.key("logits_last").numbers(last, c.n_vocab);
    if (attention) {
        w.key("attention").open_array();  // [layer][head][T][T]
        const float* att = model->attention();
        for (int l = 0; l < c.n_layer; ++l) {
            w.open_array();
            for (int h = 0; h < c.n_head; ++h) {
                w.open_array();
                for (int i = 0; i < T; ++i) w.numbers(att + ((size_t(l) * c.n_head + h) * T + i) * T, T);
                w.close_array();
            }
            w.close_array();
        }
        w.close_array();
    }
    w.close_object();
    write_output(args, w);
    return 0;
}

const bool registered = register_command(
    "run", {"run --model FILE (--text TEXT | --ids 1,2,3) [--out OUT.json] [--logits-bin FILE] [--tokenizer PATH]"
            " [--hooks NAMES|all --cache-out DIR] [--kv-cache f32|f16] [--no-attention] [--no-logits]",
            run});

}  // namespace
}  // namespace arcscope::cli
