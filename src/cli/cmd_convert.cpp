// cmd_convert.cpp: `arcscope convert --in DIR --out FILE [--dtype q8|q16|f32]`: a Hugging Face GPT-2 checkpoint
// (DIR/config.json + DIR/model.safetensors) -> an .arcs model file, streamed.
#include <cstdio>

#include "arcscope/core/error.h"
#include "arcscope/formats/convert.h"
#include "arcscope/formats/model_file.h"
#include "command.h"

namespace arcscope::cli {
namespace {

int run(const Args& args) {
    const std::string dtype = args.get_or("dtype", "q8");
    uint64_t bytes = convert_checkpoint_dir(args.require("in"), args.require("out"), parse_dtype(dtype, "--dtype"));
    std::printf("wrote %s (%s, %llu bytes, %s)\n", args.require("out").c_str(), human_bytes(bytes).c_str(),
                (unsigned long long)bytes, dtype.c_str());
    return 0;
}

const bool registered = register_command("convert", {"convert --in DIR --out FILE [--dtype q8|q16|f32]", run});

}  // namespace
}  // namespace arcscope::cli
