// quant_reference.cpp: the plain scalar products every kernel is tested against.
#include <vector>

#include "arcscope/kernels/quant.h"
#include "arcscope/kernels/quant_layout.h"

namespace arcscope {

// out (T, rows) = x (T, cols) . W^T + bias, block by block: int32 dot of the integer values, times both scales.
void linear_q_reference(float* out, const float* x, int T, const QView& w, const float* bias) {
    const QFormat& f = w.format();
    std::vector<int16_t> xq(size_t(w.blocks()) * kQBlock);
    std::vector<float> xs(w.blocks());
    for (int t = 0; t < T; ++t) {
        const float* xt = x + size_t(t) * w.cols;
        for (int b = 0; b < w.blocks(); ++b) {
            const int n = std::min(kQBlock, w.cols - b * kQBlock);
            xs[b] = detail::kernel_scale(
                f, detail::quantize_block(xt + b * kQBlock, n, &xq[size_t(b) * kQBlock], f.activation_max));
        }
        for (int row = 0; row < w.rows; ++row) {
            float acc = 0.0f;
            for (int b = 0; b < w.blocks(); ++b) {
                const uint8_t* rec = detail::record(w, row, b * kQBlock);
                const int r = row % kQRowGroup;
                const int n = std::min(kQBlock, w.cols - b * kQBlock);
                // In 64 bits, so that an overflow of the kernels' int32 sums would show as a difference. Column
                // pairs as the kernels pair them, each shifted (floor) as 16-bit q16 shifts it (quant.h).
                int64_t s = 0;
                for (int k = 0; k < n; k += 2) {
                    int64_t pair = int64_t(xq[size_t(b) * kQBlock + k]) * detail::record_q(f, rec, r, k);
                    if (k + 1 < n)
                        pair += int64_t(xq[size_t(b) * kQBlock + k + 1]) * detail::record_q(f, rec, r, k + 1);
                    s += pair >> f.pair_shift;
                }
                acc += float(s) * (detail::record_scale(rec, r) * xs[b]);
            }
            out[size_t(t) * w.rows + row] = acc + (bias ? bias[row] : 0.0f);
        }
    }
}

// out (T, rows) = x (T, cols) . W^T + bias, one dot product at a time, accumulated in double.
void linear_f32_reference(float* out, const float* x, int T, const float* w, int rows, int cols, const float* bias) {
    for (int t = 0; t < T; ++t)
        for (int r = 0; r < rows; ++r) {
            double acc = 0.0;
            for (int k = 0; k < cols; ++k) acc += double(x[size_t(t) * cols + k]) * w[size_t(r) * cols + k];
            out[size_t(t) * rows + r] = float(acc + (bias ? bias[r] : 0.0f));
        }
}

}  // namespace arcscope
