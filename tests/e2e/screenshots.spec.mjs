// Screenshots for people to look at (build/screenshots/, not committed): desktop and phone widths, light
// and dark. Each also checks that nothing overflows the viewport sideways.
import { test, expect } from '@playwright/test';
import { openPage } from './helpers.mjs';

const shots = 'build/screenshots';

for (const [name, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone-360', { width: 360, height: 780 }]]) {
  test(`screenshots at ${name} width`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await openPage(page);
    await page.locator('#explore').scrollIntoViewIfNeeded();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${shots}/page-${name}-full.png`, fullPage: true });
    await page.locator('#explorer').screenshot({ path: `${shots}/explorer-${name}.png` });
    await page.hover('#view .tokens.from [data-token-index="9"]');
    await page.locator('#explorer .view-row').screenshot({ path: `${shots}/explorer-${name}-hover-token.png` });
    await page.goto('./embed.html');
    await expect(page.locator('#example-arcs path[data-from]').first()).toBeAttached();
    await page.screenshot({ path: `${shots}/embed-${name}.png`, fullPage: true });
  });
}

test('screenshot in dark mode', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
  await openPage(page, '#head=all&topk=2');
  await page.locator('#explorer').screenshot({ path: `${shots}/explorer-desktop-dark.png` });
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(bg).toBe('rgb(18, 22, 28)');
});
