// model_args.cpp: shared loading and parsing for the model commands.
#include "model_args.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "arcscope/core/error.h"
#include "arcscope/core/files.h"

namespace arcscope::cli {

std::unique_ptr<Decoder> load_model(const Args& args) {
    std::unique_ptr<Decoder> model = Decoder::load(args.require("model"));
    if (auto kv = args.get_if_declared("kv-cache")) model->set_kv_type(parse_kv_type(*kv));
    return model;
}

namespace {

std::string folder_of(const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string executable_folder() {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    return n > 0 ? folder_of(std::string(exe, size_t(n))) : std::string();
}

}  // namespace

Tokenizer load_tokenizer(const Args& args) {
    if (auto path = args.get("tokenizer")) return Tokenizer::load(*path);
    const std::string name = "gpt2-tokenizer.bin";
    if (auto model = args.get_if_declared("model")) {
        std::string beside = folder_of(*model) + name;
        if (std::ifstream(beside).good()) return Tokenizer::load(beside);
    }
    return Tokenizer::load(executable_folder() + name);  // load() names the path in its error
}

ModelTokenizer::ModelTokenizer(const Args& args, const Decoder& model) : arch_(arch_name(model.config().arch)) {
    if (args.get("tokenizer") || model.config().arch == Arch::gpt2) tok_ = load_tokenizer(args);
}

const Tokenizer& ModelTokenizer::get(const std::string& option) const {
    require(tok_.has_value(), option + ": this " + arch_ +
                                  " model's own tokenizer is not read yet (arcscope reads GPT-2's): give token ids "
                                  "instead");
    return *tok_;
}

std::string ModelTokenizer::label(int id) const {
    if (tok_ && id < tok_->vocab_size()) return tok_->token_text(id);
    return "<" + std::to_string(id) + ">";
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

std::vector<int> prompt_ids(const Args& args, const ModelTokenizer& tok, const std::string& name) {
    const std::string ids = name == "text" ? "ids" : name + "-ids";  // --text/--ids as in run, else --clean-ids
    require(args.has(name) != args.has(ids), "give exactly one of --" + name + " TEXT or --" + ids + " 1,2,3");
    return args.has(name) ? tok.get("--" + name).encode(args.require(name)) : parse_ids(args.require(ids));
}

void write_output(const Args& args, const JsonWriter& w) {
    const std::string out = w.text() + "\n";
    if (auto path = args.get("out")) write_file(*path, out.data(), out.size());
    else std::fwrite(out.data(), 1, out.size(), stdout);
}

int single_token(const Args& args, const ModelTokenizer& tok, const std::string& name) {
    require(args.has(name) != args.has(name + "-id"), "give exactly one of --" + name + " TEXT or --" + name + "-id N");
    if (args.has(name + "-id"))
        return int(parse_integer(args.require(name + "-id"), 0, INT32_MAX, "--" + name + "-id"));
    return tok.get("--" + name).single_token(args.require(name), "--" + name);
}

}  // namespace arcscope::cli
