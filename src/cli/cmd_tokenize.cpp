// cmd_tokenize.cpp: `arcscope tokenize`, a text's ids and tokens (each token's display text) as
// {"ids":[...],"tokens":[...]}, or a file's, read as raw bytes (invalid UTF-8 becomes U+FFFD, as in TextDecoder).
// The tokenizer is GPT-2's file (the default), or a Hugging Face tokenizer.json, given as the file or as the model's
// folder holding it (with its tokenizer_config.json); special tokens (the post-processor's BOS/EOS) are added only on
// request, as Hugging Face's add_special_tokens. --jsonl reads one JSON string per stdin line and writes
// {"ids":[...]} per line. --stats prints {"bytes","tokens","cold_seconds","warm_seconds"} instead, timing encode()
// alone, first with an empty word cache, then the best of --repeat N more runs.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <string>

#include "arcscope/core/error.h"
#include "arcscope/core/files.h"
#include "arcscope/tokenizer/hf_tokenizer.h"
#include "arcscope/tokenizer/tokenizer.h"
#include "command.h"
#include "json_strings.h"
#include "json_writer.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

// GPT-2's tokenizer or a tokenizer.json one, behind the two calls this command makes.
struct AnyTokenizer {
    std::optional<Tokenizer> gpt2;
    std::optional<HfTokenizer> hf;
    bool special = false;

    std::vector<int> encode(const std::string& text) const {
        return hf ? hf->encode(text, special) : gpt2->encode(text);
    }
    std::string token_text(int id) const { return hf ? hf->token_text(id) : gpt2->token_text(id); }
};

// A folder or a .json file is Hugging Face's tokenizer; anything else GPT-2's own file.
bool is_hugging_face(const std::string& path) {
    struct stat st {};
    const bool folder = stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    return folder || (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0);
}

int print_tokens(const AnyTokenizer& tok, const std::string& text) {
    std::vector<int> ids = tok.encode(text);
    JsonWriter w;
    w.open_object().field("ids", ids).key("tokens").open_array();
    for (int id : ids) w.string(tok.token_text(id));
    w.close_array().close_object().print();
    return 0;
}

int print_stats(const AnyTokenizer& fresh, const std::string& text, long repeat) {
    using clock = std::chrono::steady_clock;
    auto seconds = [&](const AnyTokenizer& tok, size_t& count) {
        auto t0 = clock::now();
        count = tok.encode(text).size();
        return std::chrono::duration<double>(clock::now() - t0).count();
    };
    size_t count = 0;
    const double cold = seconds(fresh, count);  // the word cache starts empty
    double warm = 1e300;
    for (long r = 0; r < repeat; ++r) warm = std::min(warm, seconds(fresh, count));
    JsonWriter w;
    w.open_object().field("bytes", text.size()).field("tokens", count).field("cold_seconds", cold, 6);
    w.field("warm_seconds", warm, 6).close_object().print();
    return 0;
}

int run_jsonl(const AnyTokenizer& tok) {
    std::string line;
    for (long number = 1; std::getline(std::cin, line); ++number) {
        std::string text;
        try {
            text = json_unquote(line);
        } catch (const Error& e) {
            throw Error("stdin line " + std::to_string(number) + ": " + e.what());
        }
        JsonWriter w;
        w.open_object().field("ids", tok.encode(text)).close_object().print();
    }
    std::fflush(stdout);
    return 0;
}

int run(const Args& args) {
    int sources = int(args.has("text")) + int(args.has("file")) + int(args.has("jsonl"));
    require(sources == 1, "give exactly one of --text TEXT, --file PATH, --jsonl");
    require(!args.has("stats") || !args.has("jsonl"), "--stats goes with --text or --file");
    long long repeat = args.get_int("repeat", 3, 1, 1000);
    require(repeat >= 1 && repeat <= 1000, "--repeat must be in [1, 1000]");

    AnyTokenizer tok;
    const std::optional<std::string> path = args.get("tokenizer");
    if (path && is_hugging_face(*path)) tok.hf.emplace(HfTokenizer::load(*path));
    else tok.gpt2.emplace(load_tokenizer(args));
    tok.special = args.has("special");
    require(!tok.special || tok.hf, "--special goes with a Hugging Face tokenizer (GPT-2's adds no special tokens)");
    if (args.has("jsonl")) return run_jsonl(tok);
    std::string text = args.has("text") ? args.require("text") : read_file_text(args.require("file"));
    return args.has("stats") ? print_stats(tok, text, repeat) : print_tokens(tok, text);
}

const bool registered = register_command(
    "tokenize", {"tokenize (--text TEXT | --file PATH | --jsonl) [--tokenizer FILE_OR_FOLDER] [--special] "
                 "[--stats [--repeat N]]",
                 run});

}  // namespace
}  // namespace arcscope::cli
