// The relaxed-SIMD build in Chromium (Node 20's V8 returns wrong sums for the relaxed dot product, so this runs here):
// its q8 kernel (i32x4.relaxed_dot_i8x16_i7x16_add_s on 7-bit activation parts) gives the same bits as the SIMD128
// build's and as the plain C++ kernel in the same module, on odd shapes, T = 1 and T > 1.
import { test, expect } from '@playwright/test';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const wasmDir = fileURLToPath(new URL('../../build/wasm/', import.meta.url));

// The kernel diagnostics modules are not staged with the library: serve them from the build at /diagnostics/.
async function serveDiagnostics(page) {
  await page.route('**/diagnostics/*', (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop();
    route.fulfill({ body: fs.readFileSync(wasmDir + name),
      contentType: name.endsWith('.wasm') ? 'application/wasm' : 'text/javascript' });
  });
}

test('the relaxed-SIMD q8 kernel gives the SIMD128 kernel\'s bits', async ({ page }) => {
  await serveDiagnostics(page);
  await page.goto('./embed.html');
  const runs = await page.evaluate(async () => {
    const out = {};
    for (const name of ['arcscope_diagnostics', 'arcscope_diagnostics_relaxed']) {
      const { default: create } = await import(`/diagnostics/${name}.js`);
      const m = await create();
      out[name] = { isa: m.kernelIsa(), checks: [1, 2, 3].map((seed) => m.checkKernels(seed)) };
    }
    return out;
  });
  const simd128 = runs.arcscope_diagnostics, relaxed = runs.arcscope_diagnostics_relaxed;
  expect(simd128.isa).toBe('wasm-simd128');
  expect(relaxed.isa).toBe('wasm-relaxed-simd');
  for (let i = 0; i < 3; ++i) {
    const [a, b] = [simd128.checks[i], relaxed.checks[i]];
    console.log(`seed ${i + 1}: q8 output hash SIMD128 ${a.q8Bits.toString(16)}, relaxed ${b.q8Bits.toString(16)}; ` +
      `relaxed against the reference ${b.q8MaxDiff.toExponential(2)}, ${b.q8BitMismatches} outputs off the plain ` +
      'kernel\'s bits');
    expect(b.q8BitMismatches).toBe(0);
    expect(b.q16BitMismatches).toBe(0);
    expect(b.q8MaxDiff).toBeLessThan(1e-4);
    expect(b.q8Bits).toBe(a.q8Bits);
    expect(b.q16Bits).toBe(a.q16Bits);
    expect(b.activationMismatches).toBe(0);
  }
});
