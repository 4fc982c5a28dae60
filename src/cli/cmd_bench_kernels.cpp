// cmd_bench_kernels.cpp: `arcscope bench-kernels`, the kernels on GPT-2 small's five matrix shapes, native.
// scripts/bench_kernels.sh prints the same table for the wasm module in Node next to it.
#include <cstdio>
#include <string>

#include "arcscope/diagnostics/quant_bench.h"
#include "arcscope/kernels/quant.h"
#include "command.h"

namespace arcscope::cli {
namespace {

int run(const Args& args) {
    const int reps = int(args.get_int("reps", 5, 1, 1000));
    const int tokens[] = {int(args.get_int("t1", 1, 1, 4096)), int(args.get_int("t2", 64, 1, 4096))};
    // (in_features x out_features) as GPT-2 names them; the kernels see rows = out, cols = in.
    const int shapes[][2] = {{768, 2304}, {768, 768}, {768, 3072}, {3072, 768}, {768, 50257}};
    std::string q8_choices;
    for (const std::string& name : q8_kernels()) q8_choices += (q8_choices.empty() ? "" : ", ") + name;
    std::printf("kernels: %s (native); q8 kernels on this CPU: %s (ARCSCOPE_Q8_KERNEL=name picks one)\n", kernel_isa(),
                q8_choices.c_str());
    std::printf(
        "| dtype | shape (in x out) | T | best ms | median ms | GOP/s | GB/s |\n|---|---|---|---|---|---|---|\n");
    for (const char* dtype : {"q8", "q16", "f32"})
        for (const auto& s : shapes)
            for (int T : tokens) {
                KernelTiming k = bench_linear(dtype, s[1], s[0], T, reps);
                std::printf("| %s | %dx%d | %d | %.3f | %.3f | %.1f | %.2f |\n", dtype, s[0], s[1], T, k.best_ms,
                            k.median_ms, k.gops, k.gbs);
                std::fflush(stdout);
            }
    const size_t floor_bytes = 124u << 20;  // about GPT-2 small's int8 weights, read once per decoded token
    std::printf("streaming read over %zu MB: %.2f GB/s\n", floor_bytes >> 20, bench_stream_read(floor_bytes, reps));
    return 0;
}

const bool registered = register_command("bench-kernels", {"bench-kernels [--reps N] [--t1 1] [--t2 64]", run});

}  // namespace
}  // namespace arcscope::cli
