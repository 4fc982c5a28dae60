// builds.mjs: which wasm build an engine runs, in one browser engine. In the page, createEngine is asked for each
// build this browser can run ('simd128', and 'relaxed' where the probe says it computes right) and for 'auto'; each
// runs the default q8 model over a prompt (every position's logits, prefill through the tiles) and one KV-cache
// step, hashed in the page (FNV-1a of the float bits, as relaxed-simd.spec.mjs compares in Chromium). Where relaxed
// SIMD runs, both builds' hashes must agree; where it does not, 'auto' must load the SIMD128 module and nothing
// else, and a forced 'relaxed' must be refused with the probe's reason.
import assert from 'node:assert/strict';

const PROMPT = 'To be, or not to be, that is the question: whether tis nobler in the mind to suffer';

// In the page: -> {probe, builds: {simd128, relaxed?, auto}: {simd, summary, simdWhy, count, hash}, refused?, wasm}
export async function pageBuilds(prompt) {
  const { createEngine, defaultAssets, readBytes } = await import('/lib/engine.js');
  const { probeRelaxedSimd } = await import('/lib/engine/relaxed-simd.js');
  const probe = probeRelaxedSimd();
  const bytes = await readBytes(defaultAssets.model);
  const { floatHash: hash } = await import('/float-hash.mjs');
  const run = async (options) => {
    const engine = await createEngine({ ...options, threads: 1 });
    const model = await engine.loadModel(bytes.slice());
    const ids = engine.encode(prompt);
    const all = model.forward(ids, { attention: false, allLogits: true }).logits.slice();
    const next = model.append(ids[0], { attention: false }).logits.slice();
    model.free?.();
    return { simd: engine.simd, summary: engine.build.summary, simdWhy: engine.build.simdWhy, ...hash([all, next]) };
  };
  const out = { probe, builds: {} };
  out.builds.simd128 = await run({ simd: 'simd128' });
  if (probe.runs) out.builds.relaxed = await run({ simd: 'relaxed' });
  else {
    try {
      await createEngine({ simd: 'relaxed', threads: 1 });
    } catch (e) {
      out.refused = e.message;
    }
  }
  performance.clearResourceTimings();
  out.builds.auto = await run({});
  out.wasm = performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.wasm'));
  return out;
}

// browser.relaxedSimd: whether this browser is known to run relaxed SIMD (Firefox ESR 153: yes; WebKitGTK: no), so
// that a browser that silently stopped (or started) is caught. -> the page's result.
export async function checkBuilds(browser, { repo }) {
  await browser.open(`${repo}embed.html`);
  const r = await browser.run(pageBuilds, PROMPT);
  const { simd128, relaxed, auto } = r.builds;
  assert.equal(r.probe.runs, browser.relaxedSimd, `${browser.name}: relaxed SIMD runs? probe says ${JSON.stringify(r.probe)}`);
  assert.equal(simd128.simd, 'simd128');
  assert.ok(simd128.count > 10_000, `${browser.name}: ${simd128.count} logits`);
  assert.equal(auto.simd, r.probe.fused ? 'relaxed' : 'simd128', `${browser.name}: auto follows the probe`);
  assert.equal(auto.simdWhy, r.probe.why);
  assert.equal(auto.hash, simd128.hash, `${browser.name}: auto's logits are the SIMD128 build's`);
  if (r.probe.runs) {
    assert.equal(relaxed.simd, 'relaxed');
    assert.equal(relaxed.summary, 'relaxed SIMD, one thread: createEngine was asked for one');
    assert.equal(relaxed.count, simd128.count);
    assert.equal(relaxed.hash, simd128.hash, `${browser.name}: the relaxed build's logits have other bits`);
  } else {
    assert.equal(r.refused, `simd: 'relaxed' cannot run here: ${r.probe.why}`);
    assert.equal(auto.summary, 'SIMD128, one thread: createEngine was asked for one');
    assert.deepEqual(r.wasm, ['/lib/wasm/arcscope_core.wasm'], `${browser.name}: auto fetched only the SIMD128 module`);
  }
  return r;
}
