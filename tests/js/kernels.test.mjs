// The wasm build's int8 and f32 kernels (SIMD128) against the scalar reference, through the diagnostics module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diagnostics } from './support.mjs';

test('SIMD128 kernels match the scalar reference on odd shapes, T = 1 and T > 1', async () => {
  const core = await diagnostics();
  assert.equal(core.kernelIsa(), 'wasm-simd128');
  for (const seed of [1, 2, 3]) {
    const c = core.checkKernels(seed);
    console.log(`[${c.isa}] seed ${seed}: ${c.cases} shapes, largest diff q8 ${c.q8MaxDiff.toExponential(2)}, ` +
      `q8 portable ${c.q8PortableMaxDiff.toExponential(2)}, q16 ${c.q16MaxDiff.toExponential(2)}, ` +
      `q16 portable ${c.q16PortableMaxDiff.toExponential(2)}, f32 ${c.f32MaxDiff.toExponential(2)}; ` +
      `${c.activationMismatches} activation mismatches`);
    assert.ok(c.cases > 0);
    assert.ok(c.q8MaxDiff < 1e-4, `q8 kernel differs from the reference by ${c.q8MaxDiff}`);
    assert.ok(c.q8PortableMaxDiff < 1e-4, `portable q8 kernel differs by ${c.q8PortableMaxDiff}`);
    assert.ok(c.q16MaxDiff < 1e-4, `q16 kernel differs from the reference by ${c.q16MaxDiff}`);
    assert.ok(c.q16PortableMaxDiff < 1e-4, `portable q16 kernel differs by ${c.q16PortableMaxDiff}`);
    assert.ok(c.f32MaxDiff < 1e-4, `f32 kernel differs from the reference by ${c.f32MaxDiff}`);
    assert.equal(c.activationMismatches, 0, 'SIMD128 activation quantizer differs from the scalar one');
    assert.equal(c.q8BitMismatches, 0, 'SIMD128 q8 kernel and the plain one differ in their bits');
    assert.equal(c.q16BitMismatches, 0, 'SIMD128 q16 kernel and the plain one differ in their bits');
  }
});

test('kernel benchmark entry points reject bad arguments with an Error', async () => {
  const core = await diagnostics();
  assert.throws(() => core.benchLinear('q4', 8, 32, 1, 1), /q8, q16 or f32/);
  assert.throws(() => core.benchLinear('q8', 0, 32, 1, 1), /positive/);
});
