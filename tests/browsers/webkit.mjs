// webkit.mjs: WebKitGTK's MiniBrowser (Safari's engine), driven by selenium-webdriver through webkit2gtk-driver's
// WebKitWebDriver. MiniBrowser has no headless mode, so the driver runs under xvfb-run, in a process group of its own
// that close() (or the test process's exit) ends whole: Xvfb, the driver, MiniBrowser and its web processes. HOME and
// the XDG folders point at a fresh temporary folder, so each run starts with an empty profile.
// -> the suite's browser: {name, version, open(url), run(fn, ...args), type(selector, text), close(), relaxedSimd}
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, By } from 'selenium-webdriver';

const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

const freePort = () => new Promise((ok, fail) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
  s.on('error', fail);
});

// Resolves once the driver answers on port; rejects if its process ends first or it is silent for three minutes.
async function driverUp(port, child) {
  let exited = null;
  child.once('exit', (code, signal) => { exited = `WebKitWebDriver under xvfb-run exited (${signal ?? code})`; });
  for (const deadline = Date.now() + 180_000; Date.now() < deadline;) {
    if (exited) throw new Error(exited);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/status`)).ok) return;
    } catch { /* not listening yet */ }
    await new Promise((ok) => setTimeout(ok, 200));
  }
  throw new Error(`WebKitWebDriver did not answer on port ${port} within three minutes`);
}

export async function launchWebKit() {
  const port = await freePort();
  const home = mkdtempSync(join(tmpdir(), 'arcscope-webkit-'));
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'),
    XDG_CACHE_HOME: join(home, 'cache') };
  const child = spawn('xvfb-run', ['-a', 'WebKitWebDriver', `--port=${port}`], { detached: true, stdio: 'ignore', env });
  const ended = new Promise((ok) => child.once('exit', ok));
  const kill = () => {
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
  };
  process.once('exit', kill);
  const stop = async () => {
    kill();
    await ended;
    process.off('exit', kill);
    rmSync(home, { recursive: true, force: true, maxRetries: 3 });
  };
  try {
    await driverUp(port, child);
    const driver = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
    }).build();
    await driver.manage().setTimeouts({ script: 300_000, pageLoad: 120_000 });
    return {
      name: 'WebKitGTK',
      relaxedSimd: false, // as Safari: no relaxed SIMD, so the engine must fall back to SIMD128 (builds.mjs)
      version: (await driver.getCapabilities()).get('browserVersion'),
      // A fresh document each time, even when only the hash differs from the last URL.
      open: async (url) => { await driver.get('about:blank'); await driver.get(url); },
      // WebDriver's Execute Script waits for a returned promise.
      run: (fn, ...args) => driver.executeScript(`return (${fn}).apply(null, arguments);`, ...args),
      type: (selector, text) => driver.findElement(By.css(selector)).sendKeys(text),
      close: async () => {
        try { await driver.quit(); } finally { await stop(); }
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
