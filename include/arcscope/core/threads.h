// threads.h: the engine's worker threads. Matrix products split their output rows over them; each row is computed
// by the same code whichever thread runs it, so results are the same bits with any number of threads.
// One thread (the caller's) by default. The browser's threaded module (SharedArrayBuffer, only on cross-origin
// isolated pages) and native builds can use more; the plain wasm module always runs on one.
#pragma once
#include <functional>

namespace arcscope {

// Up to kMaxThreads, counting the caller's; fewer if the build has no threads. Returns the number in use.
constexpr int kMaxThreads = 4;
int set_threads(int n);
int threads();

// Calls body(begin, end) over [0, n) split in contiguous parts, one per thread, and returns when all are done.
// work: about how many multiply-adds the whole loop does; below kParallelWork it runs on the caller alone, since
// waking the other threads costs more than they would save. body must not throw.
constexpr double kParallelWork = 1 << 18;
void parallel_for(int n, double work, const std::function<void(int begin, int end)>& body);

}  // namespace arcscope
