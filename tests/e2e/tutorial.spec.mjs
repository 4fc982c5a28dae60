// Sections 1-4 and 6: the article's building blocks, live in the worker.
import { test, expect } from '@playwright/test';
import { watchConsole } from './helpers.mjs';

test('query, key, value: weights rows sum to 1, and re-seeding changes them', async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto('./');
  const sums = page.locator('#qkv-weights .note');
  await expect(sums).toHaveCount(8);
  await expect(sums.first()).toHaveText(/Σ 1\.0000/);
  const weights = () => page.locator('#qkv-weights rect[data-weight]').evaluateAll((r) => r.map((x) => +x.dataset.weight));
  const before = await weights();
  expect(before).toHaveLength(64);
  for (let i = 0; i < 8; i++) {
    const s = before.slice(i * 8, i * 8 + 8).reduce((a, b) => a + b, 0);
    expect(Math.abs(s - 1)).toBeLessThan(1e-4);
  }
  await page.click('#qkv-reseed');
  await expect(page.locator('#qkv-seed')).not.toHaveText('42');
  await expect.poll(async () => (await weights()).some((w, i) => Math.abs(w - before[i]) > 1e-4)).toBe(true);
  expect(errors).toEqual([]);
});

test('causal masking: the upper triangle is zero with the mask and not without', async ({ page }) => {
  await page.goto('./');
  const upper = page.locator('#mask-upper');
  await expect(upper).toHaveText(/^0\.0+$/);
  const cells = await page.locator('#mask-weights rect[data-weight]').evaluateAll((r) => r.map((x) => [+x.dataset.from, +x.dataset.to, +x.dataset.weight]));
  let maxUpper = 0;
  for (const [i, j, w] of cells) if (j > i) maxUpper = Math.max(maxUpper, w);
  console.log(`largest weight above the diagonal with the mask: ${maxUpper}`);
  expect(maxUpper).toBe(0);
  await page.uncheck('#mask-toggle');
  await expect.poll(async () => Number(await upper.textContent())).toBeGreaterThan(0.5);
  await page.check('#mask-toggle');
  await expect(upper).toHaveText(/^0\.0+$/);
});

test('causal masking: masked scores are hatched and the visible ones keep their colour scale', async ({ page }) => {
  await page.goto('./');
  await expect(page.locator('#mask-upper')).toHaveText(/^0\.0+$/);
  const T = 8;
  const cells = () => page.locator('#mask-scores rect.cell').evaluateAll((rects) => rects.map((r) => ({
    masked: r.classList.contains('masked'), opacity: Number(r.getAttribute('fill-opacity')),
    fill: getComputedStyle(r).fill, title: r.textContent })));
  await expect.poll(async () => (await cells()).filter((c) => c.masked).length).toBe((T * (T - 1)) / 2);
  const all = await cells();
  const masked = all.filter((c) => c.masked), visible = all.filter((c) => !c.masked);
  // Every masked cell fills with the drawing's one hatch pattern, and is the -inf the engine wrote.
  const patterns = await page.locator('#mask-scores pattern').evaluateAll((p) => p.map((x) => x.id));
  expect(patterns).toHaveLength(1);
  for (const c of masked) {
    expect(c.fill).toContain(`#${patterns[0]}`);
    expect(c.title).toBe('masked');
  }
  // The visible cells are scaled over the finite scores only: many distinct opacities, the largest near 1.
  const opacities = visible.map((c) => c.opacity);
  const distinct = new Set(opacities.map((o) => o.toFixed(2))).size;
  console.log(`visible cells: ${visible.length}, distinct opacities: ${distinct}, range ${Math.min(...opacities)}..${Math.max(...opacities)}`);
  expect(visible).toHaveLength((T * (T + 1)) / 2);
  expect(distinct).toBeGreaterThan(10);
  expect(Math.max(...opacities)).toBeGreaterThan(0.99);
  // With the mask off, nothing is hatched.
  await page.uncheck('#mask-toggle');
  await expect.poll(async () => (await cells()).filter((c) => c.masked).length).toBe(0);
});

// The page's seeds (web/tutorial/page/tutorial.js and web/tutorial/worker/demos.js: x from seed s, the layer from
// s + 1), run here on the engine module itself in the page's main thread, not through the worker or the page's code.
function engineBlocks(page) {
  return page.evaluate(async () => {
    const { createEngine } = await import('/lib/arcscope.js');
    const e = await createEngine();
    const run = (make, seed, mask) => {
      const x = e.randomNormal([2, 8, 64], { seed });
      const layer = make(seed + 1);
      const r = layer.forward(x.data, x.shape, { mask: mask ? e.causalMask(8) : null });
      layer.free();
      return { x: x.shape, out: r.out.shape, weights: r.weights.shape, w: Array.from(r.weights.data), o: Array.from(r.out.data) };
    };
    const single = run((s) => e.singleHeadAttention(64, 16, { seed: s }), 42, false);
    const masked = run((s) => e.singleHeadAttention(64, 16, { seed: s }), 7, true);
    const multi = run((s) => e.multiHeadAttention(64, 4, { seed: s }), 42, true);
    const pe = e.positionalEncoding(64, 64);
    const table = pe.table();
    pe.free();
    const mask5 = e.causalMask(5);
    let upper = 0;
    for (let i = 0; i < 8; i++) for (let j = i + 1; j < 8; j++) upper += masked.w[i * 8 + j];
    return { single, multi, upper, rowSum: single.w.slice(0, 8).reduce((a, b) => a + b, 0),
      mask5: { data: Array.from(mask5.data), shape: mask5.shape },
      peCorner: [0, 1, 2, 3].flatMap((p) => Array.from(table.data.slice(p * 64, p * 64 + 4))) };
  });
}

const printedShape = (text) => JSON.parse(text.replace('(', '[').replace(')', ']'));
const printedNumbers = (text) => text.replace(/^tensor/, '').match(/-?\d+\.\d*/g).map(Number);

test('the article\'s printouts show the shapes and values the engine computes', async ({ page }) => {
  const errors = watchConsole(page);
  await page.goto('./');
  const want = await engineBlocks(page);
  // Section 1: the batch's shapes and the first row's sum, worded as the article prints them.
  await expect(page.locator('#print-weights-sum')).not.toHaveText('…');
  const print1 = await page.locator('#qkv-print').textContent();
  console.log(`section 1 prints:\n${print1}`);
  expect(print1).toMatch(/^Input shape: \(2, 8, 64\)\nOutput shape: \(2, 8, 16\)\nWeights shape: \(2, 8, 8\)\nWeights sum \(should be 1\): 1\.0000$/);
  expect(printedShape(await page.locator('#print-x-shape').textContent())).toEqual(want.single.x);
  expect(printedShape(await page.locator('#print-out-shape').textContent())).toEqual(want.single.out);
  expect(printedShape(await page.locator('#print-weights-shape').textContent())).toEqual(want.single.weights);
  expect(await page.locator('#print-weights-sum').textContent()).toBe(want.rowSum.toFixed(4));
  // Section 2: causal_mask(5) as PyTorch prints it, and the upper-triangle sum.
  await expect(page.locator('#print-mask')).not.toHaveText('…');
  const mask = await page.locator('#print-mask').textContent();
  console.log(`section 2 prints:\n${mask}\nUpper triangle weight sum: ${await page.locator('#mask-upper').textContent()}`);
  expect(mask).toBe('tensor([[1., 0., 0., 0., 0.],\n        [1., 1., 0., 0., 0.],\n        [1., 1., 1., 0., 0.],\n' +
    '        [1., 1., 1., 1., 0.],\n        [1., 1., 1., 1., 1.]])');
  expect(printedNumbers(mask)).toEqual(want.mask5.data);
  expect(want.mask5.shape).toEqual([5, 5]);
  await expect(page.locator('#mask-upper')).toHaveText(want.upper.toFixed(6));
  expect(want.upper).toBe(0);
  // Section 3: the output after W_o, drawn, and its shape printed.
  await expect(page.locator('#print-mha-shape')).toHaveText('(2, 8, 64)');
  expect(printedShape(await page.locator('#print-mha-shape').textContent())).toEqual(want.multi.out);
  await expect(page.locator('#heads-out rect.cell')).toHaveCount(8 * 64);
  await expect(page.locator('#heads-out rect.cell').first()).not.toHaveText('');
  const shown = (await page.locator('#heads-out rect.cell').allTextContents()).map(Number);
  let worst = 0;
  shown.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - want.multi.o[i])); });
  console.log(`MHA output after W_o: largest difference between the drawing's titles and the engine: ${worst.toExponential(2)}`);
  expect(worst).toBeLessThanOrEqual(0.0051); // titles show 2-3 decimals
  // Section 4: pe.pe[0, :4, :4].
  await expect(page.locator('#print-pe')).not.toHaveText('…');
  const pe = await page.locator('#print-pe').textContent();
  console.log(`section 4 prints:\n${pe}`);
  expect(pe.split('\n')).toHaveLength(4);
  expect(printedNumbers(pe)).toEqual(want.peCorner.map((v) => Number(v.toFixed(4))));
  expect(errors).toEqual([]);
});

test('multi-head: four causal heads with different patterns', async ({ page }) => {
  await page.goto('./');
  const heads = page.locator('#heads-weights figure');
  await expect(heads).toHaveCount(4);
  await expect(page.locator('#heads-weights rect[data-weight]')).toHaveCount(4 * 64);
  const w = await page.locator('#heads-weights rect[data-weight]').evaluateAll((r) => r.map((x) => +x.dataset.weight));
  let diff = 0;
  for (let i = 0; i < 64; i++) diff = Math.max(diff, Math.abs(w[i] - w[64 + i]));
  console.log(`largest difference between head 0 and head 1: ${diff}`);
  expect(diff).toBeGreaterThan(0.01);
});

test('positional encoding: the value shown matches the sinusoid formula', async ({ page }) => {
  await page.goto('./');
  await expect(page.locator('#pe-value')).not.toHaveText('…');
  let worst = 0;
  for (const [pos, dim] of [[10, 4], [0, 1], [37, 20], [63, 63]]) {
    await page.locator('#pe-pos').fill(String(pos));
    await page.locator('#pe-dim').fill(String(dim));
    await expect(page.locator('#pe-pos-out')).toHaveText(String(pos));
    const shown = Number(await page.locator('#pe-value').textContent());
    const angle = pos / 10000 ** ((2 * Math.floor(dim / 2)) / 64);
    const expected = dim % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
    worst = Math.max(worst, Math.abs(shown - expected));
  }
  console.log(`largest difference from the formula (3 decimals shown): ${worst}`);
  expect(worst).toBeLessThan(6e-3);
});

test('rotary positions: the score depends on the offset alone, and the printout shows it', async ({ page }) => {
  await page.goto('./');
  await expect(page.locator('#rope-score')).not.toHaveText('…');
  const scoreAt = async (m, n) => {
    await page.locator('#rope-m').fill(String(m));
    await page.locator('#rope-n').fill(String(n));
    await expect(page.locator('#rope-offset')).toHaveText(`m − n = ${m - n}`);
    return Number(await page.locator('#rope-score').textContent());
  };
  // Both sliders moved together: the score stays; one moved alone: it changes.
  const base = await scoreAt(40, 37);
  for (const [m, n] of [[3, 0], [20, 17], [63, 60]]) expect(await scoreAt(m, n)).toBe(base);
  expect(await scoreAt(40, 20)).not.toBe(base);
  // The heat map: 64 x 64 scores, constant along each diagonal to float32's rounding.
  const cells = await page.locator('#rope-scores rect[data-weight]').evaluateAll((r) => r.map((x) => +x.dataset.weight));
  expect(cells).toHaveLength(64 * 64);
  let spread = 0;
  for (let m = 1; m < 64; m++) for (let j = 1; j < 64; j++) spread = Math.max(spread, Math.abs(cells[m * 64 + j] - cells[(m - 1) * 64 + j - 1]));
  console.log(`largest step along a diagonal of the drawn scores: ${spread}`);
  expect(spread).toBeLessThan(1e-4);
  // The printout: four pairs 3 apart print one score; the spread is float32-small.
  const text = await page.locator('#print-rope').textContent();
  const offset3 = text.split('\n').find((line) => line.startsWith('turned, offset 3:'));
  expect(new Set([...offset3.matchAll(/\) (-?\d+\.\d{4})/g)].map((x) => x[1])).size).toBe(1);
  expect(Number(/any diagonal: (\S+)/.exec(text)[1])).toBeLessThan(1e-4);
  await expect(page.locator('#rope-lines .key-entry')).toHaveText(['offset 20, wherever the pair stands', 'query at 40, key at each position']);
});

test("rotary positions inside a model: the loaded model's hook_rot_q is the section's block turning its hook_q", async ({ page }) => {
  await page.goto('./');
  await expect(page.locator('#rotary-model-text')).toContainText('has no hook_rot_q', { timeout: 60_000 });
  await expect(page.locator('#rotary-model-panels')).toBeHidden();
  // GPT-NeoX's partial rotary (a quarter of each head turns), from token ids: the fixture carries no tokenizer.
  await page.goto('./#model=fixtures/neox-4x8.q8.arcs');
  const line = page.locator('#rotary-model-text');
  await expect(line).toContainText('This section\'s RotaryEmbedding turns its hook_q and hook_k', { timeout: 60_000 });
  console.log(await line.textContent());
  await expect(line).toContainText('with every one of the 512 values the same bits');
  await expect(line).toContainText('4 of its 16 dimensions a head turn');
  await expect(page.locator('#rotary-model-panels')).toBeVisible();
  expect(await page.locator('#rope-rot-q rect').count()).toBeGreaterThanOrEqual(16 * 16);  // a cell per value shown
});

test('positional encoding: the line chart has a key naming each line, and each line its own x-axis', async ({ page }) => {
  await page.goto('./');
  await expect(page.locator('#pe-lines svg path.line')).toHaveCount(2);
  await page.locator('#pe-pos').fill('12');
  await page.locator('#pe-dim').fill('6');
  // One key entry per line, naming it, in the line's own style.
  const entries = page.locator('#pe-lines .key-entry');
  await expect(entries).toHaveText(['dimension 6, at each position', 'position 12, in each dimension']);
  const styles = await page.locator('#pe-lines svg').evaluate((svg) => {
    const stroke = (e) => getComputedStyle(e).stroke;
    return { keys: [...svg.querySelectorAll('.key-entry line')].map(stroke),
      lines: [...svg.querySelectorAll('.panel path.line')].map(stroke) };
  });
  expect(styles.keys).toEqual(styles.lines);
  expect(new Set(styles.lines).size).toBe(2);
  // Two x-axes, one per line, at different heights, with different labels; each line lies above its own axis.
  const axes = await page.locator('#pe-lines .panel').evaluateAll((panels) => panels.map((p) => {
    const axis = p.querySelector('.x-axis'), line = p.querySelector('path.line').getBBox();
    return { label: p.querySelector('.x-axis-label').textContent, y: +axis.getAttribute('y1'), lineTop: line.y,
      lineBottom: line.y + line.height };
  }));
  console.log(`x-axes: ${JSON.stringify(axes.map(({ label, y }) => ({ label, y })))}`);
  expect(axes.map((a) => a.label)).toEqual(['position', 'dimension']);
  expect(axes[0].y).not.toBe(axes[1].y);
  expect(axes[0].lineBottom).toBeLessThanOrEqual(axes[0].y + 0.5);
  expect(axes[1].lineTop).toBeGreaterThan(axes[0].y);
});

test('cost experiment: four lengths timed in the worker and a quadratic fitted', async ({ page }) => {
  test.setTimeout(360_000);
  await page.goto('./');
  await page.click('#cost-run');
  await expect(page.locator('#cost-table tbody tr')).toHaveCount(4, { timeout: 300_000 });
  await expect(page.locator('#cost-chart path.fit')).toHaveCount(1);
  await expect(page.locator('#cost-chart circle.point')).toHaveCount(4);
  await expect(page.locator('#cost-status')).toContainText('n²');
  const ms = await page.locator('#cost-table tbody tr td:nth-child(2)').allTextContents();
  console.log(`ms at 128, 256, 512, 1024 tokens: ${ms.join(', ')}`);
  expect(Number(ms[3])).toBeGreaterThan(Number(ms[0]));
});
