// diagnostics.cpp: the kernel diagnostics module (arcscope_diagnostics.js): the self-check and the timings of
// the q8/f32 kernels, for tests and benchmarks. The page never loads it.
// Every call goes through guarded() (js_values.h), so a C++ Error reaches JavaScript as an Error with its message.
#include "js_values.h"

#include <algorithm>

#include "arcscope/core/sizes.h"
#include "arcscope/diagnostics/quant_bench.h"
#include "arcscope/diagnostics/quant_check.h"
#include "arcscope/kernels/quant.h"

using emscripten::val;
using namespace arcscope::bindings;

namespace kernels {

// Every kernel of this build (SIMD128 or relaxed SIMD) against its scalar reference: {cases, q8MaxDiff,
// q8PortableMaxDiff, q8BitMismatches, q8Bits, the same for q16 and q16Full (16-bit q16), f32MaxDiff, ...}.
val check(double seed) {
    return guarded("checking the kernels", [&] {
        arcscope::KernelCheck c = arcscope::check_kernels(uint64_t(seed));
        val o = val::object();
        o.set("isa", val(arcscope::kernel_isa()));
        o.set("cases", c.cases);
        const std::pair<const char*, const arcscope::FormatCheck&> formats[] = {
            {"q8", c.q8}, {"q16", c.q16}, {"q16Full", c.q16_full}};
        for (const auto& [name, f] : formats) {
            const std::string n = name;
            o.set(n + "MaxDiff", f.max_diff);
            o.set(n + "PortableMaxDiff", f.portable_max_diff);
            o.set(n + "BitMismatches", f.bit_mismatches);
            o.set(n + "Bits", f.bits);
        }
        o.set("f32MaxDiff", c.f32_max_diff);
        o.set("activationMismatches", c.activation_mismatches);
        return o;
    });
}

// {bestMs, medianMs, gops, gbs, weightBytes} of linear_q/linear_f32 on random (rows, cols) weights and T tokens.
val bench_linear(std::string dtype, double rows, double cols, double T, double reps) {
    return guarded("timing a kernel", [&] {
        arcscope::KernelTiming k =
            arcscope::bench_linear(dtype.c_str(), int_arg(rows, "rows", 0, 1 << 20), int_arg(cols, "cols", 0, 1 << 20),
                                   int_arg(T, "T", 1, 4096), int_arg(reps, "reps", 1, 1000));
        val o = val::object();
        o.set("bestMs", k.best_ms);
        o.set("medianMs", k.median_ms);
        o.set("gops", k.gops);
        o.set("gbs", k.gbs);
        o.set("weightBytes", double(k.weight_bytes));
        return o;
    });
}

double bench_stream_read(double bytes, double reps) {
    return guarded("timing memory reads", [&] {
        return arcscope::bench_stream_read(arcscope::buffer_bytes("the read benchmark", uint64_t(std::max(0.0, bytes))),
                                           int_arg(reps, "reps", 1, 1000));
    });
}

std::string isa() {
    return arcscope::kernel_isa();
}

}  // namespace kernels

EMSCRIPTEN_BINDINGS(arcscope_kernels) {
    emscripten::function("kernelIsa", &kernels::isa);
    emscripten::function("checkKernels", &kernels::check);
    emscripten::function("benchLinear", &kernels::bench_linear);
    emscripten::function("benchStreamRead", &kernels::bench_stream_read);
}
