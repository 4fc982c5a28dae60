// model_args.cpp: shared loading and parsing for the model commands.
#include "model_args.h"

#include <fstream>

#include "arcscope/error.h"

namespace arcscope::cli {

std::unique_ptr<GPT2> load_model(const Args& args) { return GPT2::load(args.require("model")); }

Tokenizer load_tokenizer(const Args& args) {
    if (auto path = args.get("tokenizer")) return Tokenizer::load(*path);
    std::string model = args.require("model");
    size_t slash = model.find_last_of('/');
    std::string beside = (slash == std::string::npos ? std::string() : model.substr(0, slash + 1)) +
                         "gpt2-tokenizer.bin";
    if (std::ifstream(beside).good()) return Tokenizer::load(beside);
    return Tokenizer::load("models/gpt2-tokenizer.bin");
}

std::vector<int> parse_ids(const std::string& text) {
    std::vector<int> ids;
    size_t at = 0;
    while (at <= text.size()) {
        size_t comma = text.find(',', at);
        std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        ids.push_back(int(parse_integer(item, 0, INT32_MAX, "--ids (comma-separated token ids)")));
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return ids;
}

}  // namespace arcscope::cli
