// relaxed-simd.js: whether this engine runs the relaxed-SIMD build's q8 kernel right, and whether it pays.
//
// The probe is a module of one function holding the exact instruction the kernel uses,
// i32x4.relaxed_dot_i8x16_i7x16_add_s (opcode 0xfd 0x113), lane 0 of dot(splat(a), splat(b), 0) = 4 a b:
//   (func (export "d") (param i32 i32) (result i32)
//     (i32x4.extract_lane 0 (i32x4.relaxed_dot_i8x16_i7x16_add_s
//       (i8x16.splat (local.get 0)) (i8x16.splat (local.get 1)) (i32x4.splat (i32.const 0)))))
// 1. WebAssembly.validate: Safari and older browsers reject the opcode (one relaxed opcode fails a whole module).
// 2. The sums with the second operand in [0, 127], where the result is defined: Node 20's V8, behind its flag,
//    returned twice them.
// 3. A fused lowering, by the result with 0xff in the second operand (as XNNPACK and ONNX Runtime probe): vpdpbusd
//    (AVX-VNNI) reads it as 255, vpdpbssd and arm64's sdot as -1; the three-instruction x86 lowering
//    (pmaddubsw + pmaddwd + paddd) saturates each pair at 32767. Without the fused instruction the split 7-bit
//    kernel does twice the dot products of SIMD128's for no gain (measured slower), so 'auto' keeps SIMD128 there.
const PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, // type 0: (i32, i32) -> i32
  0x03, 0x02, 0x01, 0x00, // function 0 has type 0
  0x07, 0x05, 0x01, 0x01, 0x64, 0x00, 0x00, // export "d" = function 0
  0x0a, 0x16, 0x01, 0x14, 0x00, // code: one body of 20 bytes, no locals
  0x20, 0x00, 0xfd, 0x0f, // local.get 0, i8x16.splat
  0x20, 0x01, 0xfd, 0x0f, // local.get 1, i8x16.splat
  0x41, 0x00, 0xfd, 0x11, // i32.const 0, i32x4.splat
  0xfd, 0x93, 0x02, // i32x4.relaxed_dot_i8x16_i7x16_add_s
  0xfd, 0x1b, 0x00, 0x0b, // i32x4.extract_lane 0, end
]);

const SATURATED = 2 * 32767; // 127 * 255 twice per pair, each pair saturated: the three-instruction x86 lowering

// {runs, fused, why}: runs = the relaxed build computes right here; fused = it also pays; why = the reason when not.
export function probeRelaxedSimd() {
  let dot;
  try {
    if (!WebAssembly.validate(PROBE)) return { runs: false, fused: false, why: 'this browser or runtime has no relaxed SIMD' };
    dot = new WebAssembly.Instance(new WebAssembly.Module(PROBE)).exports.d;
  } catch (e) {
    return { runs: false, fused: false, why: `relaxed SIMD did not compile here (${e.message})` };
  }
  for (const [a, b] of [[-100, 100], [127, 127], [-128, 1], [37, 0]]) {
    if (dot(a, b) !== 4 * a * b) {
      return { runs: false, fused: false, why: `this engine's relaxed dot product gives wrong sums (${dot(a, b)} for ${4 * a * b})` };
    }
  }
  if (dot(127, 255) === SATURATED) {
    return { runs: true, fused: false, why: 'this CPU has no fused 8-bit dot product (AVX-VNNI or dot-product ARM), where relaxed SIMD does not pay' };
  }
  return { runs: true, fused: true, why: null };
}
