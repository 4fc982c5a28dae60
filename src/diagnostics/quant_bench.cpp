// quant_bench.cpp: kernel timings and streaming-read bandwidth (see quant_bench.h).
#include "arcscope/diagnostics/quant_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/kernels/quant.h"

namespace arcscope {

namespace {

double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

template <class F>
std::vector<double> time_runs(int reps, F&& f) {
    f();  // warm up: scratch grows, pages are touched
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        const double t0 = now_ms();
        f();
        ms.push_back(now_ms() - t0);
    }
    std::sort(ms.begin(), ms.end());
    return ms;
}

}  // namespace

KernelTiming bench_linear(const char* dtype, int rows, int cols, int T, int reps) {
    const DType type = parse_dtype(dtype, "bench dtype");
    require(rows > 0 && cols > 0 && T > 0 && reps > 0, "bench needs positive rows, cols, T and reps");
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(size_t(T) * cols), out(size_t(T) * rows), bias(rows, 0.1f);
    for (float& v : x) v = normal(rng);
    std::vector<float> w(size_t(rows) * cols);
    for (float& v : w) v = normal(rng) * 0.03f;

    std::vector<double> ms;
    size_t bytes = 0;
    if (type != DType::F32) {
        std::vector<uint8_t> packed(q_packed_bytes(type, rows, cols));
        q_pack(type, w.data(), rows, cols, packed.data());
        w = {};
        const QView view = q_view(type, packed.data(), packed.size(), rows, cols);
        bytes = packed.size();
        ms = time_runs(reps, [&] { linear_q(out.data(), x.data(), T, view, bias.data()); });
    } else {
        bytes = w.size() * sizeof(float);
        ms = time_runs(reps, [&] { linear_f32(out.data(), x.data(), T, w.data(), rows, cols, bias.data()); });
    }
    KernelTiming r;
    r.best_ms = ms.front();
    r.median_ms = ms[ms.size() / 2];
    r.weight_bytes = bytes;
    r.gops = 2.0 * rows * cols * T / (r.best_ms * 1e6);
    r.gbs = double(bytes) / (r.best_ms * 1e6);
    return r;
}

double bench_stream_read(size_t bytes, int reps) {
    require(bytes >= 256 && reps > 0, "bench needs at least 256 bytes and one repetition");
    // 16-byte vectors (SIMD128 in wasm, SSE/AVX natively), 8 independent sums so loads set the pace.
    typedef uint32_t u32x4 __attribute__((vector_size(16)));
    const size_t n = bytes / sizeof(u32x4) / 8 * 8;
    std::vector<u32x4> buf(n);
    for (size_t i = 0; i < n; ++i) buf[i] = u32x4{uint32_t(i), uint32_t(i * 3), uint32_t(i * 5), uint32_t(i * 7)};
    volatile uint32_t sink = 0;
    auto ms = time_runs(reps, [&] {
        u32x4 s[8] = {};
        for (size_t i = 0; i < n; i += 8)
            for (int j = 0; j < 8; ++j) s[j] += buf[i + j];
        for (int j = 1; j < 8; ++j) s[0] ^= s[j];
        sink = sink + s[0][0] + s[0][1] + s[0][2] + s[0][3];
    });
    return double(n * sizeof(u32x4)) / (ms.front() * 1e6);
}

}  // namespace arcscope
