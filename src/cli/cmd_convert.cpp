// cmd_convert.cpp: `arcscope convert`, a Hugging Face checkpoint of GPT-2, GPT-NeoX, Llama, Qwen2 or Qwen3
// (DIR/config.json + DIR/model.safetensors, or model.safetensors.index.json and its shards) -> an .arcs model file,
// streamed. It says which architecture it read (config.json's model_type), and which tokenizer files the model
// carries (DIR/tokenizer.json and tokenizer_config.json, for any but GPT-2, whose tokenizer is built in). Without
// --dtype: the default format for the checkpoint's shape (default_format.h: q16, or q8 where q16's file would pass 2
// GiB).
#include <cstdio>
#include <optional>

#include "arcscope/core/error.h"
#include "arcscope/formats/convert.h"
#include "arcscope/formats/model_file.h"
#include "command.h"

namespace arcscope::cli {
namespace {

int run(const Args& args) {
    const std::optional<std::string> asked = args.get("dtype");
    const std::optional<DType> dtype = asked ? std::optional<DType>(parse_dtype(*asked, "--dtype")) : std::nullopt;
    const ConvertedFile out = convert_checkpoint_dir(args.require("in"), args.require("out"), dtype);
    std::printf("read %s\n", out.config.describe().c_str());
    std::printf("wrote %s (%s, %llu bytes, %s%s)\n", args.require("out").c_str(), human_bytes(out.bytes).c_str(),
                (unsigned long long)out.bytes, dtype_name(out.dtype), asked ? "" : ": the default for this shape");
    if (!out.config.is_plain_gpt2()) {
        std::string carried;
        for (const std::string& name : out.carried) carried += (carried.empty() ? "" : ", ") + name;
        std::printf(carried.empty() ? "it carries no tokenizer: %s has no tokenizer.json, so give it token ids\n"
                                    : "it carries its tokenizer: %s\n",
                    carried.empty() ? args.require("in").c_str() : carried.c_str());
    }
    return 0;
}

const bool registered = register_command("convert", {"convert --in DIR --out FILE [--dtype q8|q16|f32]", run});

}  // namespace
}  // namespace arcscope::cli
