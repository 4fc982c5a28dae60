// Editing a long text in <arc-scope>: an edit reruns only what changed. The worker keeps each analysis's queries and
// keys, and an edited text resumes from its first changed token on the KV cache the analysis before it left. What
// is drawn must be what a fresh analysis of the new text draws, bit for bit: checked here against the engine module
// itself in the page. Times are printed, not asserted (the machine is shared).
//   npx playwright test tests/e2e/live-edit.spec.mjs
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { encode, decode } from 'gpt-3-encoder';
import { engineCall } from './helpers.mjs';
import { viewMatrix } from '../../web/lib/shared/attention-math.js';

const MODEL = '/fixtures/gpt2-12x12-1024.q8.arcs';

// About n GPT-2 tokens of prose (the project's README).
function prose(n) {
  const text = readFileSync('README.md', 'utf8').replace(/```[^]*?```/g, '').replace(/[#`*|]/g, '');
  return decode(encode(text.repeat(Math.ceil((2 * n) / encode(text).length))).slice(0, n));
}

// Sets the element's text and resolves when it has drawn it: {ms, pattern (layer 8 head 3, [T, T]), T}.
const show = (page, text) => page.evaluate((text) => new Promise((ok, fail) => {
  const el = document.getElementById('live-edit');
  const t0 = performance.now();
  el.addEventListener('arcscope-error', (e) => fail(new Error(e.detail.message)), { once: true });
  el.addEventListener('arcscope-rendered', async () => {
    const ms = performance.now() - t0;
    const pattern = await el.result.pattern(8, 3);
    ok({ ms, T: el.result.shape[2], pattern: Array.from(pattern), arcs: el.result.drawnArcs().length });
  }, { once: true });
  el.setAttribute('text', text);
}), text);

// Layer 8 head 3 of a fresh pass over text, by the engine module itself in the page (not the worker).
const freshPattern = (page, text) => page.evaluate(async ({ model, text }) => {
  const { createEngine } = await import('/lib/arcscope.js');
  const engine = await createEngine();
  const m = engine.loadModel(new Uint8Array(await (await fetch(model)).arrayBuffer()));
  const name = 'blocks.8.attn.hook_pattern';
  const { data, shape } = m.runWithCache(m.tokenize(text).ids, { names: [name], allLogits: false }).cache[name];
  m.free();
  const T = shape[1];
  return Array.from(data.subarray(3 * T * T, 4 * T * T));
}, { model: MODEL, text });

const largestDifference = (a, b) => a.reduce((worst, v, i) => Math.max(worst, Math.abs(v - b[i])), 0);

test('an edit of a long text reruns from its first change and draws what a fresh analysis draws', async ({ page }) => {
  test.setTimeout(300_000);
  await page.goto('/embed.html');
  await page.evaluate((model) => {
    const el = document.createElement('arc-scope');
    el.id = 'live-edit';
    for (const [name, value] of Object.entries({ model, layer: 8, head: 3 })) el.setAttribute(name, value);
    document.body.append(el);
  }, MODEL);
  const base = prose(600);
  const edits = [
    ['the whole text', base],
    ['four words typed at the end', `${base} and then some more`],
    ['a word changed near the middle', `${base.slice(0, base.length >> 1)} banana${base.slice((base.length >> 1) + 1)} and then some more`],
  ];
  const times = [];
  for (const [name, text] of edits) {
    const drawn = await show(page, text);
    const fresh = await freshPattern(page, text);
    expect(drawn.pattern.length).toBe(drawn.T * drawn.T);
    expect(largestDifference(drawn.pattern, fresh), name).toBe(0);
    times.push(`${name}: ${drawn.T} tokens, drawn in ${drawn.ms.toFixed(0)} ms (${drawn.arcs} arcs)`);
  }
  // The worker resumed the edits: another edit at the end, asked of it directly, runs only its new tokens.
  const [{ key }] = (await engineCall(page, 'models')).filter((m) => m.key.endsWith(MODEL));
  const last = `${edits[2][1]} too`;
  const before = await engineCall(page, 'analyze', { model: key, text: edits[2][1] });
  const after = await engineCall(page, 'analyze', { model: key, text: last });
  expect(after.reused).toBeGreaterThanOrEqual(before.ids.length - 1);
  expect(after.reused).toBeLessThan(after.ids.length);
  console.log(`${times.join('\n')}\nanalyze after typing " too": ${after.ids.length - after.reused} of ` +
    `${after.ids.length} positions run`);
});

// A model whose positions rotate and whose query heads share key/value heads (Llama's, 8 heads over 2): the worker
// keeps the rotated queries and keys (hook_rot_q, hook_rot_k), so a head it draws, the mean over every head and
// layer, and a head after an edit at the end are the attention the engine's own pass captures, bit for bit.
test('the worker\'s attention of a rotary, grouped-query model is the engine\'s own, also after an edit', async ({ page }) => {
  const model = '/fixtures/llama-4x8.q8.arcs';
  await page.goto('/embed.html');
  const ids = Array.from({ length: 120 }, (_, i) => (i * 7919 + 13) % 300);
  const same = (a, b) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
  // The engine module itself in the page: every layer's hook_pattern [H, T, T] of a fresh pass.
  const captured = (ids) => page.evaluate(async ({ model, ids }) => {
    const { createEngine } = await import('/lib/arcscope.js');
    const m = (await createEngine()).loadModel(new Uint8Array(await (await fetch(model)).arrayBuffer()));
    const names = Array.from({ length: m.config.n_layer }, (_, l) => `blocks.${l}.attn.hook_pattern`);
    const { cache } = m.runWithCache(ids, { names, allLogits: false });
    m.free();
    return names.map((n) => Array.from(cache[n].data));
  }, { model, ids });
  // The view of layer and head from the captured patterns, as the page computes it from a tensor.
  const view = (patterns, T, layer, head) => {
    const n = T * T, H = patterns[0].length / n;
    return viewMatrix((l, h) => Float32Array.from(patterns[l].slice(h * n, (h + 1) * n)), [patterns.length, H],
      layer, head);
  };
  const attention = async (ids, layer, head) =>
    Array.from((await engineCall(page, 'attention', { model, ids, layer, head })).data);

  const first = await engineCall(page, 'analyze', { model, ids: ids.slice(0, 100) });
  expect(first.reused).toBe(0);
  const edited = await engineCall(page, 'analyze', { model, ids });
  expect(edited.reused).toBe(100);
  const patterns = await captured(ids);
  for (const [layer, head] of [[1, 5], [3, 0], ['mean', 'mean']]) {
    expect(same(await attention(ids, layer, head), Array.from(view(patterns, 120, layer, head))),
      `layer ${layer}, head ${head}`).toBe(true);
  }
});
