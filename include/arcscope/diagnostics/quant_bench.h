// quant_bench.h: speed of the kernels on GPT-2's matrix shapes, and the streaming-read bandwidth of this build
// (the floor for decode, which reads every weight once per token). Shared by the CLI and the wasm module.
#pragma once
#include <cstddef>

namespace arcscope {

struct KernelTiming {
    double best_ms = 0;  // best of the repetitions
    double median_ms = 0;
    double gops = 0;  // 2 * rows * cols * T / best time (multiply and add each count)
    double gbs = 0;   // weight bytes read / best time
    size_t weight_bytes = 0;
};

// Times linear_q ("q8", "q16") or linear_f32 ("f32") on random weights (rows, cols) and T tokens.
KernelTiming bench_linear(const char* dtype, int rows, int cols, int T, int reps);

// Best GB/s of summing a buffer of `bytes` bytes, read once per repetition (as a GEMV reads its weights).
double bench_stream_read(size_t bytes, int reps);

}  // namespace arcscope
