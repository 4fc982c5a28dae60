// cmd_generate.cpp: `arcscope generate`, a prompt continued by sampling. Prints the prompt and then each new token as
// it is made (KV cache: one position per token). With --json, prints {"prompt_ids","ids","text","stop"} at the end
// instead.
#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "arcscope/analysis/sampling.h"
#include "arcscope/core/error.h"
#include "command.h"
#include "json_writer.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

int run(const Args& args) {
    require(args.has("text") != args.has("ids"), "give exactly one of --text TEXT or --ids 1,2,3");
    std::unique_ptr<Decoder> model = load_model(args);
    const ModelTokenizer tok(args, *model);
    std::vector<int> prompt = prompt_ids(args, tok, "text");
    require(!prompt.empty(), "the prompt is empty: give some text to continue");
    long long n = args.get_int("tokens", 32, 0, 1000000);
    SamplingParams params;
    params.temperature = float(args.get_double("temperature", 1.0));
    params.top_k = int(args.get_int("top-k", 0, 0, INT32_MAX));
    params.top_p = float(args.get_double("top-p", 1.0));
    params.seed = uint64_t(args.get_int("seed", 0, 0, INT64_MAX));
    params.validate();

    // Tokens the tokenizer does not have (a model without one, ids past its vocabulary) are printed as <id>.
    const auto text_of = [&](const std::vector<int>& ids) {
        const bool known =
            tok.has() && std::all_of(ids.begin(), ids.end(), [&](int id) { return id < tok.get("").vocab_size(); });
        if (known) return tok.get("").decode(ids);
        std::string s;
        for (int id : ids) s += tok.label(id);
        return s;
    };
    const bool json = args.has("json");
    if (!json) {
        std::fputs(text_of(prompt).c_str(), stdout);
        std::fflush(stdout);
    }
    std::vector<int> made;
    StopReason stop = generate(*model, prompt, int(n), params, [&](int id) {
        made.push_back(id);
        if (!json) {
            std::string piece = text_of({id});
            std::fwrite(piece.data(), 1, piece.size(), stdout);
            std::fflush(stdout);
        }
        return true;
    });
    if (json) {
        JsonWriter w;
        w.open_object().field("prompt_ids", prompt).field("ids", made).field("text", text_of(made));
        w.field("stop", stop_reason_name(stop)).close_object().print();
    } else {
        std::printf("\n");
    }
    return 0;
}

const bool registered = register_command(
    "generate", {"generate --model FILE (--text TEXT | --ids 1,2,3) --tokens N [--temperature T] [--top-k K] "
                 "[--top-p P] [--seed S] [--json] [--tokenizer PATH] [--kv-cache f32|f16]",
                 run});

}  // namespace
}  // namespace arcscope::cli
