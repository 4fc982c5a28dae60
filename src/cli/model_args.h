// model_args.h: what the model commands (info, run, generate) share: loading --model and its tokenizer.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "arcscope/gpt2.h"
#include "arcscope/tokenizer.h"
#include "command.h"

namespace arcscope::cli {

// --model FILE, validated and ready to run.
std::unique_ptr<GPT2> load_model(const Args& args);

// --tokenizer PATH, else gpt2-tokenizer.bin beside --model's file (where the converter's users put it), else the
// one beside this executable (the build makes it there).
Tokenizer load_tokenizer(const Args& args);

// "1,2,3" -> {1, 2, 3}; throws Error on anything else.
std::vector<int> parse_ids(const std::string& text);

}  // namespace arcscope::cli
