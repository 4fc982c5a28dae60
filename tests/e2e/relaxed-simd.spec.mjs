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
    expect(b.q16FullBitMismatches).toBe(0);
    expect(b.q8MaxDiff).toBeLessThan(1e-4);
    expect(b.q8Bits).toBe(a.q8Bits);
    expect(b.q16Bits).toBe(a.q16Bits);
    expect(b.q16FullBits).toBe(a.q16FullBits);
    expect(b.activationMismatches).toBe(0);
  }
});

// The engine picks a build at run time: both compute the same logits, bit for bit, on the shipped q8 model (all
// positions, prefill through the tiles and decode through the KV cache), and 'auto' follows the probe.
test('createEngine runs either build on request with the same logits, and auto follows the probe', async ({ page }) => {
  await page.goto('./embed.html');
  const r = await page.evaluate(async () => {
    const { createEngine, defaultAssets, readBytes } = await import('/lib/arcscope.js');
    const { probeRelaxedSimd } = await import('/lib/engine/relaxed-simd.js');
    const bytes = await readBytes(defaultAssets.model);
    const out = { probe: probeRelaxedSimd() };
    for (const simd of ['simd128', 'relaxed']) {
      const engine = await createEngine({ simd, threads: 1 });
      const model = await engine.loadModel(bytes.slice());
      const ids = engine.encode('To be, or not to be, that is the question: whether tis nobler in the mind to suffer');
      const all = model.forward(ids, { attention: false, allLogits: true }).logits;
      const next = model.append(ids[0], { attention: false }).logits;
      out[simd] = { simd: engine.simd, build: engine.build, all: Array.from(new Uint32Array(all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength))),
        next: Array.from(new Uint32Array(next.buffer.slice(next.byteOffset, next.byteOffset + next.byteLength))) };
      model.free?.();
    }
    const auto = await createEngine({ threads: 1 });
    out.auto = { simd: auto.simd, build: auto.build };
    return out;
  });
  console.log(`probe: ${JSON.stringify(r.probe)}; auto runs ${r.auto.simd} (${r.auto.build.summary}; ${r.auto.build.simdWhy})`);
  expect(r.simd128.simd).toBe('simd128');
  expect(r.relaxed.simd).toBe('relaxed');
  expect(r.relaxed.build.summary).toBe('relaxed SIMD, one thread: createEngine was asked for one');
  expect(r.relaxed.all.length).toBeGreaterThan(1000);
  const differing = r.relaxed.all.filter((bits, i) => bits !== r.simd128.all[i]).length;
  console.log(`${r.relaxed.all.length} logits, ${differing} with other bits between the builds`);
  expect(differing).toBe(0);
  expect(r.relaxed.next).toEqual(r.simd128.next);
  expect(r.auto.simd).toBe(r.probe.fused ? 'relaxed' : 'simd128');
  expect(r.auto.build.simdWhy).toBe(r.probe.why);
});

// Where the browser has no relaxed SIMD (Safari, older browsers: the probe module does not validate), 'auto' loads
// the SIMD128 module and only it, and 'relaxed' is refused by name.
test('without relaxed SIMD the engine loads the SIMD128 module, and a forced relaxed build is an error', async ({ page }) => {
  const fetched = [];
  page.on('request', (req) => { if (/\.wasm$/.test(req.url())) fetched.push(new URL(req.url()).pathname); });
  await page.goto('./embed.html');
  fetched.length = 0;
  const r = await page.evaluate(async () => {
    const validate = WebAssembly.validate;
    WebAssembly.validate = (bytes) => (new Uint8Array(bytes).length < 100 ? false : validate(bytes));
    const { createEngine } = await import('/lib/arcscope.js');
    const engine = await createEngine({ threads: 1 });
    let forced;
    try {
      await createEngine({ simd: 'relaxed' });
    } catch (e) {
      forced = e.message;
    }
    return { simd: engine.simd, why: engine.build.simdWhy, summary: engine.build.summary, forced };
  });
  expect(r.simd).toBe('simd128');
  expect(r.why).toBe('this browser or runtime has no relaxed SIMD');
  expect(r.summary).toBe('SIMD128, one thread: createEngine was asked for one');
  expect(r.forced).toBe("simd: 'relaxed' cannot run here: this browser or runtime has no relaxed SIMD");
  expect(fetched).toContain('/lib/wasm/arcscope_core.wasm');
  expect(fetched.filter((p) => /relaxed/.test(p))).toEqual([]);
});
