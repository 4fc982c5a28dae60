// cmd_info.cpp: `arcscope info`, what a model file holds: hyperparameters, weight type, sizes and tokenizer, as JSON.
#include <cstdio>
#include <cstdlib>

#include "arcscope/core/error.h"
#include "arcscope/core/json.h"
#include "command.h"
#include "json_writer.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

int run(const Args& args) {
    std::unique_ptr<Decoder> model = load_model(args);
    const ModelConfig& c = model->config();
    const ModelFile& f = model->file();
    uint64_t params = 0, matrix_bytes = 0;
    for (const TensorEntry& t : f.tensors()) {
        params += uint64_t(t.rows) * (t.cols ? t.cols : 1);
        if (t.cols) matrix_bytes += t.size;
    }
    char checksum[17];
    std::snprintf(checksum, sizeof checksum, "%016llx", (unsigned long long)f.checksum());
    JsonWriter w;
    w.open_object().field("architecture", arch_name(c.arch));
    w.field("n_layer", c.n_layer).field("n_head", c.n_head).field("n_kv_head", c.kv_heads());
    w.field("d_head", c.head_dim()).field("n_embd", c.n_embd).field("d_mlp", c.mlp_width());
    w.field("n_ctx", c.n_ctx).field("n_vocab", c.n_vocab).field("norm", norm_name(c.norm));
    w.key("norm_eps")
        .number(std::strtod(float_text(c.norm_eps).c_str(), nullptr))
        .field("positions", positions_name(c.positions));
    if (c.rotary()) {
        w.field("rotary_dim", c.rotary_dim).field("rope_theta", c.rope_theta, -1);
        w.field("rope_scaling", rope_scaling_name(c.rope_scaling.kind));
    }
    w.field("mlp", mlp_name(c.mlp)).field("parallel_residual", c.parallel_residual);
    w.field("tied_head", c.tie_word_embeddings).field("qk_norm", c.qk_norm);
    const Precision precision = dtype_precision(model->weight_type());
    w.field("dtype", dtype_name(model->weight_type()))
        .field("weight_bits", precision.weight_bits)
        .field("activation_bits", precision.activation_bits)
        .field("tensors", f.tensors().size());
    w.field("parameters", (long long)params)
        .field("file_bytes", f.size())
        .field("matrix_bytes", (long long)matrix_bytes);
    // Whose tokenizer reads its text: GPT-2's built-in one, the one the file carries, or none (token ids only).
    const uint64_t carried = f.tokenizer_json().size() + f.tokenizer_config().size();
    w.field("tokenizer", c.is_plain_gpt2()            ? "gpt2"
                         : f.tokenizer_json().empty() ? "none"
                                                      : "carried")
        .field("tokenizer_bytes", (long long)carried);
    w.field("checksum", checksum).close_object().print();
    return 0;
}

const bool registered = register_command("info", {"info --model FILE", run});

}  // namespace
}  // namespace arcscope::cli
