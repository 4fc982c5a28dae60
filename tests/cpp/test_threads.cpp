// test_threads.cpp: parallel_for splits a range exactly, and the matrix products and the forward pass give the same
// bits on 1 to kMaxThreads threads (each output row is computed by the same code whichever thread runs it).
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "arcscope/core/random.h"
#include "arcscope/core/threads.h"
#include "arcscope/kernels/quant.h"
#include "arcscope/model/decoder.h"
#include "decoder_fixture.h"

using namespace arcscope;
using namespace arcscope::testing;

namespace {

std::vector<float> random_values(size_t n, uint64_t seed) {
    Random rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = float(rng.normal());
    return v;
}
}  // namespace

TEST(Threads, ParallelForCoversEveryIndexOnce) {
    for (int t = 1; t <= kMaxThreads; ++t) {
        Threads threads(t);
        for (int n : {0, 1, 3, 7, 1000}) {
            std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
            for (int repeat = 0; repeat < 50; ++repeat)
                parallel_for(n, kParallelWork, [&](int begin, int end) {
                    for (int i = begin; i < end; ++i) seen[size_t(i)].fetch_add(1);
                });
            for (int i = 0; i < n; ++i) ASSERT_EQ(seen[size_t(i)].load(), 50) << t << " threads, n " << n;
        }
    }
    {  // too little work to share: the caller does it all
        Threads threads(2);
        int calls = 0;
        parallel_for(10, kParallelWork / 2, [&](int begin, int end) { calls += begin == 0 && end == 10; });
        EXPECT_EQ(calls, 1);
    }
    EXPECT_EQ(set_threads(99), kMaxThreads);
    EXPECT_EQ(set_threads(0), 1);
}

TEST(Threads, MatrixProductsAreTheSameBitsOnAnyNumberOfThreads) {
    const int rows = 200, cols = 1400;  // 25 row groups: uneven parts; enough work to share even at T = 1
    const std::vector<float> w = random_values(size_t(rows) * cols, 3), bias = random_values(rows, 4);
    std::vector<uint8_t> packed(q_packed_bytes(DType::Q8, rows, cols));
    q_pack(DType::Q8, w.data(), rows, cols, packed.data());
    const QView q8 = q_view(DType::Q8, packed.data(), packed.size(), rows, cols);
    for (int T : {1, 5, 70}) {
        const std::vector<float> x = random_values(size_t(T) * cols, 5);
        std::vector<float> q_one(size_t(T) * rows), f_one(size_t(T) * rows);
        linear_q(q_one.data(), x.data(), T, q8, bias.data());
        linear_f32(f_one.data(), x.data(), T, w.data(), rows, cols, bias.data());
        for (int t = 2; t <= kMaxThreads; ++t) {
            Threads threads(t);
            std::vector<float> q(size_t(T) * rows), f(size_t(T) * rows);
            linear_q(q.data(), x.data(), T, q8, bias.data());
            linear_f32(f.data(), x.data(), T, w.data(), rows, cols, bias.data());
            EXPECT_EQ(q, q_one) << "q8, T " << T << ", " << t << " threads";
            EXPECT_EQ(f, f_one) << "f32, T " << T << ", " << t << " threads";
        }
    }
}

TEST(Threads, ForwardPassIsTheSameBitsOnThreeThreads) {
    // Wide enough and long enough that the products and the attention rows are shared (kParallelWork). GPT-2, and a
    // grouped Llama whose q16 is 16-bit.
    ModelConfig llama = tiny_arch_config(Arch::llama);
    llama.n_embd = 256, llama.n_head = 4, llama.n_kv_head = 2, llama.d_head = llama.rotary_dim = 64;
    llama.d_mlp = 512, llama.n_ctx = 128;
    for (const ModelConfig& c : {gpt2_config(2, 4, 256, 128, 300), llama})
        for (DType dtype : {DType::Q8, DType::Q16, DType::F32}) {
            Loaded m(random_model_bytes(c, dtype, 2));
            Decoder& g = *m.model;
            const int T = 100;
            std::vector<int> ids(T);
            for (int i = 0; i < T; ++i) ids[i] = (i * 37 + 5) % 300;
            g.forward(ids.data(), T, ForwardOptions().with_attention().with_all_logits());
            const std::vector<float> logits(g.logits(), g.logits() + size_t(T) * g.config().n_vocab);
            const std::vector<float> att(g.attention(), g.attention() + g.attention_values());
            Threads threads(3);
            g.forward(ids.data(), T, ForwardOptions().with_attention().with_all_logits());
            EXPECT_EQ(std::vector<float>(g.logits(), g.logits() + logits.size()), logits);
            EXPECT_EQ(std::vector<float>(g.attention(), g.attention() + att.size()), att);
            g.forward(ids.data(), T - 1);  // and one token through the KV cache
            g.append(ids[T - 1]);
            EXPECT_EQ(std::vector<float>(g.logits(), g.logits() + g.config().n_vocab),
                      std::vector<float>(logits.end() - g.config().n_vocab, logits.end()));
        }
}
