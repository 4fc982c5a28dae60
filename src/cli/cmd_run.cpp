// cmd_run.cpp: `arcscope run --model FILE (--text TEXT | --ids 1,2,3) [--out OUT.json] [--logits-bin FILE]`
// One forward pass. Writes {"ids":[...],"tokens":[...],"logits_last":[n_vocab],"attention":[layer][head][T][T]}
// to OUT.json (or stdout). --logits-bin also writes every position's logits as raw little-endian f32 (T, n_vocab).
#include <cstdio>
#include <string>

#include "arcscope/error.h"
#include "arcscope/files.h"
#include "command.h"
#include "json_strings.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

void append_floats(std::string& out, const float* x, size_t n) {
    out += '[';
    for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + json_number(x[i]);
    out += ']';
}


int run(const Args& args) {
    args.reject_unknown({"model", "text", "ids", "out", "logits-bin", "tokenizer"});
    require(args.has("text") != args.has("ids"), "give exactly one of --text TEXT or --ids 1,2,3");
    std::unique_ptr<GPT2> model = load_model(args);
    Tokenizer tok = load_tokenizer(args);
    std::vector<int> ids = args.has("text") ? tok.encode(args.require("text")) : parse_ids(args.require("ids"));
    require(!ids.empty(), "the text is empty: it has no tokens to run");

    const bool all = args.has("logits-bin");
    model->forward(ids.data(), int(ids.size()), true, all);
    const GPT2Config& c = model->config();
    const int T = int(ids.size());
    const float* last = model->logits() + size_t(model->logits_rows() - 1) * c.n_vocab;
    if (all) write_file(args.require("logits-bin"), model->logits(), size_t(T) * c.n_vocab * sizeof(float));

    std::string out = "{\"ids\":" + json_ints(ids) + ",\"tokens\":[";
    for (int t = 0; t < T; ++t) {
        std::string text = ids[t] < tok.vocab_size() ? tok.token_text(ids[t]) : "<" + std::to_string(ids[t]) + ">";
        out += (t ? "," : "") + json_quote(text);
    }
    out += "],\"logits_last\":";
    append_floats(out, last, c.n_vocab);
    out += ",\"attention\":[";
    const float* att = model->attention();
    for (int l = 0; l < c.n_layer; ++l) {
        out += l ? ",[" : "[";
        for (int h = 0; h < c.n_head; ++h) {
            out += h ? ",[" : "[";
            for (int i = 0; i < T; ++i) {
                if (i) out += ',';
                append_floats(out, att + ((size_t(l) * c.n_head + h) * T + i) * T, T);
            }
            out += ']';
        }
        out += ']';
    }
    out += "]}\n";
    if (auto path = args.get("out")) write_file(*path, out.data(), out.size());
    else std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

const bool registered = register_command(
    "run", {"run --model FILE (--text TEXT | --ids 1,2,3) [--out OUT.json] [--logits-bin FILE] [--tokenizer PATH]",
            {}, run});

}  // namespace
}  // namespace arcscope::cli
