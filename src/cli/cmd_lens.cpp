// cmd_lens.cpp: `arcscope lens`, the logit lens (interventions.h): each layer's residual stream read through
// ln_final and the unembedding. Writes {"tokens","top":[layer][position][k] of {"id","token","prob"},
// "target":[layer][position] or null}.
#include "arcscope/analysis/interventions.h"
#include "command.h"
#include "json_writer.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

int run(const Args& args) {
    std::unique_ptr<Decoder> model = load_model(args);
    const ModelTokenizer tok(args, *model);
    const std::vector<int> ids = prompt_ids(args, tok, "text");
    const int target = args.has("target") || args.has("target-id") ? single_token(args, tok, "target") : -1;
    const LogitLens lens = logit_lens(*model, ids, int(args.get_int("k", 5, 1, 100)), target);
    auto text = [&](int id) { return tok.label(id); };
    JsonWriter w;
    w.open_object().key("tokens").open_array();
    for (int id : ids) w.string(text(id));
    w.close_array().key("top").open_array();
    for (int l = 0; l < lens.layers; ++l) {
        w.open_array();
        for (int t = 0; t < lens.positions; ++t) {
            w.open_array();
            for (int i = 0; i < lens.k; ++i) {
                const size_t at = (size_t(l) * lens.positions + t) * lens.k + i;
                w.open_object().field("id", lens.top_ids[at]).field("token", text(lens.top_ids[at]));
                w.key("prob").number(lens.top_probs[at]).close_object();
            }
            w.close_array();
        }
        w.close_array();
    }
    w.close_array().key("target");
    if (target >= 0) w.rows(lens.target.data(), size_t(lens.layers), size_t(lens.positions));
    else w.null();
    write_output(args, w.close_object());
    return 0;
}

const bool registered = register_command(
    "lens", {"lens --model FILE (--text TEXT | --ids 1,2,3) [--target TEXT | --target-id N] [--k K] [--out OUT.json]"
             " [--tokenizer PATH]",
             run});

}  // namespace
}  // namespace arcscope::cli
