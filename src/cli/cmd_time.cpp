// cmd_time.cpp: `arcscope time`, how long the engine takes on this machine, as JSON: loading (read + validate +
// checksum), a forward pass over --tokens tokens with and without the attention capture (best and median of --repeat
// runs), and decoding --decode tokens one at a time through the KV cache, on --threads.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/core/threads.h"
#include "command.h"
#include "json_writer.h"
#include "model_args.h"

namespace arcscope::cli {
namespace {

double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

struct Stats {
    double best, median;
};
template <class F>
Stats timed(int repeat, F&& f) {
    std::vector<double> ms;
    for (int i = 0; i < repeat; ++i) {
        double t0 = now_ms();
        f();
        ms.push_back(now_ms() - t0);
    }
    std::sort(ms.begin(), ms.end());
    return {ms.front(), ms[ms.size() / 2]};
}

int run(const Args& args) {
    const int threads = set_threads(int(args.get_int("threads", 1, 1, kMaxThreads)));
    double t0 = now_ms();
    std::unique_ptr<Decoder> model = load_model(args);
    double load_ms = now_ms() - t0;
    const ModelConfig& c = model->config();
    int T = int(args.get_int("tokens", 64, 1, 1 << 16)), N = int(args.get_int("decode", 32, 0, 1 << 16)),
        R = int(args.get_int("repeat", 5, 1, 1000));
    require(T >= 1 && T <= c.n_ctx, "--tokens must be in [1, n_ctx]");
    require(N >= 0 && T + N <= c.n_ctx, "--tokens + --decode must fit in n_ctx");
    require(R >= 1 && R <= 1000, "--repeat must be in [1, 1000]");
    std::vector<int> ids(T);
    for (int i = 0; i < T; ++i) ids[i] = (i * 7919 + 13) % c.n_vocab;

    model->forward(ids.data(), T, ForwardOptions().with_attention());  // warm-up: buffers reach their size
    // Alternate the two so that machine noise hits both alike.
    std::vector<double> plain_ms, attention_ms;
    for (int r = 0; r < R; ++r) {
        plain_ms.push_back(timed(1, [&] { model->forward(ids.data(), T); }).best);
        attention_ms.push_back(
            timed(1, [&] { model->forward(ids.data(), T, ForwardOptions().with_attention()); }).best);
    }
    auto stats = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return Stats{v.front(), v[v.size() / 2]};
    };
    Stats plain = stats(plain_ms), with_attention = stats(attention_ms);
    Stats decode = timed(R, [&] {
        model->forward(ids.data(), T);
        for (int i = 0; i < N; ++i) model->append((i * 31 + 7) % c.n_vocab);
    });
    double decode_per_token = N ? (decode.best - plain.best) / N : 0;
    JsonWriter w;
    w.open_object().field("dtype", dtype_name(model->weight_type())).field("kernels", kernel_isa());
    w.field("kv_cache", kv_type_name(model->kv_type())).field("threads", threads);
    w.field("load_ms", load_ms, 1).field("tokens", T).field("forward_ms_best", plain.best, 2);
    w.field("forward_ms_median", plain.median, 2).field("forward_attention_ms_best", with_attention.best, 2);
    w.field("forward_attention_ms_median", with_attention.median, 2).field("decode_tokens", N);
    w.field("decode_ms_per_token", decode_per_token, 2).close_object().print();
    return 0;
}

const bool registered = register_command(
    "time", {"time --model FILE [--tokens 64] [--decode 32] [--repeat 5] [--kv-cache f32|f16] [--threads N]", run});

}  // namespace
}  // namespace arcscope::cli
