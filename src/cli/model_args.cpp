// model_args.cpp: shared loading and parsing for the model commands.
#include "model_args.h"

#include <unistd.h>

#include <algorithm>
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
    const ModelFile& file = model.file();
    const std::optional<std::string> path = args.get("tokenizer");
    const bool gpt2_file = path && path->size() >= 4 && path->compare(path->size() - 4, 4, ".bin") == 0;
    if (path && !gpt2_file) carried_ = HfTokenizer::load(*path);
    else if (path || model.config().is_plain_gpt2()) gpt2_ = load_tokenizer(args);
    else if (!file.tokenizer_json().empty())
        carried_ = HfTokenizer::from_json(file.tokenizer_json(), file.tokenizer_config());
}

std::vector<int> ModelTokenizer::encode(const std::string& option, std::string_view text) const {
    if (gpt2_) return gpt2_->encode(text);
    require(carried_.has_value(), option + ": this " + arch_ +
                                      " model carries no tokenizer: give token ids, or --tokenizer FILE_OR_FOLDER "
                                      "(its tokenizer.json), or convert it again with tokenizer.json beside the "
                                      "checkpoint");
    return carried_->encode(text);
}

int ModelTokenizer::single_token(const std::string& option, std::string_view text) const {
    return only_token(encode(option, text), text, option);
}

int ModelTokenizer::end_of_text() const {
    return gpt2_ ? kEndOfText : carried_ ? carried_->eos_id() : -1;
}

int ModelTokenizer::vocab_size() const {
    return gpt2_ ? gpt2_->vocab_size() : carried_ ? carried_->vocab_size() : 0;
}

std::string ModelTokenizer::text(const std::vector<int>& ids) const {
    const int n = vocab_size();
    if (n && std::all_of(ids.begin(), ids.end(), [&](int id) { return id >= 0 && id < n; }))
        return gpt2_ ? gpt2_->decode(ids) : carried_->decode(ids);
    std::string s;
    for (int id : ids) s += label(id);
    return s;
}

std::string ModelTokenizer::label(int id) const {
    if (id < 0 || id >= vocab_size()) return "<" + std::to_string(id) + ">";
    return gpt2_ ? gpt2_->token_text(id) : carried_->token_text(id);
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
    return args.has(name) ? tok.encode("--" + name, args.require(name)) : parse_ids(args.require(ids));
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
    return tok.single_token("--" + name, args.require(name));
}

}  // namespace arcscope::cli
