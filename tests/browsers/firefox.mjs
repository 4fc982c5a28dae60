// firefox.mjs: Debian's Firefox ESR, headless, driven by puppeteer-core over WebDriver BiDi, in a fresh temporary
// profile that puppeteer removes when the browser closes. -> the suite's browser: {name, version, open(url),
// run(fn, ...args), type(selector, text), close(), relaxedSimd}
import puppeteer from 'puppeteer-core';

export async function launchFirefox() {
  // Generous timeouts: on a busy machine Firefox starts slowly, which is no failure of the page.
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true,
    timeout: 180_000, protocolTimeout: 300_000 });
  try {
    const page = (await browser.pages())[0] ?? await browser.newPage();
    page.setDefaultTimeout(120_000);
    return {
      name: 'Firefox ESR',
      relaxedSimd: true, // Firefox 145+ runs relaxed SIMD (builds.mjs checks this one does)
      version: await browser.version(),
      // A fresh document each time, even when only the hash differs from the last URL.
      open: async (url) => { await page.goto('about:blank'); await page.goto(url, { waitUntil: 'load' }); },
      run: (fn, ...args) => page.evaluate(fn, ...args),
      type: (selector, text) => page.type(selector, text),
      close: () => browser.close(),
    };
  } catch (e) {
    await browser.close();
    throw e;
  }
}
