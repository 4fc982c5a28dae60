// model_args.h: what the model commands (info, run, generate) share: loading --model and its tokenizer.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arcscope/model/decoder.h"
#include "arcscope/tokenizer/tokenizer.h"
#include "command.h"
#include "json_writer.h"

namespace arcscope::cli {

// --model FILE, validated and ready to run.
// --model FILE, and --kv-cache f32|f16 where the command takes it.
std::unique_ptr<Decoder> load_model(const Args& args);

// --tokenizer PATH, else gpt2-tokenizer.bin beside --model's file (where the converter's users put it), else the
// one beside this executable (the build makes it there).
Tokenizer load_tokenizer(const Args& args);

// The tokenizer a model's text goes through: GPT-2's for a GPT-2 model (load_tokenizer's). The other architectures'
// own tokenizers are not read yet, so their commands take token ids, and text is an Error that says so (rather than
// GPT-2's ids, which would be other tokens in their vocabularies). --tokenizer PATH is taken as given.
class ModelTokenizer {
public:
    ModelTokenizer(const Args& args, const Decoder& model);
    const Tokenizer& get(const std::string& option) const;  // an Error naming the option when the model has none
    bool has() const { return tok_.has_value(); }
    std::string label(int id) const;  // the token's text, or "<id>"

private:
    std::optional<Tokenizer> tok_;
    std::string arch_;
};

// "1,2,3" -> {1, 2, 3}; throws Error on anything else.
std::vector<int> parse_ids(const std::string& text);

// The tokens of --<name> TEXT or --<name>-ids 1,2,3 (--text or --ids for "text"), exactly one of them.
std::vector<int> prompt_ids(const Args& args, const ModelTokenizer& tok, const std::string& name);

// The JSON to --out FILE, else to stdout (a newline after it).
void write_output(const Args& args, const JsonWriter& w);

// The one token of --<name> TEXT (" Mary") or --<name>-id N; an Error if the text is not exactly one token.
int single_token(const Args& args, const ModelTokenizer& tok, const std::string& name);

}  // namespace arcscope::cli
