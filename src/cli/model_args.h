// model_args.h: what the model commands (info, run, generate) share: loading --model and its tokenizer.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arcscope/model/decoder.h"
#include "arcscope/tokenizer/hf_tokenizer.h"
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

// The tokenizer a model's text goes through: GPT-2's for a GPT-2 model (load_tokenizer's), the one the file carries
// for the others (tokenizer.json, read as Hugging Face reads it), or --tokenizer PATH as given (GPT-2's .bin, or a
// tokenizer.json or the folder that holds it). A model with none takes token ids; text is then an Error saying so.
class ModelTokenizer {
public:
    ModelTokenizer(const Args& args, const Decoder& model);
    bool has() const { return gpt2_.has_value() || carried_.has_value(); }
    // text -> ids, without special tokens (Hugging Face's add_special_tokens=False); an Error naming the option when
    // the model has no tokenizer.
    std::vector<int> encode(const std::string& option, std::string_view text) const;
    // The one token `text` is (" Mary"), else an Error naming the option.
    int single_token(const std::string& option, std::string_view text) const;
    // ids -> their text, where the tokenizer has every one of them; else each token's label.
    std::string text(const std::vector<int>& ids) const;
    std::string label(int id) const;  // the token's text, or "<id>"
    // The token that ends a text: GPT-2's <|endoftext|>, the carried tokenizer's EOS, or -1 (none known).
    int end_of_text() const;

private:
    std::optional<Tokenizer> gpt2_;
    std::optional<HfTokenizer> carried_;
    std::string arch_;
    int vocab_size() const;
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
