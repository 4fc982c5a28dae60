// quant.h: blocked integer weights (q8 and q16) and the matrix kernels of every linear layer.
//
// Both formats are symmetric, in blocks of 32 along in_features with one f32 scale per block:
//   scale = max|w| / W, q = round(w / scale) in [-W, W] (round to nearest, ties away from zero).
//   q8:  W = 127 (int8).   q16: W = 8191 (14 bits, held in int16) for GPT-2, W = 32767 (16 bits) for the others.
// Activations are quantized the same way at run time (ties to even), per token and per block of 32, into int16:
//   A = 8191 (14 bits) with q8 and 14-bit q16 weights; A = 32767 (16 bits) with 16-bit q16 weights.
// A 14-bit block's dot product is then exact in int32 (32 * W * A < 2^31: see kQ8/kQ16 below) and costs one f32
// multiply-add by the two scales. q8 rounds to 14 bits, not 16, so that the relaxed-SIMD kernel
// (quant_wasm_relaxed.cpp) can feed each activation as two 7-bit parts (a + 8192 = 128 hi + lo) to
// i32x4.relaxed_dot_i8x16_i7x16_add_s and still give the same integers as every other kernel. q16 reads twice the
// weight bytes and skips the widening.
// 16-bit q16 (DType::Q16Full): 32 products of two 16-bit values reach 2^35, so each column pair's int32 sum (at most
// 2 * 32767^2 < 2^31) is shifted right by 4 (rounding toward -inf) before the block's sum, and the token's scale
// carries the 2^4 back (an exact power of two). What the shift drops is at most 16 per pair against sums near 2^30: a
// few parts in 10^8. Every kernel shifts alike, so the bits stay the same in every build. Deep decoders need it: 30
// blocks of sharp heads grow 14-bit rounding to 0.03 in attention, 16-bit to under 0.01 (docs/architectures.md).
//
// Packed layout (what q_pack writes; the kernels read it in place, straight from the model file):
//   rows are taken in groups of 8 (kQRowGroup), cols in blocks of 32; rows and cols are zero-padded up to that.
//   For group g (rows 8g..8g+7) and block b (cols 32b..32b+31), one record:
//     float scale[8]            the 8 rows' scales for this block
//     intN  q[16][8][2]         q[p][r][i] = weight(row 8g+r, col 32b+2p+i): column pairs, then rows
//   The record is 288 bytes for q8 (int8 q) and 544 for q16 (int16 q, little-endian). Records run b-fastest:
//   record(g, b) starts at (g * blocks + b) * record_bytes. The total is rounded up to 64 bytes.
//   Why: a SIMD pass loads one column pair of 8 rows (16 bytes of int8, widened to int16, or 32 bytes of int16) and
//   multiplies it with the token's broadcast activation pair (i32x4.dot_i16x8_s / pmaddwd): each i32 lane is one
//   row, so no horizontal sums are needed, and one activation broadcast feeds 8 outputs.
//   Keep the data 64-byte aligned (the model file does); the kernels do not require it but run best with it.
//
// f32 weights are not packed: plain (rows, cols) row-major, as the converter writes them.
//
// The kernels pick their path at compile time: WebAssembly SIMD128 (wasm build), AVX2 (native -march=native),
// or portable C++; all round exactly alike (no FMA), so wasm and native agree bit for bit. Two q8 kernels are chosen
// at run time instead: the relaxed-SIMD module's (web/lib/engine.js picks a module) and, natively, vnni-int8
// (use_q8_kernel below); both give the same bits. No kernel allocates per
// call: activation scratch is thread-local and only grows.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace arcscope {

// How a matrix is stored. The values are the model file's (models/README.md).
// Q16 and Q16Full are both "q16" to users: every architecture but GPT-2 gets the full 16 bits (stored_weight_type in
// model_file.h; files of version 4), GPT-2 the 14 bits its results were published with.
enum class DType : uint32_t { F32 = 0, Q8 = 1, Q16 = 2, Q16Full = 3 };
const char* dtype_name(DType t);  // "f32" | "q8" | "q16"
// The bits a format keeps of each weight and of each activation entering a matrix product: f32 32 and 32, q8 8 and
// 14, q16 14 and 14, 16-bit q16 16 and 16 (what `arcscope info` and model.config report beside the name).
struct Precision {
    int weight_bits;
    int activation_bits;
};
Precision dtype_precision(DType t);
// "q8" | "q16" | "f32" -> DType, or Error("--dtype must be q8, q16 or f32, got 'x'") with `what` for "--dtype".
DType parse_dtype(const std::string& name, const char* what);

constexpr int kQBlock = 32;    // weights per scale, along in_features
constexpr int kQRowGroup = 8;  // rows interleaved per packed record
constexpr size_t kQAlign = 64;

// One blocked integer format: its weight and activation limits and its record size.
struct QFormat {
    int weight_bytes;     // 1 (int8) or 2 (int16)
    int weight_max;       // W: weights round into [-W, W]
    int activation_max;   // A: activations round into [-A, A]
    size_t record_bytes;  // 8 scales + 8 x 32 weights
    int pair_shift;       // each column pair's sum >> this before the block's sum (0: exact)
};
constexpr QFormat kQ8{1, 127, 8191, kQRowGroup*(4 + kQBlock * 1), 0};
constexpr QFormat kQ16{2, 8191, 8191, kQRowGroup*(4 + kQBlock * 2), 0};
constexpr QFormat kQ16Full{2, 32767, 32767, kQRowGroup*(4 + kQBlock * 2), 4};
static_assert(kQ8.record_bytes == 288 && kQ16.record_bytes == 544 && kQ16Full.record_bytes == 544,
              "the records are documented (models/README.md) as 288 and 544 bytes");
// The overflow bound: each dot_i16x8 / pmaddwd pair, and a block's int32 sum of its 16 (shifted) pairs, stay below
// 2^31 even with every weight and activation at its limit (q8: 3.3e7; q16: 2,146,959,392; 16-bit q16: 16 x
// ceil(2,147,352,578 / 16) = 2,147,352,592; all < 2,147,483,647).
constexpr bool block_sum_fits_int32(QFormat f) {
    const int64_t pair = 2 * int64_t(f.weight_max) * f.activation_max;
    const int64_t shifted = (pair + (int64_t(1) << f.pair_shift) - 1) >> f.pair_shift;
    return pair <= INT32_MAX && kQBlock / 2 * shifted <= INT32_MAX;
}
static_assert(block_sum_fits_int32(kQ8) && block_sum_fits_int32(kQ16) && block_sum_fits_int32(kQ16Full),
              "a block's int32 sum could overflow");

// The format of a packed dtype (Q8, Q16 or Q16Full; Error for F32).
const QFormat& q_format(DType type);

// Bytes q_pack writes for a (rows, cols) matrix: ceil(rows/8) * ceil(cols/32) * record_bytes, rounded up to 64.
size_t q_packed_bytes(DType type, int rows, int cols);

// w (rows, cols) row-major f32 -> out (q_packed_bytes(type, rows, cols) bytes, layout above). Throws on bad sizes.
void q_pack(DType type, const float* w, int rows, int cols, uint8_t* out);

// A non-owning view over packed weights (e.g. inside a loaded model file).
struct QView {
    const uint8_t* data = nullptr;
    int rows = 0;  // out_features, e.g. 2304
    int cols = 0;  // in_features, e.g. 768
    DType type = DType::Q8;

    int groups() const { return (rows + kQRowGroup - 1) / kQRowGroup; }
    int blocks() const { return (cols + kQBlock - 1) / kQBlock; }
    const QFormat& format() const { return q_format(type); }  // q_view made it, so the type is packed
};

// Checks that `bytes` is exactly q_packed_bytes(type, rows, cols) and the dimensions are positive; throws Error if not.
QView q_view(DType type, const uint8_t* data, size_t bytes, int rows, int cols);

// One weight back as f32 (scale * q), and a whole row: row r of view -> out (cols). For embedding lookups.
float q_weight(const QView& w, int row, int col);
void q_dequantize_row(const QView& w, int row, float* out);

// out (T, rows) = x (T, cols) . W^T + bias (bias may be null). The fast kernel: GEMV for T = 1, tiled GEMM above.
void linear_q(float* out, const float* x, int T, const QView& w, const float* bias);

// The same product, computed plainly in scalar code (activation quantization included): what kernels are tested
// against.
void linear_q_reference(float* out, const float* x, int T, const QView& w, const float* bias);

// out (T, rows) = x (T, cols) . W^T + bias for plain f32 weights w (rows, cols) row-major. One 4-lane vector
// implementation for native and wasm (same summation order, same bits in both builds).
void linear_f32(float* out, const float* x, int T, const float* w, int rows, int cols, const float* bias);

// Plain scalar f32 product, the reference for linear_f32.
void linear_f32_reference(float* out, const float* x, int T, const float* w, int rows, int cols, const float* bias);

// Which kernel family this build runs: "wasm-relaxed-simd", "wasm-simd128", "avx2", "avx2+vnni", "portable", or
// natively "vnni-int8" while that q8 kernel is chosen (use_q8_kernel).
const char* kernel_isa();

// Native builds pick their q8 kernel at run time. "int16" is the compiled one (AVX2 or portable: int16 products);
// "vnni-int8" runs vpdpbusd (AVX512-VNNI with AVX512VL) on the activations split into 7-bit parts, the relaxed-SIMD
// build's arithmetic, and gives the same bits. q8_kernels() lists the ones this CPU runs, the default first;
// use_q8_kernel(name) makes linear_q run one (an Error for a name not in the list); the environment variable
// ARCSCOPE_Q8_KERNEL=name chooses at start-up. Not in wasm builds, which choose a module instead.
std::vector<std::string> q8_kernels();
void use_q8_kernel(const std::string& name);

}  // namespace arcscope
