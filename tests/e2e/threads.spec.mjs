// On a cross-origin isolated page (served with --isolate, and the strict --csp) the engine runs its threaded module:
// the same bits as the plain module, and the page and <arc-scope> work on it with a clean console.
import { test, expect } from '@playwright/test';
import { watchConsole, openPage, drawnArcs } from './helpers.mjs';

test('createEngine() runs the threaded module here, and it gives the plain module\'s bits, a model streamed in too', async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto('./embed.html');
  const r = await page.evaluate(async () => {
    const { createEngine, threadsAvailable } = await import('/lib/arcscope.js');
    const bytes = new Uint8Array(await (await fetch('/fixtures/gpt2-12x12.q8.arcs')).arrayBuffer());
    const ids = Array.from({ length: 64 }, (_, i) => (i * 7919 + 13) % 50257);
    const run = async (options) => {
      const engine = await createEngine(options);
      const model = engine.loadModel(bytes);
      const t0 = performance.now();
      const out = model.forward(ids, { attention: true, allLogits: true });
      const ms = performance.now() - t0;
      model.free();
      // The same file streamed in after the threads have grown the memory: written where the loader's buffer is now.
      const streamed = await engine.loadModelStream({ chunks: new Response(bytes).body, totalBytes: bytes.length });
      const again = streamed.forward(ids, { allLogits: true }).logits;
      streamed.free();
      return { threads: engine.threads, ms, logits: out.logits, attention: out.attention, again };
    };
    const threaded = await run({}), plain = await run({ threads: 1 });
    const differ = (a, b) => a.length !== b.length || a.some((v, i) => !Object.is(v, b[i]));
    let refused = '';
    try { await createEngine({ threads: 0 }); } catch (e) { refused = e.message; }
    return {
      isolated: crossOriginIsolated, available: threadsAvailable(), cores: navigator.hardwareConcurrency,
      threads: threaded.threads, plainThreads: plain.threads, ms: [threaded.ms, plain.ms],
      logitsDiffer: differ(threaded.logits, plain.logits), attentionDiffer: differ(threaded.attention, plain.attention),
      streamedDiffer: differ(threaded.again, plain.logits) || differ(plain.again, plain.logits),
      refused,
    };
  });
  console.log(`isolated page, ${r.cores} cores: threaded module on ${r.threads} threads ${r.ms[0].toFixed(0)} ms, ` +
    `plain module ${r.ms[1].toFixed(0)} ms (64 tokens, 12x12 fixture; a figure, not a benchmark)`);
  expect(r.isolated).toBe(true);
  expect(r.available).toBe(Math.min(4, r.cores));
  expect(r.threads).toBe(Math.min(4, r.cores));
  expect(r.plainThreads).toBe(1);
  expect(r.logitsDiffer).toBe(false);
  expect(r.attentionDiffer).toBe(false);
  expect(r.streamedDiffer).toBe(false);
  expect(r.refused).toBe('threads must be a whole number from 1 up, got 0');
  expect(errors).toEqual([]);
});

test('the threaded module gives the plain module\'s bits for Llama and GPT-NeoX too', async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto('./embed.html');
  const r = await page.evaluate(async () => {
    const { createEngine } = await import('/lib/arcscope.js');
    const ids = Array.from({ length: 100 }, (_, i) => (i * 7919 + 13) % 50257);
    const engines = [await createEngine({}), await createEngine({ threads: 1 })];
    const out = {};
    for (const name of ['llama-4x8', 'neox-4x8']) {
      const bytes = new Uint8Array(await (await fetch(`/fixtures/${name}.q8.arcs`)).arrayBuffer());
      const [threaded, plain] = engines.map((engine) => {
        const model = engine.loadModel(bytes);
        const r = model.forward(ids, { attention: true, allLogits: true });
        const architecture = model.config.architecture;
        model.free();
        return { ...r, architecture };
      });
      const differ = (a, b) => a.length !== b.length || a.some((v, i) => !Object.is(v, b[i]));
      out[name] = { architecture: threaded.architecture, threads: engines[0].threads,
        logitsDiffer: differ(threaded.logits, plain.logits), attentionDiffer: differ(threaded.attention, plain.attention) };
    }
    return out;
  });
  expect(r['llama-4x8']).toMatchObject({ architecture: 'llama', logitsDiffer: false, attentionDiffer: false });
  expect(r['neox-4x8']).toMatchObject({ architecture: 'gpt_neox', logitsDiffer: false, attentionDiffer: false });
  expect(r['llama-4x8'].threads).toBeGreaterThan(1);
  expect(errors).toEqual([]);
});

// The relaxed-SIMD threaded module (its q8 kernel on 7-bit activation parts, each thread its own rows): the SIMD128
// threaded module's bits, prefill over every position (tiles of every width, 60 tokens) and KV-cache steps.
test('the relaxed-SIMD threaded module gives the SIMD128 threaded module\'s bits', async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto('./embed.html');
  const r = await page.evaluate(async () => {
    const { createEngine } = await import('/lib/arcscope.js');
    const bytes = new Uint8Array(await (await fetch('/fixtures/gpt2-12x12.q8.arcs')).arrayBuffer());
    const ids = Array.from({ length: 60 }, (_, i) => (i * 7919 + 13) % 50257); // 4 steps left in its n_ctx of 64
    const run = async (simd) => {
      const engine = await createEngine({ simd, threads: 2 });
      const model = engine.loadModel(bytes);
      const logits = [model.forward(ids, { attention: false, allLogits: true }).logits.slice()];
      for (const id of ids.slice(0, 3)) logits.push(model.append(id, { attention: false }).logits.slice());
      model.free();
      return { simd: engine.simd, threads: engine.threads, summary: engine.build.summary, logits };
    };
    const [simd128, relaxed] = [await run('simd128'), await run('relaxed')];
    const bits = (arrays) => arrays.flatMap((a) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length)));
    const [a, b] = [bits(simd128.logits), bits(relaxed.logits)];
    return { simd128: { ...simd128, logits: undefined }, relaxed: { ...relaxed, logits: undefined },
      count: a.length, differing: a.length === b.length ? a.filter((x, i) => x !== b[i]).length : -1 };
  });
  console.log(`two threads: ${r.count} logits, ${r.differing} with other bits between "${r.simd128.summary}" and ` +
    `"${r.relaxed.summary}"`);
  expect(r.simd128).toMatchObject({ simd: 'simd128', threads: 2 });
  expect(r.relaxed).toMatchObject({ simd: 'relaxed', threads: 2,
    summary: 'relaxed SIMD, 2 threads (the page is cross-origin isolated)' });
  expect(r.count).toBe(50257 * 63);
  expect(r.differing).toBe(0);
  expect(errors).toEqual([]);
});

test('the tutorial page and <arc-scope> work on the threaded module', async ({ page }) => {
  const errors = watchConsole(page);
  const response = await page.goto('./');
  expect(response.headers()['cross-origin-embedder-policy']).toBe('require-corp');
  await openPage(page);
  expect((await drawnArcs(page)).length).toBeGreaterThan(0);
  // Both pages say so: the module 'auto' picks (relaxed SIMD where the CPU fuses its dot product, else SIMD128) on as
  // many threads as the engine runs (one a core, up to 4).
  const threads = await page.evaluate(() => Math.min(4, navigator.hardwareConcurrency));
  const fused = await page.evaluate(async () => (await import('/lib/engine/relaxed-simd.js')).probeRelaxedSimd().fused);
  const name = fused ? 'relaxed SIMD' : 'SIMD128';
  const summary = threads > 1 ? `${name}, ${threads} threads (the page is cross-origin isolated)`
    : `${name}, one thread: the device reports one core`;
  await expect(page.locator('#engine-build')).toHaveText(`Engine: ${summary}`);
  await page.goto('./embed.html');
  await expect(page.locator('#example-arcs path[data-from]').first()).toBeAttached();
  await expect(page.locator('#engine-build')).toHaveText(`The examples run on the engine's ${summary}.`);
  expect(errors).toEqual([]);
});
