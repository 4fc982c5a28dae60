// tutorial.mjs: the tutorial page in one engine: the explorer's arcs are the engine's attention, typing redraws them
// for the new text, the model bar names the engine's build, and nothing reports an error.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot } from '../package/consumer.mjs';
import { engineAttention, expectedArcs } from './reference.mjs';
import { DEFAULT_MODEL_FILE, TINY_CHECKPOINT } from './sites.mjs';
import { arcsEqual, noConsoleErrors, retype, until } from './steps.mjs';

const MODEL = join(repoRoot, 'models', DEFAULT_MODEL_FILE); // the page's default model, /models/ on the server
const VIEW = { layer: 1, head: 2, topk: 0, threshold: 0 };

export async function checkTutorial(browser, { repo }, { text, typed }) {
  const hash = new URLSearchParams({ text, ...VIEW }).toString().replace(/\+/g, '%20');
  await browser.open(`${repo}#${hash}`);
  const first = await arcsEqual(browser, 'the explorer', '#view', expectedArcs(await engineAttention(MODEL, text), VIEW));
  const firstArcs = await browser.run(() => performance.getEntriesByName('arcscope-first-render')[0]?.startTime);

  // The model bar says which build runs (SIMD128 or relaxed SIMD, whichever this engine runs right), on one thread,
  // since this page is not cross-origin isolated.
  const build = await until(browser, "the engine's build in the model bar", (t) => t.startsWith('Engine: '),
    () => document.getElementById('engine-build').textContent);
  assert.match(build, /^Engine: (SIMD128|relaxed SIMD)\b.*, one thread: this page is not cross-origin isolated \(COOP and COEP headers\), which threads need/);

  // Typing a new text, key by key, redraws the arcs for it.
  await retype(browser, '#text', typed);
  const typedText = await browser.run(() => document.getElementById('text').value);
  assert.equal(typedText, typed);
  const after = await arcsEqual(browser, 'the explorer after typing', '#view',
    expectedArcs(await engineAttention(MODEL, typed), VIEW));
  await noConsoleErrors(browser, 'the tutorial');
  return { firstArcs, arcs: [first, after], build };
}

// A model that 404s and a corrupt one: the page says why in its model bar and its error box, and the rest of the page
// (the article's demos) still works.
export async function checkTutorialBadModels(browser, { repo }) {
  const messages = [];
  for (const [model, why] of [['/models/missing.arcs', /HTTP 404|404/], ['/bad/corrupt.arcs', /checksum mismatch.*the file is corrupt/]]) {
    await browser.open(`${repo}#model=${encodeURIComponent(model)}`);
    const shown = await until(browser, `the error for ${model}`, (s) => s.visible, () => ({
      visible: !document.getElementById('model-error').hidden,
      message: document.getElementById('model-error-text').textContent,
      status: document.getElementById('model-status').textContent,
    }));
    assert.match(shown.message, new RegExp(`Could not load the model ${model}: `));
    assert.match(shown.message, why);
    assert.equal(shown.status, `No model loaded: ${model.split('/').pop()} did not open`);
    // Not a blank page: section 1's demo draws its weights all the same.
    await until(browser, "section 1's weights", (n) => n === 64,
      () => document.querySelectorAll('#qkv-weights rect[data-weight]').length);
    await noConsoleErrors(browser, `the tutorial with ${model}`);
    messages.push(shown.message);
  }
  return messages;
}

// A checkpoint converted in the page: on 127.0.0.1 (a secure context) the conversion is kept in Cache Storage; on the
// machine's network address over http there is no Cache Storage (Firefox and WebKit give it only to secure contexts),
// and the model bar says the model is not kept and why, and that the next visit loads it again.
export async function checkTutorialCacheStorage(browser, { repo, insecure }) {
  const notes = {};
  for (const [where, origin] of [['127.0.0.1', repo], ['a network address', insecure]]) {
    await browser.open(`${origin}#model=${encodeURIComponent(TINY_CHECKPOINT)}`);
    const shown = await until(browser, `the converted model on ${where}`, (s) => s.ok || s.error, () => {
      const status = document.getElementById('model-status');
      return { ok: status.classList.contains('ok'), status: status.textContent, secure: isSecureContext,
        cacheStorage: typeof caches !== 'undefined',
        error: document.getElementById('model-error').hidden ? null : document.getElementById('model-error-text').textContent };
    });
    assert.equal(shown.error, null, `${browser.name} on ${where}: the model did not open`);
    assert.match(shown.status, /model\.safetensors: 1 layers × 1 heads, width 8, /);
    if (origin === repo) {
      assert.ok(shown.secure && shown.cacheStorage, `${browser.name}: 127.0.0.1 is a secure context with Cache Storage`);
      assert.doesNotMatch(shown.status, /not kept|would not keep/);
    } else {
      assert.ok(!shown.secure && !shown.cacheStorage, `${browser.name}: plain http on ${origin} has no Cache Storage`);
      assert.match(shown.status, /\(not kept: this page has no Cache Storage, which browsers give only to https pages and localhost, so the next visit loads it again\)/);
    }
    await until(browser, `arcs of the converted model on ${where}`, (n) => n > 0,
      () => document.querySelectorAll('#view path[data-from]').length);
    await noConsoleErrors(browser, `the tutorial on ${where}`);
    notes[where] = shown.status;
  }
  return notes;
}
