// cmd_run.cpp: `arcscope run --model FILE (--text TEXT | --ids 1,2,3) [--out OUT.json] [--logits-bin FILE]`
// One forward pass. Writes {"model":NAME,"ids":[...],"tokens":[...],"logits_last":[n_vocab],
// "attention":[layer][head][T][T]} to OUT.json (or stdout), where NAME is --model's file name: <arc-scope src=OUT.json>
// draws that file as it is, with NAME in its caption. --logits-bin also writes every position's logits as raw
// little-endian f32 (T, n_vocab).
#include <cstdio>
#include <filesystem>
#include <string>

#include "arcscope/error.h"
#include "arcscope/files.h"
#include "command.h"
#include "json_writer.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

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

    JsonWriter w;
    const std::string name = std::filesystem::path(args.require("model")).filename().string();
    w.open_object().field("model", name).field("ids", ids).key("tokens").open_array();
    for (int id : ids) w.string(id < tok.vocab_size() ? tok.token_text(id) : "<" + std::to_string(id) + ">");
    w.close_array().key("logits_last").numbers(last, c.n_vocab);
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
    w.close_array().close_object();
    const std::string out = w.text() + "\n";
    if (auto path = args.get("out")) write_file(*path, out.data(), out.size());
    else std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

const bool registered = register_command(
    "run",
    {"run --model FILE (--text TEXT | --ids 1,2,3) [--out OUT.json] [--logits-bin FILE] [--tokenizer PATH]", {}, run});

}  // namespace
}  // namespace arcscope::cli
