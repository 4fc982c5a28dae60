// cmd_ablate.cpp: `arcscope ablate`, which heads a prediction needs. Ablates each head alone at hook_z (zero, or its
// mean over the input's positions with --mean) and writes the metric logit(answer) - logit(wrong) at the last
// position: {"baseline","kind","heads":[layer][head]}.
#include "arcscope/analysis/interventions.h"
#include "command.h"
#include "json_writer.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

int run(const Args& args) {
    std::unique_ptr<Decoder> model = load_model(args);
    const ModelTokenizer tok(args, *model);
    const auto kind = args.has("mean") ? Intervention::Kind::Mean : Intervention::Kind::Zero;
    const Ablation a = ablation_sweep(*model, prompt_ids(args, tok, "text"), single_token(args, tok, "answer"),
                                      single_token(args, tok, "wrong"), kind);
    const ModelConfig& c = model->config();
    JsonWriter w;
    w.open_object().key("baseline").number(a.baseline).field("kind", intervention_kind_name(kind));
    w.key("heads").rows(a.heads.data(), size_t(c.n_layer), size_t(c.n_head)).close_object();
    write_output(args, w);
    return 0;
}

const bool registered =
    register_command("ablate", {"ablate --model FILE (--text TEXT | --ids 1,2,3) (--answer TEXT | --answer-id N)"
                                " (--wrong TEXT | --wrong-id N) [--mean] [--out OUT.json] [--tokenizer PATH]",
                                run});

}  // namespace
}  // namespace arcscope::cli
