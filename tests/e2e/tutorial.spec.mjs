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

test('cost experiment: four lengths timed in the worker and a quadratic fitted', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('./');
  await page.click('#cost-run');
  await expect(page.locator('#cost-table tbody tr')).toHaveCount(4, { timeout: 100_000 });
  await expect(page.locator('#cost-chart path.fit')).toHaveCount(1);
  await expect(page.locator('#cost-chart circle.point')).toHaveCount(4);
  await expect(page.locator('#cost-status')).toContainText('n²');
  const ms = await page.locator('#cost-table tbody tr td:nth-child(2)').allTextContents();
  console.log(`ms at 128, 256, 512, 1024 tokens: ${ms.join(', ')}`);
  expect(Number(ms[3])).toBeGreaterThan(Number(ms[0]));
});
