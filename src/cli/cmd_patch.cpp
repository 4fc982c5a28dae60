// cmd_patch.cpp: `arcscope patch`, activation patching (interventions.h): which heads and positions carry the
// difference between a clean and a corrupted prompt. The metric is logit(answer) - logit(wrong) at the last position;
// writes {"clean","corrupted","first_difference","heads":[layer][head],"resid":[layer][position]}, effects
// normalised so that the clean prompt scores 1 and the corrupted one 0.
#include "arcscope/analysis/interventions.h"
#include "command.h"
#include "json_writer.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

int run(const Args& args) {
    std::unique_ptr<Decoder> model = load_model(args);
    const ModelTokenizer tok(args, *model);
    const std::vector<int> clean = prompt_ids(args, tok, "clean"), corrupted = prompt_ids(args, tok, "corrupted");
    const Patching p =
        patching_sweep(*model, clean, corrupted, single_token(args, tok, "answer"), single_token(args, tok, "wrong"));
    const ModelConfig& c = model->config();
    JsonWriter w;
    w.open_object().key("clean").number(p.clean).key("corrupted").number(p.corrupted);
    w.field("first_difference", p.first_difference);
    w.key("heads").rows(p.heads.data(), size_t(c.n_layer), size_t(c.n_head));
    w.key("resid").rows(p.resid.data(), size_t(c.n_layer), clean.size()).close_object();
    write_output(args, w);
    return 0;
}

const bool registered = register_command(
    "patch", {"patch --model FILE (--clean TEXT | --clean-ids 1,2,3) (--corrupted TEXT | --corrupted-ids 1,2,4)"
              " (--answer TEXT | --answer-id N) (--wrong TEXT | --wrong-id N) [--out OUT.json] [--tokenizer PATH]",
              run});

}  // namespace
}  // namespace arcscope::cli
