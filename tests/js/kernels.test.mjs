// The wasm build's int8 and f32 kernels (SIMD128) against the scalar reference, through the diagnostics module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diagnostics } from './support.mjs';

test('SIMD128 kernels match the scalar reference on odd shapes, T = 1 and T > 1', async () => {
  const core = await diagnostics();
  assert.equal(core.kernelIsa(), 'wasm-simd128');
  for (const seed of [1, 2, 3]) {
    const c = core.checkKernels(seed);
    console.log(`[${c.isa}] seed ${seed}: ${c.cases} shapes, f32 ${c.f32MaxDiff.toExponential(2)}; ` +
      `${c.activationMismatches} activation mismatches`);
    assert.ok(c.cases > 0);
    assert.ok(c.f32MaxDiff < 1e-4, `f32 kernel differs from the reference by ${c.f32MaxDiff}`);
    assert.equal(c.activationMismatches, 0, 'SIMD128 activation quantizer differs from the scalar one');
    for (const format of ['q8', 'q16', 'q16Full']) {  // q16Full: 16-bit q16, what the decoders' q16 files hold
      const [diff, portable] = [c[`${format}MaxDiff`], c[`${format}PortableMaxDiff`]];
      console.log(`  ${format}: largest diff ${diff.toExponential(2)}, portable ${portable.toExponential(2)}`);
      assert.ok(diff < 1e-4, `${format} kernel differs from the reference by ${diff}`);
      assert.ok(portable < 1e-4, `portable ${format} kernel differs by ${portable}`);
      assert.equal(c[`${format}BitMismatches`], 0, `SIMD128 ${format} kernel and the plain one differ in their bits`);
    }
  }
});

test('kernel benchmark entry points reject bad arguments with an Error', async () => {
  const core = await diagnostics();
  assert.throws(() => core.benchLinear('q4', 8, 32, 1, 1), /q8, q16 or f32/);
  assert.throws(() => core.benchLinear('q8', 0, 32, 1, 1), /positive/);
});
