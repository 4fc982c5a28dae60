// cmd_info.cpp: `arcscope info --model FILE`: hyperparameters, weight type and sizes of a model file, as JSON.
#include <cstdio>

#include "arcscope/error.h"
#include "command.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

int run(const Args& args) {
    args.reject_unknown({"model"});
    std::unique_ptr<GPT2> model = load_model(args);
    const GPT2Config& c = model->config();
    const ModelFile& f = model->file();
    uint64_t params = 0, matrix_bytes = 0;
    for (const TensorEntry& t : f.tensors()) {
        params += uint64_t(t.rows) * (t.cols ? t.cols : 1);
        if (t.cols) matrix_bytes += t.size;
    }
    std::printf(
        "{\"n_layer\":%d,\"n_head\":%d,\"n_embd\":%d,\"n_ctx\":%d,\"n_vocab\":%d,\"layer_norm_epsilon\":%g,"
        "\"dtype\":\"%s\",\"tensors\":%zu,\"parameters\":%llu,\"file_bytes\":%zu,\"matrix_bytes\":%llu,"
        "\"checksum\":\"%016llx\"}\n",
        c.n_layer, c.n_head, c.n_embd, c.n_ctx, c.n_vocab, double(c.ln_eps), dtype_name(model->weight_type()),
        f.tensors().size(), (unsigned long long)params, f.size(), (unsigned long long)matrix_bytes,
        (unsigned long long)f.checksum());
    return 0;
}

const bool registered = register_command("info", {"info --model FILE", {}, run});

}  // namespace
}  // namespace arcscope::cli
