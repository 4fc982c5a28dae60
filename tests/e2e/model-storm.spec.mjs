// A storm of model loads in the worker: models picked from disk, model URLs, conversions and analyses, all at once,
// more models than the worker keeps in memory. Nothing may free a model while it is still in use (its file being
// copied to Cache Storage), so every call succeeds (or says clearly why not), every picked or converted model is kept
// in Cache Storage, and the worker ends with no more than its two models in memory.
import { test, expect } from '@playwright/test';
import { openPage, DEFAULT_MODEL, FIXTURE_ARCS, FIXTURE_GPT2_SHAPED, FIXTURE_HF } from './helpers.mjs';

test('a storm of loads, picks and analyses of more models than the worker keeps: every call succeeds, every picked or converted model is cached', async ({ page }) => {
  await openPage(page);
  const outcome = await page.evaluate(async ({ urls, hf }) => {
    const { sharedEngine } = await import('./lib/worker-client.js');
    const { isCached } = await import('./lib/shared/model-cache.js');
    const worker = sharedEngine();
    const files = await Promise.all(urls.map(async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer())));
    const calls = [], picked = [];
    const source = { safetensorsUrl: new URL(`${hf}/model.safetensors`, location.href).href,
      configUrl: new URL(`${hf}/config.json`, location.href).href };
    const record = (what, promise) => calls.push(promise.then(() => null, (e) => `${what}: ${e.message}`));
    for (let round = 0; round < 4; round++) {
      files.forEach((bytes, i) => {
        const key = `local:storm-${round}-${i}.arcs:${bytes.length}`;
        picked.push(key);
        record(`pick ${key}`, worker.call('loadModelBytes', { bytes: bytes.slice(), key, name: `storm-${round}-${i}.arcs` }));
        record(`analyze ${key}`, worker.call('analyze', { model: key, text: 'To be, or not to be' }));
        const url = new URL(`${urls[i]}?storm=${round}`, location.href).href;
        record(`load ${url}`, worker.call('loadModel', { url }));
        record(`analyze ${url}`, worker.call('analyze', { model: url, text: 'that is the question' }));
        record(`models ${round}`, worker.call('models'));
        record(`memory ${round}`, worker.call('memory'));
      });
      // A conversion, kept in Cache Storage as it ends, in the same storm.
      const converted = worker.call('convertModel', { source, key: `storm-hf-${round}`, name: `storm-hf-${round}`,
        dtype: 'q8' });
      record(`convert storm-hf-${round}`, converted);
      calls.push(converted.then(({ key }) => (picked.push(key), null), () => null));
    }
    const failures = (await Promise.all(calls)).filter(Boolean);  // (the conversions' keys are in picked by now)
    const uncached = [];
    for (const key of picked) if (!await isCached(key)) uncached.push(key);
    const resident = (await worker.call('models')).map((m) => m.key);
    return { calls: calls.length - 4, failures, uncached, resident };  // each conversion counted once
  }, { urls: [DEFAULT_MODEL, FIXTURE_ARCS, FIXTURE_GPT2_SHAPED], hf: FIXTURE_HF });
  console.log(`a storm of ${outcome.calls} calls: ${outcome.failures.length} failed, ${outcome.uncached.length} picked ` +
    `or converted models not cached, ${outcome.resident.length} models in memory after it`);
  expect(outcome.failures).toEqual([]);
  expect(outcome.uncached).toEqual([]);
  expect(outcome.resident.length).toBeLessThanOrEqual(2);
});
