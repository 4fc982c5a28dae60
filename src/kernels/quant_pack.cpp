// quant_pack.cpp: f32 weights -> blocked integer records (layout in quant.h), and reading them back.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "arcscope/core/error.h"
#include "arcscope/core/sizes.h"
#include "arcscope/kernels/quant.h"
#include "arcscope/kernels/quant_layout.h"

namespace arcscope {

using detail::q_offset;
using detail::record;

const char* dtype_name(DType t) {
    switch (t) {
        case DType::Q8:
            return "q8";
        case DType::Q16:
        case DType::Q16Full:
            return "q16";
        default:
            return "f32";
    }
}

Precision dtype_precision(DType t) {
    if (t == DType::F32) return {32, 32};
    // A limit of 2^(n-1) - 1 is n bits with the sign: 127 -> 8, 8191 -> 14, 32767 -> 16.
    auto bits = [](int limit) {
        int n = 1;
        while ((1 << (n - 1)) - 1 < limit) ++n;
        return n;
    };
    const QFormat& f = q_format(t);
    return {bits(f.weight_max), bits(f.activation_max)};
}

DType parse_dtype(const std::string& name, const char* what) {
    if (name == "q8") return DType::Q8;
    if (name == "q16") return DType::Q16;
    if (name == "f32") return DType::F32;
    throw Error(std::string(what) + " must be q8, q16 or f32, got '" + name + "'");
}

const QFormat& q_format(DType type) {
    require(type == DType::Q8 || type == DType::Q16 || type == DType::Q16Full,
            std::string("internal: ") + dtype_name(type) + " is not a packed format");
    return type == DType::Q16Full ? kQ16Full : type == DType::Q16 ? kQ16 : kQ8;
}

size_t q_packed_bytes(DType type, int rows, int cols) {
    const QFormat& f = q_format(type);
    require(rows > 0 && cols > 0, std::string(dtype_name(type)) + " matrix needs positive dimensions, got [" +
                                      std::to_string(rows) + ", " + std::to_string(cols) + "]");
    // In 64 bits, then checked against the address space: in wasm a q16 [2^20, 2048] (4.6 GB) wrapped to 268 MB.
    const uint64_t groups = (uint64_t(rows) + kQRowGroup - 1) / kQRowGroup;
    const uint64_t blocks = (uint64_t(cols) + kQBlock - 1) / kQBlock;
    // At most 2^28 groups x 2^26 blocks x 544 bytes: below 2^64.
    const uint64_t n = (groups * blocks * f.record_bytes + kQAlign - 1) / kQAlign * kQAlign;
    if (n > kMaxBufferBytes) {
        const uint64_t shape[] = {uint64_t(rows), uint64_t(cols)};
        buffer_bytes((std::string("a ") + dtype_name(type) + " matrix " + shape_text(shape, 2)).c_str(), n);
    }
    return size_t(n);
}

void q_pack(DType type, const float* w, int rows, int cols, uint8_t* out) {
    const QFormat& f = q_format(type);
    const size_t bytes = q_packed_bytes(type, rows, cols);
    std::memset(out, 0, bytes);  // padding rows/cols stay zero (scale 0, q 0)
    const QView view{out, rows, cols, type};
    const float limit = float(f.weight_max);
    for (int row = 0; row < rows; ++row) {
        const float* src = w + size_t(row) * cols;
        for (int c0 = 0; c0 < cols; c0 += kQBlock) {
            const int n = std::min(kQBlock, cols - c0);
            float amax = 0.0f;
            for (int k = 0; k < n; ++k) {
                // The message is built only on failure: this loop runs once per weight.
                if (!std::isfinite(src[c0 + k]))
                    throw Error("weight at [" + std::to_string(row) + ", " + std::to_string(c0 + k) +
                                "] is not finite");
                amax = std::max(amax, std::fabs(src[c0 + k]));
            }
            const float scale = amax / limit;
            uint8_t* rec = const_cast<uint8_t*>(record(view, row, c0));
            const int r = row % kQRowGroup;
            std::memcpy(rec + 4 * r, &scale, 4);
            if (amax == 0.0f) continue;
            for (int k = 0; k < n; ++k) {
                const long q =
                    std::max(-long(f.weight_max), std::min(long(f.weight_max), std::lround(src[c0 + k] / scale)));
                uint8_t* p = rec + q_offset(f, r, k);
                p[0] = uint8_t(q & 0xff);  // little-endian, whatever the host
                if (f.weight_bytes == 2) p[1] = uint8_t((q >> 8) & 0xff);
            }
        }
    }
}

QView q_view(DType type, const uint8_t* data, size_t bytes, int rows, int cols) {
    const size_t expected = q_packed_bytes(type, rows, cols);
    const std::string name = dtype_name(type);
    require(data != nullptr, name + " matrix has no data");
    require(bytes == expected, name + " matrix [" + std::to_string(rows) + ", " + std::to_string(cols) + "] needs " +
                                   std::to_string(expected) + " bytes, got " + std::to_string(bytes));
    return QView{data, rows, cols, type};
}

float q_weight(const QView& w, int row, int col) {
    require(row >= 0 && row < w.rows && col >= 0 && col < w.cols,
            std::string(dtype_name(w.type)) + " index [" + std::to_string(row) + ", " + std::to_string(col) +
                "] outside [" + std::to_string(w.rows) + ", " + std::to_string(w.cols) + "]");
    const uint8_t* rec = record(w, row, col);
    const int r = row % kQRowGroup;
    return detail::record_scale(rec, r) * float(detail::record_q(w.format(), rec, r, col % kQBlock));
}

void q_dequantize_row(const QView& w, int row, float* out) {
    require(row >= 0 && row < w.rows, "row " + std::to_string(row) + " outside a " + dtype_name(w.type) +
                                          " matrix of " + std::to_string(w.rows) + " rows");
    const QFormat& f = w.format();
    const int r = row % kQRowGroup;
    for (int c0 = 0; c0 < w.cols; c0 += kQBlock) {
        const uint8_t* rec = record(w, row, c0);
        const float scale = detail::record_scale(rec, r);
        const int n = std::min(kQBlock, w.cols - c0);
        for (int k = 0; k < n; ++k) out[c0 + k] = scale * float(detail::record_q(f, rec, r, k));
    }
}

}  // namespace arcscope
