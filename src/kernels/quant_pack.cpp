// quant_pack.cpp: f32 weights -> blocked int8 records (layout in quant.h), and reading them back.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "arcscope/error.h"
#include "arcscope/quant.h"
#include "kernels/quant_layout.h"

namespace arcscope {

using detail::q_offset;
using detail::record;

size_t q8_packed_bytes(int rows, int cols) {
    require(rows > 0 && cols > 0,
            "q8 matrix needs positive dimensions, got [" + std::to_string(rows) + ", " + std::to_string(cols) + "]");
    size_t groups = (size_t(rows) + kQ8RowGroup - 1) / kQ8RowGroup;
    size_t blocks = (size_t(cols) + kQ8Block - 1) / kQ8Block;
    size_t n = groups * blocks * kQ8RecordBytes;
    return (n + kQ8Align - 1) / kQ8Align * kQ8Align;
}

void q8_pack(const float* w, int rows, int cols, uint8_t* out) {
    const size_t bytes = q8_packed_bytes(rows, cols);
    std::memset(out, 0, bytes);  // padding rows/cols stay zero (scale 0, q 0)
    const Q8View view{out, rows, cols};
    for (int row = 0; row < rows; ++row) {
        const float* src = w + size_t(row) * cols;
        for (int c0 = 0; c0 < cols; c0 += kQ8Block) {
            const int n = std::min(kQ8Block, cols - c0);
            float amax = 0.0f;
            for (int k = 0; k < n; ++k) {
                // The message is built only on failure: this loop runs once per weight.
                if (!std::isfinite(src[c0 + k]))
                    throw Error("weight at [" + std::to_string(row) + ", " + std::to_string(c0 + k) +
                                "] is not finite");
                amax = std::max(amax, std::fabs(src[c0 + k]));
            }
            const float scale = amax / 127.0f;
            uint8_t* rec = const_cast<uint8_t*>(record(view, row, c0));
            const int r = row % kQ8RowGroup;
            std::memcpy(rec + 4 * r, &scale, 4);
            if (amax == 0.0f) continue;
            for (int k = 0; k < n; ++k) {
                long q = std::lround(src[c0 + k] / scale);
                q = std::max(-127L, std::min(127L, q));
                rec[q_offset(r, k)] = static_cast<uint8_t>(static_cast<int8_t>(q));
            }
        }
    }
}

Q8View q8_view(const uint8_t* data, size_t bytes, int rows, int cols) {
    const size_t expected = q8_packed_bytes(rows, cols);
    require(data != nullptr, "q8 matrix has no data");
    require(bytes == expected, "q8 matrix [" + std::to_string(rows) + ", " + std::to_string(cols) + "] needs " +
                                   std::to_string(expected) + " bytes, got " + std::to_string(bytes));
    return Q8View{data, rows, cols};
}

float q8_weight(const Q8View& w, int row, int col) {
    require(row >= 0 && row < w.rows && col >= 0 && col < w.cols,
            "q8 index [" + std::to_string(row) + ", " + std::to_string(col) + "] outside [" + std::to_string(w.rows) +
                ", " + std::to_string(w.cols) + "]");
    const uint8_t* rec = record(w, row, col);
    float scale;
    std::memcpy(&scale, rec + 4 * (row % kQ8RowGroup), 4);
    return scale * static_cast<int8_t>(rec[q_offset(row % kQ8RowGroup, col % kQ8Block)]);
}

void q8_dequantize_row(const Q8View& w, int row, float* out) {
    require(row >= 0 && row < w.rows,
            "row " + std::to_string(row) + " outside a q8 matrix of " + std::to_string(w.rows) + " rows");
    const int r = row % kQ8RowGroup;
    for (int c0 = 0; c0 < w.cols; c0 += kQ8Block) {
        const uint8_t* rec = record(w, row, c0);
        float scale;
        std::memcpy(&scale, rec + 4 * r, 4);
        const int n = std::min(kQ8Block, w.cols - c0);
        for (int k = 0; k < n; ++k) out[c0 + k] = scale * static_cast<int8_t>(rec[q_offset(r, k)]);
    }
}

}  // namespace arcscope
