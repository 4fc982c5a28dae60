// cmd_attribute.cpp: `arcscope attribute`, direct logit attribution (interventions.h): a token's logit at a position
// (default: the last) split into what the embedding, each head, each attention bias, each MLP and ln_final's bias
// add to it. Writes {"logit","sum","parts":{name: value}}; the parts add up to the logit.
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
    const int position = int(args.get_int("position", -1, -1, INT32_MAX));
    const Attribution a = direct_logit_attribution(*model, ids, single_token(args, tok, "token"), position);
    double sum = 0;
    for (const auto& part : a.parts) sum += part.second;
    JsonWriter w;
    w.open_object().key("logit").number(a.logit).key("sum").number(sum).key("parts").open_object();
    for (const auto& [name, value] : a.parts) w.key(name).number(value);
    write_output(args, w.close_object().close_object());
    return 0;
}

const bool registered = register_command(
    "attribute", {"attribute --model FILE (--text TEXT | --ids 1,2,3) (--token TEXT | --token-id N) [--position P]"
                  " [--out OUT.json] [--tokenizer PATH]",
                  run});

}  // namespace
}  // namespace arcscope::cli
