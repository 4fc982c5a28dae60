// The native q8 kernels chosen at run time (use_q8_kernel): each against the scalar reference at the limits of its
// integers, each through the kernel check, and a forward pass whose logits have the same bits with either.
// Where the CPU lacks AVX512-VNNI only "int16" is listed, and the comparisons have one kernel to run.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "arcscope/core/error.h"
#include "arcscope/diagnostics/quant_check.h"
#include "arcscope/kernels/quant.h"
#include "arcscope/kernels/quant_layout.h"
#include "decoder_fixture.h"

using namespace arcscope;
using namespace arcscope::testing;

namespace {

// One q8 kernel for a test's scope; the one before it again however it ends.
struct UseQ8Kernel {
    std::string before = std::string(kernel_isa()) == "vnni-int8" ? "vnni-int8" : "int16";
    explicit UseQ8Kernel(const std::string& name) { use_q8_kernel(name); }
    ~UseQ8Kernel() { use_q8_kernel(before); }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST(Q8Kernels, TheDefaultComesFirstAndUnknownNamesAreRefused) {
    const std::vector<std::string> names = q8_kernels();
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names[0], "int16");
    std::printf("q8 kernels on this CPU: %s%s\n", names[0].c_str(), names.size() > 1 ? ", vnni-int8" : "");
    EXPECT_THROW(use_q8_kernel("vnni"), Error);
    EXPECT_THROW(use_q8_kernel(""), Error);
    for (const std::string& name : names) {
        UseQ8Kernel use(name);
        EXPECT_EQ(std::string(kernel_isa()) == "vnni-int8", name == "vnni-int8") << kernel_isa();
    }
}

// Weights at -128 and 127 (packed files hold [-127, 127]; the kernels must not care), activations at +-8191 (every
// input +-1 quantizes to the limit), the 7-bit parts' extremes (a + 8192 = 1 and 16383), random bytes, and odd sizes
// (padded rows and columns, every tile width). Each kernel's outputs: the reference's within float rounding, and the
// plain C++ kernel's bits.
TEST(Q8Kernels, EachMatchesTheReferenceAtTheLimits) {
    struct Shape {
        int rows, cols, T;
    };
    const Shape shapes[] = {{8, 32, 1}, {13, 45, 7}, {9, 100, 13}, {31, 1000, 3}, {17, 3072, 6}};
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> byte(-128, 127), sign(0, 1);
    for (const std::string& name : q8_kernels()) {
        UseQ8Kernel use(name);
        double worst = 0;
        int cases = 0;
        for (const Shape& s : shapes)
            for (int weights = 0; weights < 4; ++weights)  // all -128, all 127, alternating, random
                for (int acts = 0; acts < 3; ++acts) {     // +-1 (+-8191), one large among small (1 and -1), random
                    std::vector<float> w(size_t(s.rows) * s.cols, 0.01f), x(size_t(s.T) * s.cols);
                    std::vector<uint8_t> packed(q_packed_bytes(DType::Q8, s.rows, s.cols));
                    q_pack(DType::Q8, w.data(), s.rows, s.cols, packed.data());
                    const size_t records = packed.size() / kQ8.record_bytes;
                    for (size_t r = 0; r < records; ++r)
                        for (size_t k = 0; k < kQRowGroup * kQBlock; ++k) {
                            const int v = weights == 0   ? -128
                                          : weights == 1 ? 127
                                          : weights == 2 ? (k % 2 ? 127 : -128)
                                                         : byte(rng);
                            packed[r * kQ8.record_bytes + 4 * kQRowGroup + k] = uint8_t(int8_t(v));
                        }
                    for (size_t i = 0; i < x.size(); ++i)
                        x[i] = acts == 0 ? (sign(rng) ? 1.0f : -1.0f)
                               : acts == 1
                                   ? (i % kQBlock == 0 ? (sign(rng) ? 8191.0f : -8191.0f) : float(int(i % 3) - 1))
                                   : float(byte(rng)) / 16;
                    const QView view = q_view(DType::Q8, packed.data(), packed.size(), s.rows, s.cols);
                    std::vector<float> fast(size_t(s.T) * s.rows), plain(fast.size()), ref(fast.size());
                    linear_q(fast.data(), x.data(), s.T, view, nullptr);
                    detail::linear_q_portable(plain.data(), x.data(), s.T, view, nullptr);
                    linear_q_reference(ref.data(), x.data(), s.T, view, nullptr);
                    ASSERT_TRUE(same_bits(fast, plain)) << name << " rows " << s.rows << " cols " << s.cols << " T "
                                                        << s.T << " weights " << weights << " activations " << acts;
                    double largest = 0, diff = 0;
                    for (size_t i = 0; i < ref.size(); ++i) {
                        largest = std::max(largest, std::fabs(double(ref[i])));
                        diff = std::max(diff, std::fabs(double(fast[i]) - ref[i]));
                    }
                    worst = std::max(worst, diff / largest);
                    ++cases;
                }
        std::printf(
            "[%s] %d cases at the limits: the plain kernel's bits, largest diff to the reference %.3g of its largest "
            "output\n",
            name.c_str(), cases, worst);
        EXPECT_LT(worst, 1e-5);  // only the order of f32 additions differs (a wrong integer shows in the bits above)
    }
}

// check_kernels' random shapes with each kernel: the same q8 output bits (its hash), none differing from the plain
// kernel's.
TEST(Q8Kernels, EachGivesTheKernelChecksBits) {
    std::vector<uint32_t> hashes;
    for (const std::string& name : q8_kernels()) {
        UseQ8Kernel use(name);
        const KernelCheck c = check_kernels(4);
        std::printf("[%s] q8 bits %08x, largest diff %.3g\n", name.c_str(), c.q8.bits, c.q8.max_diff);
        EXPECT_EQ(c.q8.bit_mismatches, 0) << name;
        EXPECT_LT(c.q8.max_diff, 1e-4) << name;
        hashes.push_back(c.q8.bits);
    }
    for (uint32_t h : hashes) EXPECT_EQ(h, hashes[0]);
}

// A q8 model's logits, a prompt of 40 tokens (every position) and two KV-cache steps, the same bits with each kernel.
TEST(Q8Kernels, ForwardPassLogitsHaveTheSameBits) {
    Loaded m = load_tiny(DType::Q8);
    const int vocab = m.model->config().n_vocab;
    const std::vector<int> ids = some_ids(40, vocab);
    std::vector<std::vector<float>> runs;
    for (const std::string& name : q8_kernels()) {
        UseQ8Kernel use(name);
        m.model->forward(ids.data(), int(ids.size()), ForwardOptions().with_all_logits());
        std::vector<float> logits(m.model->logits(), m.model->logits() + ids.size() * vocab);
        for (int id : {5, 77}) {
            m.model->append(id);
            logits.insert(logits.end(), m.model->logits(), m.model->logits() + vocab);
        }
        runs.push_back(std::move(logits));
    }
    std::printf("%zu logits compared across %zu q8 kernels\n", runs[0].size(), runs.size());
    for (const auto& r : runs) EXPECT_TRUE(same_bits(r, runs[0]));
}
