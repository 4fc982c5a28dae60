// The run-time choice of build in Node: Node 20 has no relaxed SIMD without a flag, and with the flag its V8 returns
// wrong sums for the relaxed dot product, so the engine must load the SIMD128 module either way. (The relaxed build's
// bits are checked in Chromium: tests/e2e/relaxed-simd.spec.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createEngine } from '../../build/lib/engine.js';
import { probeRelaxedSimd } from '../../build/lib/engine/relaxed-simd.js';

test('without relaxed SIMD createEngine loads the SIMD128 build, and refuses a forced relaxed one by name', async (t) => {
  const probe = probeRelaxedSimd();
  if (probe.runs) return t.skip('this Node runs relaxed SIMD right');
  const engine = await createEngine();
  assert.equal(engine.simd, 'simd128');
  assert.equal(engine.build.simd, 'SIMD128');
  assert.equal(engine.build.simdWhy, probe.why);
  await assert.rejects(createEngine({ simd: 'relaxed' }), new RegExp(`simd: 'relaxed' cannot run here: ${probe.why}`));
  await assert.rejects(createEngine({ simd: 'avx' }), /simd must be 'auto', 'relaxed' or 'simd128', got 'avx'/);
});

test('the probe finds the wrong sums of a V8 whose relaxed dot product is broken (Node 20 behind its flag)', (t) => {
  const script = "import('./build/lib/engine/relaxed-simd.js').then((m) => console.log(JSON.stringify(m.probeRelaxedSimd())))";
  let probe;
  try {
    probe = JSON.parse(execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '-e', script],
      { encoding: 'utf8', cwd: new URL('../../', import.meta.url) }));
  } catch (e) {
    return t.skip(`this Node does not take --experimental-wasm-relaxed-simd (${e.message.split('\n')[0]})`);
  }
  console.log(`Node ${process.versions.node} with the flag: ${JSON.stringify(probe)}`);
  if (probe.runs) return t.skip('this Node computes relaxed dot products right with the flag');
  assert.equal(probe.fused, false);
  assert.match(probe.why, /wrong sums|no relaxed SIMD/);
});
