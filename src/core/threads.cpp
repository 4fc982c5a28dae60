// threads.cpp: a small pool of workers that wait for the next parallel_for, spinning briefly first (a forward pass
// asks for one every few hundred microseconds) and then sleeping.
#include "arcscope/core/threads.h"

#include <algorithm>

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define ARCSCOPE_NO_THREADS 1
#endif

#ifndef ARCSCOPE_NO_THREADS
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace arcscope {

#ifdef ARCSCOPE_NO_THREADS

int set_threads(int) {
    return 1;
}
int threads() {
    return 1;
}
void parallel_for(int n, double, const std::function<void(int, int)>& body) {
    if (n > 0) body(0, n);
}

#else

namespace {

constexpr int kSpins = 100000;  // some 100 us of polling before a worker or the caller sleeps

class Pool {
public:
    ~Pool() { resize(1); }

    int size() const { return int(workers_.size()) + 1; }

    void resize(int n) {
        if (!workers_.empty()) {
            {
                std::lock_guard<std::mutex> lock(mutex_);
                stop_ = true;
            }
            wake_.notify_all();
            for (std::thread& t : workers_) t.join();
            workers_.clear();
            stop_ = false;
        }
        // Each worker starts from the generation of now, however late its thread gets going.
        const uint64_t now = generation_.load(std::memory_order_acquire);
        for (int i = 1; i < n; ++i) workers_.emplace_back([this, i, now] { work(i, now); });
    }

    void run(int n, const std::function<void(int, int)>& body) {
        body_ = &body;
        n_ = n;
        remaining_.store(int(workers_.size()), std::memory_order_relaxed);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            generation_.fetch_add(1, std::memory_order_release);
        }
        wake_.notify_all();
        part(0);
        for (int s = 0; s < kSpins && remaining_.load(std::memory_order_acquire) > 0; ++s) {
        }
        if (remaining_.load(std::memory_order_acquire) > 0) {
            std::unique_lock<std::mutex> lock(mutex_);
            done_.wait(lock, [&] { return remaining_.load(std::memory_order_acquire) == 0; });
        }
    }

private:
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::atomic<uint64_t> generation_{0};
    std::atomic<int> remaining_{0};
    bool stop_ = false;
    const std::function<void(int, int)>* body_ = nullptr;
    int n_ = 0;

    void part(int i) {
        const int parts = size();
        const int begin = int(int64_t(n_) * i / parts), end = int(int64_t(n_) * (i + 1) / parts);
        if (begin < end) (*body_)(begin, end);
    }

    void work(int i, uint64_t seen) {
        for (;;) {
            for (int s = 0; s < kSpins && generation_.load(std::memory_order_acquire) == seen; ++s) {
            }
            if (generation_.load(std::memory_order_acquire) == seen) {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_acquire) != seen; });
                if (stop_) return;
            }
            seen = generation_.load(std::memory_order_acquire);
            part(i);
            if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                std::lock_guard<std::mutex> lock(mutex_);
                done_.notify_one();
            }
        }
    }
};

Pool& pool() {
    static Pool p;
    return p;
}

}  // namespace

int set_threads(int n) {
    n = std::max(1, std::min(kMaxThreads, n));
    if (n != pool().size()) pool().resize(n);
    return pool().size();
}

int threads() {
    return pool().size();
}

void parallel_for(int n, double work, const std::function<void(int, int)>& body) {
    if (n <= 0) return;
    if (pool().size() == 1 || n == 1 || work < kParallelWork) return body(0, n);
    pool().run(n, body);
}

#endif

}  // namespace arcscope
