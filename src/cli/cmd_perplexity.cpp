// cmd_perplexity.cpp: `arcscope perplexity`, how well a model predicts a text.
// Tokenizes the text (or takes --ids: models whose own tokenizer is not read yet), optionally keeps only its held-out
// last 10% (--held-out, the split the default model was trained with), then --tokens of those after the first --skip
// (0: all), and prints the perplexity over windows of --window tokens (default: the model's context; see
// perplexity.h).
#include <cstdio>

#include "arcscope/analysis/perplexity.h"
#include "arcscope/core/error.h"
#include "arcscope/core/files.h"
#include "command.h"
#include "json_writer.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

int run(const Args& args) {
    require(args.has("text-file") != args.has("ids"), "give exactly one of --text-file PATH or --ids 1,2,3");
    std::unique_ptr<Decoder> model = load_model(args);
    const std::string source = args.has("ids") ? "--ids" : args.require("text-file");
    std::vector<int> ids = args.has("ids") ? parse_ids(args.require("ids"))
                                           : ModelTokenizer(args, *model).encode("--text-file", read_file_text(source));
    if (args.has("held-out")) ids = held_out_tokens(ids);

    require(!ids.empty(), source + " has no tokens");
    const long long skip = args.get_int("skip", 0, 0, (long long)ids.size() - 1);
    const long long tokens = args.get_int("tokens", 0, 0, (long long)ids.size());
    const size_t end = tokens == 0 ? ids.size() : std::min(ids.size(), size_t(skip + tokens));
    std::vector<int> passage(ids.begin() + skip, ids.begin() + end);

    Perplexity p = perplexity(*model, passage, int(args.get_int("window", 0, 0, model->config().n_ctx)));
    JsonWriter w;
    w.open_object().field("tokens", passage.size()).field("predicted", (long long)p.predicted);
    w.field("nll", p.nll, 6).field("perplexity", p.value(), 4).close_object().print();
    return 0;
}

const bool registered =
    register_command("perplexity", {"perplexity --model FILE (--text-file PATH | --ids 1,2,3) [--held-out] [--skip K] "
                                    "[--tokens N] "
                                    "[--window W] [--tokenizer PATH] [--kv-cache f32|f16]",
                                    run});

}  // namespace
}  // namespace arcscope::cli
