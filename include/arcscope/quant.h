// quant.h: int8 weights and the matrix kernels of every linear layer.
//
// Quantization: symmetric int8 in blocks of 32 along in_features, one f32 scale per block,
//   scale = max|w| / 127, q = round(w / scale) in [-127, 127] (round to nearest, ties away from zero).
// Activations are quantized the same way at run time (ties to even), per token and per block of 32 (int16 lanes holding
// int8 values), so a block's dot product is exact in int32 and costs one f32 multiply-add by the two scales.
//
// Packed layout (what q8_pack writes; the kernels read it in place, straight from the model file):
//   rows are taken in groups of 8 (kQ8RowGroup), cols in blocks of 32; rows and cols are zero-padded up to that.
//   For group g (rows 8g..8g+7) and block b (cols 32b..32b+31), one 288-byte record:
//     float scale[8]            the 8 rows' scales for this block
//     int8  q[16][8][2]         q[p][r][i] = weight(row 8g+r, col 32b+2p+i): column pairs, then rows
//   Records run b-fastest: record(g, b) starts at (g * blocks + b) * 288. The total is rounded up to 64 bytes.
//   Why: a SIMD pass loads one column pair of 8 rows (16 bytes), widens it to int16 and multiplies it with the
//   token's broadcast activation pair (i32x4.dot_i16x8_s / pmaddwd): each i32 lane is one row, so no horizontal
//   sums are needed, and one activation broadcast feeds 8 outputs.
//   Keep the data 64-byte aligned (the model file does); the kernels do not require it but run best with it.
//
// f32 weights are not packed: plain (rows, cols) row-major, as the converter writes them.
//
// q8 kernels pick their path at compile time: WebAssembly SIMD128 (wasm build), AVX2 (native -march=native),
// or portable C++; all round exactly alike (no FMA), so wasm and native agree bit for bit. No kernel allocates per
// call: activation scratch is thread-local and only grows.
#pragma once
#include <cstddef>
#include <cstdint>

namespace arcscope {

constexpr int kQ8Block = 32;                                     // weights per scale, along in_features
constexpr int kQ8RowGroup = 8;                                   // rows interleaved per packed record
constexpr size_t kQ8RecordBytes = kQ8RowGroup * (4 + kQ8Block);  // 288: 8 scales + 8x32 int8
static_assert(kQ8RecordBytes == 288, "the q8 record is documented (models/README.md) as 288 bytes");
constexpr size_t kQ8Align = 64;

// Bytes q8_pack writes for a (rows, cols) matrix: ceil(rows/8) * ceil(cols/32) * 288, rounded up to 64.
size_t q8_packed_bytes(int rows, int cols);

// w (rows, cols) row-major f32 -> out (q8_packed_bytes(rows, cols) bytes, layout above). Throws on bad sizes.
void q8_pack(const float* w, int rows, int cols, uint8_t* out);

// A non-owning view over packed weights (e.g. inside a loaded model file).
struct Q8View {
    const uint8_t* data = nullptr;
    int rows = 0;  // out_features, e.g. 2304
    int cols = 0;  // in_features, e.g. 768

    int groups() const { return (rows + kQ8RowGroup - 1) / kQ8RowGroup; }
    int blocks() const { return (cols + kQ8Block - 1) / kQ8Block; }
};

// Checks that `bytes` is exactly q8_packed_bytes(rows, cols) and the dimensions are positive; throws Error if not.
Q8View q8_view(const uint8_t* data, size_t bytes, int rows, int cols);

// One weight back as f32 (scale * q), and a whole row: row r of view -> out (cols). For embedding lookups.
float q8_weight(const Q8View& w, int row, int col);
void q8_dequantize_row(const Q8View& w, int row, float* out);

// out (T, rows) = x (T, cols) . W^T + bias (bias may be null). The fast kernel: GEMV for T = 1, tiled GEMM above.
void linear_q8(float* out, const float* x, int T, const Q8View& w, const float* bias);

// The same product, computed plainly in scalar code (activation quantization included): what kernels are tested
// against.
void linear_q8_reference(float* out, const float* x, int T, const Q8View& w, const float* bias);

// out (T, rows) = x (T, cols) . W^T + bias for plain f32 weights w (rows, cols) row-major. One 4-lane vector
// implementation for native and wasm (same summation order, same bits in both builds).
void linear_f32(float* out, const float* x, int T, const float* w, int rows, int cols, const float* bias);

// Plain scalar f32 product, the reference for linear_f32.
void linear_f32_reference(float* out, const float* x, int T, const float* w, int rows, int cols, const float* bias);

// Which kernel family this build runs: "wasm-simd128", "avx2" or "portable".
const char* kernel_isa();

}  // namespace arcscope
