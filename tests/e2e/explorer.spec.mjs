// Section 5 on the default model: tokens, arcs, filters, focus, generation, export, shared links, XSS.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { encode } from 'gpt-3-encoder';
import { ARTICLE_TEXT, DEFAULT_MODEL, FIXTURE_ARCS, watchConsole, openPage, waitForRender, renders, drawnArcs,
  engineAttention, tokenTexts } from './helpers.mjs';

const at = (a, [, H, T], l, h, i, j) => a[((l * H + h) * T + i) * T + j];

async function setText(page, text) {
  const before = await renders(page);
  await page.fill('#text', text);
  await waitForRender(page, before);
}

async function choose(page, id, value) {
  const before = await renders(page);
  await page.selectOption(id, String(value));
  await expect.poll(() => renders(page)).toBeGreaterThan(before);
}

test('the default model opens on the article sentence, tokenized exactly like GPT-2', async ({ page }) => {
  const errors = watchConsole(page);
  await openPage(page);
  const ids = encode(ARTICLE_TEXT);
  const shown = await tokenTexts(page);
  expect(shown).toHaveLength(ids.length);
  expect(shown[1]).toBe('\u00B7trophy'); // the leading space is visible
  expect(await drawnArcs(page)).not.toHaveLength(0);
  // The article's question: what does "it" attend to? The table lists 5 tokens.
  await expect(page.locator('#top5-token')).toHaveText('\u00B7it');
  await expect(page.locator('#top5 tbody tr')).toHaveCount(5);
  // The head-analysis grid: one cell per head, each labelled with its three scores.
  const L = await page.locator('#layer option').count() - 2, H = await page.locator('#head option').count() - 3;
  await expect(page.locator('#scores .cell')).toHaveCount(L * H);
  const labels = await page.locator('#scores .cell').evaluateAll((cells) => cells.map((c) => c.getAttribute('aria-label')));
  expect(labels[0]).toMatch(/previous token \d\.\d\d, first token \(sink\) \d\.\d\d, induction \d\.\d\d/);
  // Each head's label follows its scores: the pattern whose score is furthest past its threshold, if any.
  const tags = await page.locator('#scores .tag').allTextContents();
  const best = { prev: 0, sink: 0, induction: 0 };
  labels.forEach((label, i) => {
    const [prev, sink, ind] = label.match(/\d\.\d\d/g).map(Number);
    best.prev = Math.max(best.prev, prev); best.sink = Math.max(best.sink, sink); best.induction = Math.max(best.induction, ind);
    const ratios = [['prev', prev / 0.5], ['sink', sink / 0.5], ['induction', ind / 0.3]].filter(([, r]) => r >= 1);
    const want = ratios.length ? ratios.sort((a, b) => b[1] - a[1])[0][0] : '';
    if (Math.abs((ratios[0]?.[1] ?? 0) - (ratios[1]?.[1] ?? -1)) > 0.02) expect(tags[i].trim()).toBe(want);
  });
  console.log(`highest head scores: ${JSON.stringify(best)}; labels: ${tags.map((t) => t.trim() || '-').join(' ')}`);
  // The default model has a previous-token head and an induction head (models/README.md), and the grid says so.
  expect(tags.map((t) => t.trim())).toEqual(expect.arrayContaining(['prev', 'induction']));
  expect(errors).toEqual([]);
});

test('the default model\'s two taught heads are marked "taught" in the grid, with why beside it; other models are not', async ({ page }) => {
  test.skip(DEFAULT_MODEL !== '/models/shakespeare-4l.q8.arcs', 'about the shipped default model');
  await openPage(page);
  const taught = page.locator('#scores .cell.taught');
  await expect(taught).toHaveCount(2);
  const cells = await taught.evaluateAll((cs) => cs.map((c) => ({ layer: +c.dataset.layer, head: +c.dataset.head,
    tag: c.querySelector('.tag').textContent, mark: c.querySelector('.taught-mark').textContent, title: c.title })));
  expect(cells.map(({ layer, head, tag, mark }) => ({ layer, head, tag, mark }))).toEqual([
    { layer: 0, head: 0, tag: 'prev', mark: 'taught' }, { layer: 1, head: 0, tag: 'induction', mark: 'taught' }]);
  for (const c of cells) expect(c.title).toContain('taught the');
  await expect(page.locator('#scores .taught-mark').first()).toBeVisible();
  // The explanation sits beside the grid: which heads, why, that the rest learned from text, and how to compare.
  const note = page.locator('#taught-note');
  await expect(note).toBeVisible();
  await expect(note).toContainText('layer 0 head 0 (previous token) and layer 1 head 0 (induction)');
  await expect(note).toContainText('a CPU hour of training on text alone grew neither');
  await expect(note).toContainText('other 14 heads learned what they do from text alone');
  await expect(note).toContainText('every head of GPT-2');
  const [grid, box] = [await page.locator('#scores').boundingBox(), await note.boundingBox()];
  console.log(`grid ${JSON.stringify(grid)}, note ${JSON.stringify(box)}`);
  expect(box.x).toBeGreaterThan(grid.x + grid.width - 1); // to the right of the grid,
  expect(box.y).toBeLessThan(grid.y + grid.height);       // level with it
  await note.getByRole('button', { name: 'Load GPT-2 small…' }).click();
  await expect(page.locator('#loader')).toBeVisible();
  await page.click('#loader-close');
  // A model the page knows nothing about: no head is marked, and there is no note.
  await page.goto(`./#model=${encodeURIComponent(FIXTURE_ARCS)}`);
  await waitForRender(page);
  await expect(page.locator('#scores .cell')).toHaveCount(2 * 3);
  await expect(page.locator('#scores .cell.taught, #scores .taught-mark')).toHaveCount(0);
  await expect(page.locator('#taught-note')).toBeHidden();
});

test('typed text is re-tokenized, with byte fragments merged into characters', async ({ page }) => {
  await openPage(page);
  const text = 'Hello world, naïve café 🦜\n  spaced';
  await setText(page, text);
  const shown = await tokenTexts(page);
  const ids = encode(text);
  console.log(`tokens: ${shown.length} shown, ${ids.length} from gpt-3-encoder`);
  expect(shown).toHaveLength(ids.length);
  expect(shown.join('')).toContain('🦜');
  expect(shown.join('')).toContain('\u21B5'); // newline mark
  const continuations = await page.locator('#view .tokens.from .token.continuation').count();
  expect(continuations).toBeGreaterThan(0);     // the emoji spans several byte tokens
  expect(shown.join('')).not.toContain('\uFFFD');
});

test('arcs drawn match the attention the engine computes, for every layer and head switched to', async ({ page }) => {
  await openPage(page);
  await page.locator('#threshold').fill('0');
  const { ids, shape, attention } = await engineAttention(page, DEFAULT_MODEL, ARTICLE_TEXT);
  const [L, H, T] = shape;
  expect(T).toBe(ids.length);
  let worst = 0;
  for (const [layer, head] of [[0, 0], [L - 1, H - 1], [Math.floor(L / 2), 1 % H]]) {
    await choose(page, '#layer', layer);
    await choose(page, '#head', head);
    const arcs = await drawnArcs(page);
    let expected = 0;
    for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) if (at(attention, shape, layer, head, i, j) > 0) expected++;
    expect(arcs).toHaveLength(expected);
    for (const a of arcs) {
      expect(a.head).toBe(head);
      worst = Math.max(worst, Math.abs(a.weight - at(attention, shape, layer, head, a.from, a.to)) / Math.max(1e-6, a.weight));
    }
  }
  console.log(`largest relative difference between drawn and engine weights: ${worst.toExponential(2)}`);
  expect(worst).toBeLessThan(1e-5);
});

test('many arcs are painted on a canvas whose record of the arcs drawn is the engine\'s attention; focus filters it', async ({ page }) => {
  await openPage(page);
  const text = textOf(150);
  await setText(page, text);
  await choose(page, '#head', 'all');
  await choose(page, '#topk', 0);
  await page.locator('#threshold').fill('0');
  const { shape, attention } = await engineAttention(page, DEFAULT_MODEL, text);
  const [L, H, T] = shape, layer = Number(await page.inputValue('#layer'));
  await expect(page.locator('#view .arcview')).toHaveAttribute('data-backend', 'canvas');
  await expect(page.locator('#view path[data-from]')).toHaveCount(0);
  const arcs = await drawnArcs(page);
  let expected = 0;
  for (let h = 0; h < H; h++) for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) if (at(attention, shape, layer, h, i, j) > 0) expected++;
  expect(arcs).toHaveLength(expected);
  let worst = 0;
  for (const a of arcs) worst = Math.max(worst, Math.abs(a.weight - at(attention, shape, layer, a.head, a.from, a.to)) / a.weight);
  console.log(`${arcs.length} arcs on the canvas (${L} layers); largest relative difference from the engine's: ${worst.toExponential(2)}`);
  expect(worst).toBeLessThan(1e-5);
  // The canvas paints something, and hovering a token keeps only its arcs.
  const inked = await page.locator('#view .arc-canvas canvas').evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let k = 3; k < d.length; k += 4) if (d[k] > 0) n++;
    return n;
  });
  expect(inked).toBeGreaterThan(1000);
  await page.hover('#view .tokens.from [data-token-index="3"]');
  const focused = await drawnArcs(page);
  expect(new Set(focused.map((a) => a.from))).toEqual(new Set([3]));
  expect(focused).toHaveLength(arcs.filter((a) => a.from === 3).length);
  // A short text goes back to SVG paths.
  await setText(page, ARTICLE_TEXT);
  await expect(page.locator('#view .arcview')).toHaveAttribute('data-backend', 'svg');
  await expect(page.locator('#view path[data-from]').first()).toBeAttached();
});

test('hover and keyboard focus show only one token\'s arcs', async ({ page }) => {
  await openPage(page);
  await page.locator('#threshold').fill('0');
  await page.hover('#view .tokens.from [data-token-index="5"]');
  let arcs = await drawnArcs(page);
  expect(arcs.length).toBeGreaterThan(0);
  expect(new Set(arcs.map((a) => a.from))).toEqual(new Set([5]));
  await page.hover('#view .tokens.to [data-token-index="0"]');
  arcs = await drawnArcs(page);
  expect(new Set(arcs.map((a) => a.to))).toEqual(new Set([0]));
  await page.mouse.move(0, 0);
  // Keyboard: focus the first query token, arrow down twice.
  await page.locator('#view .tokens.from [data-token-index="0"]').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(page.locator('#view .tokens.from [data-token-index="2"]')).toBeFocused();
  arcs = await drawnArcs(page);
  expect(new Set(arcs.map((a) => a.from))).toEqual(new Set([2]));
  await expect(page.locator('#top5-where')).toContainText('token 2');
  // The accessible table lists the same arcs.
  await page.click('.arc-table summary');
  await expect(page.locator('#arc-table table tbody tr')).toHaveCount(await tokenTexts(page).then((t) => t.length));
});

test('top-k, threshold, sink and aggregation filters', async ({ page }) => {
  await openPage(page);
  await choose(page, '#head', 'all');
  const H = await page.locator('#head option').count() - 3;
  await choose(page, '#topk', 1);
  let arcs = await drawnArcs(page);
  const perRow = new Map();
  for (const a of arcs) perRow.set(`${a.from}/${a.head}`, (perRow.get(`${a.from}/${a.head}`) || 0) + 1);
  expect(Math.max(...perRow.values())).toBe(1);
  expect(new Set(arcs.map((a) => a.head)).size).toBe(H);
  // Hide the sink: nothing points at token 0 and each row is renormalized.
  await choose(page, '#topk', 0);
  await page.locator('#threshold').fill('0');
  await page.uncheck('#sink');
  await choose(page, '#head', 0);
  arcs = await drawnArcs(page);
  expect(arcs.filter((a) => a.to === 0)).toHaveLength(0);
  const sums = new Map();
  for (const a of arcs) sums.set(a.from, (sums.get(a.from) || 0) + a.weight);
  let worst = 0;
  for (const s of sums.values()) worst = Math.max(worst, Math.abs(s - 1));
  console.log(`largest row-sum error after hiding the sink: ${worst.toExponential(2)}`);
  expect(worst).toBeLessThan(1e-4);
  await page.check('#sink');
  // Aggregates draw in one colour (head -1).
  await choose(page, '#head', 'max');
  await choose(page, '#layer', 'mean');
  arcs = await drawnArcs(page);
  expect(new Set(arcs.map((a) => a.head))).toEqual(new Set([-1]));
  // Matrix mode: one cell per token pair.
  await page.click('label:has(input[value="matrix"])');
  const T = (await tokenTexts(page)).length;
  await expect(page.locator('#view .matrix rect[data-weight]')).toHaveCount(T * T);
});

test('generate appends tokens one at a time, and the arcs grow with them', async ({ page }) => {
  await openPage(page);
  const before = (await tokenTexts(page)).length;
  const start = await renders(page);
  await page.fill('#gen-count', '6');
  await page.click('#generate');
  await expect(page.locator('#generate')).toHaveText('Generate');
  const after = await tokenTexts(page);
  expect(after.length).toBeGreaterThan(before);
  expect(after.length).toBeLessThanOrEqual(before + 6);
  // One redraw per generated token at least: the arcs grew step by step.
  expect(await renders(page) - start).toBeGreaterThanOrEqual(after.length - before);
  const arcs = await drawnArcs(page);
  expect(arcs.some((a) => a.from === after.length - 1)).toBe(true);
  expect(await page.inputValue('#text')).not.toBe("The trophy didn't fit in the bag because it was too big");
});

test('a token made of markup is shown as text, never parsed', async ({ page }) => {
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  await openPage(page);
  await setText(page, '<img src=x onerror=alert(1)>');
  expect(await page.locator('#view img').count()).toBe(0);
  expect((await tokenTexts(page)).join('')).toBe('<img\u00B7src=x\u00B7onerror=alert(1)>');
  await expect(page.locator('#top5 tbody tr').first()).toBeVisible();
  expect(await page.locator('#top5 img, #next img').count()).toBe(0);
  expect(dialogs).toEqual([]);
});

test('export SVG: a standalone file with every drawn arc and the tokens', async ({ page }) => {
  await openPage(page);
  const arcs = await drawnArcs(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-svg')]);
  const svg = readFileSync(await download.path(), 'utf8');
  expect(download.suggestedFilename()).toBe('arcscope-attention.svg');
  expect(svg).toMatch(/^<\?xml/);
  expect((svg.match(/<path /g) || []).length).toBe(arcs.length);
  expect(svg).toContain('·trophy');
  expect(svg).not.toContain('<script');
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('#export-png')]);
  expect(readFileSync(await png.path()).subarray(1, 4).toString()).toBe('PNG');
});

test('export SVG of a text with NUL, other control characters and U+FFFE is well-formed XML', async ({ page }) => {
  await openPage(page);
  await setText(page, 'a\u0000b\u0001c\u001Fd\uFFFEe');
  await drawnArcs(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-svg')]);
  const svg = readFileSync(await download.path(), 'utf8');
  const errors = await page.evaluate((text) =>
    new DOMParser().parseFromString(text, 'image/svg+xml').getElementsByTagName('parsererror').length, svg);
  expect(errors).toBe(0);
  expect(svg).toContain('\u2400');  // NUL, shown as its Control Picture
});

test('a copied link reopens the same view', async ({ page, context }) => {
  await openPage(page);
  await setText(page, 'To be, or not to be, that is the question');
  expect(page.url()).toContain('text=To%20be%2C%20or%20not');
  await choose(page, '#layer', 1);
  await choose(page, '#head', 'all');
  await choose(page, '#topk', 3);
  await page.uncheck('#sink');
  const url = page.url();
  expect(url).toContain('head=all');
  const arcs = await drawnArcs(page);
  const other = await context.newPage();
  await other.goto(url);
  await waitForRender(other);
  expect(await other.inputValue('#text')).toBe('To be, or not to be, that is the question');
  expect(await other.inputValue('#layer')).toBe('1');
  expect(await other.inputValue('#head')).toBe('all');
  expect(await other.inputValue('#topk')).toBe('3');
  expect(await other.isChecked('#sink')).toBe(false);
  expect(await drawnArcs(other)).toEqual(arcs);
});

test('a link with settings that are not valid says which, and opens with their defaults', async ({ page }) => {
  await openPage(page, '#layer=1&topk=lots&mode=pie');
  await expect(page.locator('#link-notice')).toBeVisible();
  await expect(page.locator('#link-notice')).toHaveText(
    'This link\'s topk "lots" is not valid: use an integer from 0 up (0 draws every arc) or "auto"; mode "pie" is not valid: use "arcs" or "matrix". The default is used instead.');
  expect(await page.inputValue('#layer')).toBe('1');
  expect(await page.inputValue('#topk')).toBe('auto');
  expect((await drawnArcs(page)).length).toBeGreaterThan(0);
});

test('a link whose layer, head or token the model or text lacks says so, and opens with the defaults', async ({ page }) => {
  await openPage(page, '#layer=99&head=7&token=99999');
  await expect(page.locator('#link-notice')).toBeVisible();
  await expect(page.locator('#link-notice')).toHaveText(new RegExp("^This link's layer 99 is past .*'s 4 layers " +
    '\\(0 to 3\\); head 7 is past .*\'s 4 heads \\(0 to 3\\); token 99999 is past the text\'s \\d+ tokens \\(0 to \\d+\\)\\. ' +
    'The default is used instead\\.$'));
  expect(await page.inputValue('#layer')).toBe('3');
  expect((await drawnArcs(page)).length).toBeGreaterThan(0);
});

test('a click pins a token\'s arcs and the top-5 table follows it; a second click unpins', async ({ page }) => {
  await openPage(page);
  const token = page.locator('#view .tokens.from [data-token-index="4"]');
  await token.click();
  await page.mouse.move(0, 0);
  let arcs = await drawnArcs(page);
  expect(new Set(arcs.map((a) => a.from))).toEqual(new Set([4]));
  await expect(page.locator('#top5-where')).toContainText('token 4');
  expect(page.url()).toContain('token=4');
  await token.click();
  await page.mouse.move(0, 0);
  arcs = await drawnArcs(page);
  expect(new Set(arcs.map((a) => a.from)).size).toBeGreaterThan(1);
});

// The context length of the model the explorer runs on, read from the model file with the engine module itself.
const contextOf = (page, url) => page.evaluate(async (url) => {
  const { createEngine } = await import('/lib/arcscope.js');
  const model = (await createEngine()).loadModel(new Uint8Array(await (await fetch(url)).arrayBuffer()));
  const n = model.config.n_ctx;
  model.free();
  return n;
}, url);

// A text of exactly n GPT-2 tokens ("To be be be ...": " be" is one token however often it repeats).
function textOf(n) {
  const text = `To${' be'.repeat(n - 1)}`;
  expect(encode(text)).toHaveLength(n);
  return text;
}

test('a token counter against the model\'s context; a text too long clears the drawing and says what to do', async ({ page }) => {
  await openPage(page);
  const max = await contextOf(page, DEFAULT_MODEL);
  const counter = page.locator('#token-count');
  await expect(counter).toHaveText(`${encode(ARTICLE_TEXT).length} / ${max} tokens`);
  // Near the limit the counter says so before anything fails.
  const near = Math.floor(max * 0.95);
  await page.evaluate(() => {  // the worker calls the page makes from here on
    const e = window.arcscopePage.worker, call = e.call.bind(e);
    window.calls = [];
    e.call = (op, ...rest) => { window.calls.push(op); return call(op, ...rest); };
  });
  await setText(page, textOf(near));
  await expect(counter).toHaveText(`${near} / ${max} tokens`);
  await expect(counter).toHaveClass(/near/);
  expect((await tokenTexts(page)).length).toBe(near);
  // One round trip counts the tokens and runs the model: the analysis tells the count, no tokenize before it.
  const calls = await page.evaluate(() => window.calls);
  expect(calls).toContain('analyze');
  expect(calls).not.toContain('tokenize');
  // Past it: the error says by how much to shorten it (and which model reads more), and nothing of the old text's
  // drawing stays under it.
  const over = max + 44;
  await page.fill('#text', textOf(over));
  await expect(counter).toHaveText(`${over} / ${max} tokens`);
  await expect(counter).toHaveClass(/over/);
  const error = page.locator('#explore-error');
  await expect(error).toBeVisible();
  console.log(`too long: ${await error.textContent()}`);
  await expect(error).toContainText(`The text is ${over} tokens long`);
  await expect(error).toContainText(`reads at most ${max}: shorten it by 44 tokens (about`);
  if (max < 1024) await expect(error).toContainText('load GPT-2 small ("Load GPT-2 small…" at the top), which reads 1,024 tokens');
  expect(await drawnArcs(page)).toEqual([]);
  expect(await tokenTexts(page)).toEqual([]);
  await expect(page.locator('#top5 tbody tr')).toHaveCount(0);
  await expect(page.locator('#next li')).toHaveCount(0);
  // Shortened, it draws again.
  await setText(page, ARTICLE_TEXT);
  await expect(error).toBeHidden();
  await expect(counter).toHaveText(`${encode(ARTICLE_TEXT).length} / ${max} tokens`);
  await expect(counter).not.toHaveClass(/near|over/);
  expect((await drawnArcs(page)).length).toBeGreaterThan(0);
});

test('a shared link\'s token= is pinned when the page opens, and unpinning clears it from the link', async ({ page }) => {
  await openPage(page, '#token=4');
  const token = page.locator('#view .tokens.from [data-token-index="4"]');
  await expect(token).toHaveClass(/current/);
  await expect(page.locator('#top5-token')).toHaveText('\u00B7fit');
  await expect(page.locator('#top5-where')).toContainText('token 4');
  const arcs = await drawnArcs(page);
  expect(arcs.length).toBeGreaterThan(0);
  expect(new Set(arcs.map((a) => a.from))).toEqual(new Set([4]));
  expect(page.url()).toContain('token=4');
  // Switching the head keeps the pin (no keyboard focus was in the tokens to lose).
  await choose(page, '#head', 0);
  expect(new Set((await drawnArcs(page)).map((a) => a.from))).toEqual(new Set([4]));
  await expect(page.locator('#top5-where')).toContainText('token 4, layer');
  // Unpinned, the card goes back to the article's " it" and the link no longer names a token.
  await token.click();
  await page.mouse.move(0, 0);
  await expect(token).not.toHaveClass(/current/);
  await expect(page.locator('#top5-token')).toHaveText('\u00B7it');
  await expect.poll(() => page.url()).not.toContain('token=');
  expect(new Set((await drawnArcs(page)).map((a) => a.from)).size).toBeGreaterThan(1);
});
