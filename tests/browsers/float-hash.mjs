// float-hash.mjs: FNV-1a over the bits of float arrays, the fingerprint the browser suite compares across builds and
// engines (relaxed-simd.spec.mjs hashes the kernels' outputs the same way). Served to the pages at /float-hash.mjs
// (sites.mjs) and imported as it is in Node. -> {count: floats hashed, hash: hex}
export function floatHash(arrays) {
  let h = 2166136261, count = 0;
  for (const a of arrays) {
    const bits = new Uint32Array(a.buffer, a.byteOffset, a.length);
    for (const x of bits) for (let k = 0; k < 32; k += 8) h = Math.imul(h ^ ((x >>> k) & 0xff), 16777619) >>> 0;
    count += a.length;
  }
  return { count, hash: h.toString(16) };
}
