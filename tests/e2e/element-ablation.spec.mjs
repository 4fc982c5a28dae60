// <arc-scope mode="ablation">: the head-effect heatmap of an ablation sweep, checked against model.ablationSweep run
// independently in the page with the engine module (not the worker, not the element's code); its attributes read
// strictly, its errors inside the element.
import { test, expect } from '@playwright/test';
import { watchConsole, addElement, DEFAULT_MODEL } from './helpers.mjs';

const LINE = ' the quick brown fox jumps over the lazy dog. the quick brown fox jumps over the lazy';

// model.ablationSweep in the page's main thread, on the text's tokens as the element reads them (no <|endoftext|>):
// {baseline, metric: number[]}.
function engineSweep(page, modelUrl, input, answer, wrong, kind) {
  return page.evaluate(async ({ modelUrl, input, answer, wrong, kind }) => {
    const { createEngine } = await import('/lib/arcscope.js');
    const engine = await createEngine();
    const model = engine.loadModel(new Uint8Array(await (await fetch(modelUrl)).arrayBuffer()));
    const r = model.ablationSweep({ input, answer, wrong, kind, prependBos: false });  // the element's tokens
    model.free();
    return { baseline: r.baseline, metric: Array.from(r.heads.data), shape: r.heads.shape };
  }, { modelUrl, input, answer, wrong, kind });
}

// The drawn cells: [{layer, head, metric, effect}] in row order.
const cells = (el) => el.evaluate((el) => [...el.shadowRoot.querySelectorAll('rect.cell')].map((r) => ({
  layer: Number(r.dataset.layer), head: Number(r.dataset.head), metric: Number(r.dataset.metric),
  effect: Number(r.dataset.effect), marked: r.classList.contains('marked'), neg: r.classList.contains('neg') })));

test('mode="ablation" draws one cell per layer and head, equal to model.ablationSweep', async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto('./embed.html');
  for (const kind of ['zero', 'mean']) {
    const attrs = { mode: 'ablation', text: LINE, answer: ' dog', wrong: ' cat', model: DEFAULT_MODEL,
      ...(kind === 'mean' ? { ablate: 'mean' } : {}) };
    const { tokens } = await addElement(page, attrs);
    expect(tokens).toHaveLength(18);
    const el = page.locator('arc-scope').last();
    const drawn = await cells(el);
    const want = await engineSweep(page, DEFAULT_MODEL, LINE, ' dog', ' cat', kind);
    expect(want.shape).toEqual([4, 4]);
    expect(drawn).toHaveLength(16);
    drawn.forEach((c, i) => {
      expect([c.layer, c.head]).toEqual([Math.floor(i / 4), i % 4]);
      expect(c.metric).toBe(want.metric[i]);                     // the same float, bit for bit
      expect(c.effect).toBeCloseTo(want.metric[i] - want.baseline, 5);
      expect(c.neg).toBe(c.effect < 0);                          // diverging: a drop in the negative colour
    });
    const result = await el.evaluate((el) => ({ mode: el.result.mode, baseline: el.result.ablation.baseline,
      metric: Array.from(el.result.ablation.metric), shape: el.result.ablation.shape, kind: el.result.ablation.kind,
      attention: el.result.shape }));
    expect(result).toMatchObject({ mode: 'ablation', baseline: want.baseline, metric: want.metric, shape: [4, 4], kind,
      attention: [4, 4, 18, 18] });
    console.log(`${kind} ablation: metric ${want.baseline.toFixed(2)}; without layer 1 head 0 ${want.metric[4].toFixed(2)}, ` +
      `without layer 0 head 0 ${want.metric[0].toFixed(2)}`);
    if (kind === 'zero') expect(want.metric[4]).toBeLessThan(want.baseline - 5);
    await expect(el.locator('[part="caption"]')).toContainText(`ablation (${kind})`);
    await expect(el.locator('[part="caption"]')).toContainText(want.baseline.toFixed(2));
    await expect(el.getByRole('alert')).toBeHidden();
  }
  expect(page.workers()).toHaveLength(1);
  expect(errors).toEqual([]);
});

test('layer and head mark a cell; switching mode goes back to arcs; properties mirror the new attributes', async ({ page }) => {
  await page.goto('./embed.html');
  await addElement(page, { mode: 'ablation', text: LINE, answer: ' dog', wrong: ' cat', model: DEFAULT_MODEL, layer: '1', head: '0' });
  const el = page.locator('arc-scope').last();
  const marked = (await cells(el)).filter((c) => c.marked);
  expect(marked.map((c) => [c.layer, c.head])).toEqual([[1, 0]]);
  expect(await el.evaluate((el) => [el.answer, el.wrong, el.ablate])).toEqual([' dog', ' cat', null]);
  const rendered = el.evaluate((el) => new Promise((ok) => el.addEventListener('arcscope-rendered', (e) => ok(e.detail), { once: true })));
  await el.evaluate((el) => { el.mode = 'arcs'; el.head = 'all'; });
  expect(await rendered).toMatchObject({ mode: 'arcs', layer: 1, head: 'all' });
  await expect(el.locator('rect.cell')).toHaveCount(0);
  await expect(el.locator('path[data-from]').first()).toBeAttached();
  expect(await el.evaluate((el) => el.result.ablation)).toBeUndefined();
});

test('mode="ablation" errors are the element\'s: missing or multi-token answers, bad ablate, src', async ({ page }) => {
  await page.goto('./embed.html');
  // The element's message, as arcscope-error's detail carried it (page.evaluate wraps it with a prefix and a stack).
  const fails = (attrs) => addElement(page, attrs).then(() => 'rendered',
    (e) => e.message.split('\n')[0].replace(/^page\.evaluate: Error: /, ''));
  const base = { mode: 'ablation', text: LINE, model: DEFAULT_MODEL };
  expect(await fails({ ...base, answer: ' dog' })).toBe('mode "ablation" needs wrong: one token each (answer=" dog" ' +
    'wrong=" cat"), the metric being logit(answer) - logit(wrong) after the text');
  expect(await fails({ ...base, answer: ' dog and', wrong: ' cat' }))
    .toBe("answer ' dog and' is 2 tokens; it must be exactly one (mind the leading space: ' Mary')");
  expect(await fails({ ...base, answer: ' dog', wrong: ' cat', ablate: 'half' }))
    .toBe('ablate "half" is not valid: use "zero" or "mean"');
  expect(await fails({ mode: 'ablation', src: '/fixtures/attention/x.json', answer: ' dog', wrong: ' cat' }))
    .toBe('mode "ablation" runs the model on text: it cannot use src');
  expect(await fails({ mode: 'pie', text: 'a b' })).toBe('mode "pie" is not valid: use "arcs", "matrix" or "ablation"');
  // The message shows inside the element, and fixing the attribute draws.
  const el = page.locator('arc-scope[answer=" dog and"]');
  await expect(el.getByRole('alert')).toHaveText(/^arc-scope: answer ' dog and' is 2 tokens/);
  const drawn = el.evaluate((el) => new Promise((ok) => el.addEventListener('arcscope-rendered', () => ok(el.result.ablation.shape), { once: true })));
  await el.evaluate((el) => { el.answer = ' dog'; });
  expect(await drawn).toEqual([4, 4]);
  await expect(el.getByRole('alert')).toBeHidden();
});

// The grid is the page's "which heads matter" grid for the keyboard and screen readers (heatmap.js's grid()): Tab
// reaches one cell, the arrows, Home and End move, each cell is a gridcell named by its layer, head and value.
test('mode="ablation" is a grid: Tab reaches it, arrow keys move, each cell names its layer, head and value', async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto('./embed.html');
  await addElement(page, { mode: 'ablation', text: LINE, answer: ' dog', wrong: ' cat', model: DEFAULT_MODEL, layer: '1', head: '0' });
  const el = page.locator('arc-scope').last();
  await el.evaluate((el) => el.before(Object.assign(document.createElement('button'), { textContent: 'before' })));
  const want = await engineSweep(page, DEFAULT_MODEL, LINE, ' dog', ' cat', 'zero');
  const grid = el.getByRole('grid');
  await expect(grid).toHaveAccessibleName(/^change in logit\(·dog\) - logit\(·cat\) with each head ablated \(zero\)/);
  await expect(grid.getByRole('row')).toHaveCount(4);
  const gridcells = grid.getByRole('gridcell');
  await expect(gridcells).toHaveCount(16);
  // Every cell's name: its layer, its head and the metric without it, as the engine computed it.
  const signed = (v) => (v >= 0 ? `+${v.toFixed(2)}` : `\u2212${(-v).toFixed(2)}`);
  const nameOf = (i) => `layer ${Math.floor(i / 4)}, head ${i % 4}: logit(·dog) - logit(·cat) ${want.metric[i].toFixed(2)} ` +
    `without it (${signed(want.metric[i] - want.baseline)} from ${want.baseline.toFixed(2)})`;
  for (let i = 0; i < 16; i++) await expect(gridcells.nth(i)).toHaveAccessibleName(nameOf(i));
  // The marked cell (layer 1, head 0) is the selected one and the grid's one stop in the Tab order.
  await expect(el.locator('rect.cell[aria-selected="true"]')).toHaveCount(1);
  await expect(el.locator('rect.cell[tabindex="0"]')).toHaveCount(1);
  await expect(el.locator('rect.cell[tabindex="0"]')).toHaveAttribute('data-layer', '1');

  const focused = () => el.evaluate((el) => {
    const f = el.shadowRoot.activeElement;
    return f?.matches('rect.cell') ? [Number(f.dataset.layer), Number(f.dataset.head)] : null;
  });
  await page.getByRole('button', { name: 'before' }).focus();
  await page.keyboard.press('Tab');
  expect(await focused()).toEqual([1, 0]);
  for (const [key, at] of [['ArrowRight', [1, 1]], ['ArrowDown', [2, 1]], ['ArrowLeft', [2, 0]], ['ArrowLeft', [2, 0]],
    ['ArrowUp', [1, 0]], ['End', [1, 3]], ['ArrowRight', [1, 3]], ['Home', [1, 0]], ['Control+End', [3, 3]],
    ['ArrowDown', [3, 3]], ['Control+Home', [0, 0]], ['ArrowUp', [0, 0]]]) {
    await page.keyboard.press(key);
    expect(await focused(), key).toEqual(at);
  }
  // One stop in the Tab order: the cell last focused; Tab leaves the grid, Shift+Tab comes back to that cell.
  await expect(el.locator('rect.cell[tabindex="0"]')).toHaveCount(1);
  await page.keyboard.press('Tab');
  expect(await focused()).toBeNull();
  await page.keyboard.press('Shift+Tab');
  expect(await focused()).toEqual([0, 0]);
  // The element draws nothing on a click, so Enter and Space do nothing either: the marked cell stays.
  await page.keyboard.press('Enter');
  await page.keyboard.press(' ');
  await expect(el.locator('rect.cell[aria-selected="true"]')).toHaveAttribute('data-layer', '1');
  // A redrawing (another head marked) keeps the focus on its cell.
  const rendered = el.evaluate((el) => new Promise((ok) => el.addEventListener('arcscope-rendered', ok, { once: true })));
  await el.evaluate((el) => { el.head = '2'; });
  await rendered;
  await expect(el.locator('rect.cell[aria-selected="true"]')).toHaveAttribute('data-head', '2');
  expect(await focused()).toEqual([0, 0]);
  // The focused cell shows it (views.css: the accent stroke).
  expect(await el.evaluate((el) => getComputedStyle(el.shadowRoot.activeElement).strokeWidth)).toBe('3px');
  expect(errors).toEqual([]);
});
