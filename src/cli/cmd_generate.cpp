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
    params.end_of_text = tok.end_of_text();
    params.validate();

    const bool json = args.has("json");
    // The text so far, printed as it grows: a token alone may decode differently from within the text (Llama 2's
    // "▁the" is "the" at the start, " the" after a word; a character's bytes may come in two tokens), so the whole
    // is decoded again and what it adds is printed, holding back while it ends in a partial character.
    std::vector<int> all = prompt;
    std::string printed;
    auto show = [&](bool last) {
        const std::string now = tok.text(all);
        const bool partial = !last && now.size() >= 3 && now.compare(now.size() - 3, 3, "\xEF\xBF\xBD") == 0;
        if (json || partial || now.compare(0, printed.size(), printed) != 0) return;
        std::fwrite(now.data() + printed.size(), 1, now.size() - printed.size(), stdout);
        std::fflush(stdout);
        printed = now;
    };
    show(false);
    std::vector<int> made;
    StopReason stop = generate(*model, prompt, int(n), params, [&](int id) {
        made.push_back(id);
        all.push_back(id);
        show(false);
        return true;
    });
    show(true);
    if (json) {
        JsonWriter w;
        w.open_object().field("prompt_ids", prompt).field("ids", made).field("text", tok.text(made));
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
