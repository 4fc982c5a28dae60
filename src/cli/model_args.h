// model_args.h: what the model commands (info, run, generate) share: loading --model and its tokenizer.
#pragma once
#include <memory>
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

// "1,2,3" -> {1, 2, 3}; throws Error on anything else.
std::vector<int> parse_ids(const std::string& text);

// The tokens of --<name> TEXT or --<name>-ids 1,2,3 (--text or --ids for "text"), exactly one of them.
std::vector<int> prompt_ids(const Args& args, const Tokenizer& tok, const std::string& name);

// The JSON to --out FILE, else to stdout (a newline after it).
void write_output(const Args& args, const JsonWriter& w);

// The one token of --<name> TEXT (" Mary") or --<name>-id N; an Error if the text is not exactly one token.
int single_token(const Args& args, const Tokenizer& tok, const std::string& name);

}  // namespace arcscope::cli
