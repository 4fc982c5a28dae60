// Screenshots of section 7, "Which heads matter", for people to look at (build/screenshots/, not committed): both
// presets at desktop width (the indirect-object one on the default model, where it asks for GPT-2 small, and on the
// 12 x 12 fixture, random weights of GPT-2 small's shape), dark mode, a phone's width (nothing may overflow
// sideways), and <arc-scope mode="ablation">.
import { test, expect } from '@playwright/test';
import { COMPUTE_TIMEOUT, FIXTURE_GPT2_SHAPED, waitForRender } from './helpers.mjs';

const shots = 'build/screenshots';

async function section(page, hash = '') {
  await page.goto(`./${hash}`);
  await waitForRender(page);
  await page.locator('#which-heads').scrollIntoViewIfNeeded();
}
const done = (page) => expect(page.locator('#hm-status')).toHaveAttribute('data-state', 'done', { timeout: COMPUTE_TIMEOUT });

test('section 7 at desktop width: the repeated line on the default model', async ({ page }) => {
  await section(page);
  await done(page);
  await expect(page.locator('#hm-knockout table')).toBeVisible();
  await page.locator('#which-heads').screenshot({ path: `${shots}/heads-matter-induction-desktop.png` });
});

test('section 7 at desktop width: the indirect-object preset, on the default model and on a 12 x 12 model', async ({ page }) => {
  await section(page, '#hm=ioi');
  await expect(page.locator('#hm-needs')).toBeVisible();
  await page.locator('#which-heads').screenshot({ path: `${shots}/heads-matter-ioi-default-model-desktop.png` });
  await section(page, `#model=${encodeURIComponent(FIXTURE_GPT2_SHAPED)}&hm=ioi`);
  await done(page);
  await expect(page.locator('#hm-knockout table')).toBeVisible();
  await page.locator('#which-heads').screenshot({ path: `${shots}/heads-matter-ioi-12x12-fixture-desktop.png` });
});

test('section 7 in dark mode and at a phone\'s width', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
  await section(page);
  await done(page);
  await page.locator('#which-heads').screenshot({ path: `${shots}/heads-matter-induction-desktop-dark.png` });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 360, height: 780 });
  await page.locator('#which-heads').scrollIntoViewIfNeeded();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.locator('#which-heads').screenshot({ path: `${shots}/heads-matter-induction-phone-360.png` });
});

test('<arc-scope mode="ablation">', async ({ page }) => {
  await page.goto('./embed.html');
  await page.evaluate(() => new Promise((ok) => {
    const el = document.createElement('arc-scope');
    el.id = 'ablation-shot';
    for (const [k, v] of Object.entries({ mode: 'ablation', answer: ' dog', wrong: ' cat', layer: '1', head: '0',
      text: ' the quick brown fox jumps over the lazy dog. the quick brown fox jumps over the lazy' })) el.setAttribute(k, v);
    el.addEventListener('arcscope-rendered', ok, { once: true });
    document.querySelector('main, body').prepend(el);
  }));
  await page.locator('#ablation-shot').screenshot({ path: `${shots}/element-ablation.png` });
});
