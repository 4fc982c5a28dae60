// cross-origin.mjs: <arc-scope> self-hosted on another origin, in one engine: a post on one origin loads the element
// from the self-host folder on another (CORS), and draws the engine's attention for the folder's own default model;
// a new text redraws; the events say what loaded and what was drawn; a model that 404s and a corrupt one show their
// message inside the element and fire arcscope-error; nothing reports an error.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { selfHostFolder } from '../package/consumer.mjs';
import { engineAttention, expectedArcs } from './reference.mjs';
import { DEFAULT_MODEL_FILE } from './sites.mjs';
import { arcsEqual, noConsoleErrors, pageWatch, until } from './steps.mjs';

const MODEL = join(selfHostFolder, 'lib', 'models', DEFAULT_MODEL_FILE);
const VIEW = { layer: 2, head: 1, topk: 0, threshold: 0.02 }; // post.html's attributes (sites.mjs), threshold's default

const rendered = (events) => events.filter((e) => e.type === 'arcscope-rendered').map((e) => e.detail);

export async function checkCrossOrigin(browser, { site, assets }, { text, typed }) {
  assert.notEqual(new URL(site).origin, new URL(assets).origin);
  await browser.open(`${site}post.html`);
  const before = await engineAttention(MODEL, text);
  const first = await arcsEqual(browser, 'the cross-origin element', '#figure', expectedArcs(before, VIEW));
  let { events } = await browser.run(pageWatch);
  const ready = events.filter((e) => e.type === 'arcscope-ready').map((e) => e.detail);
  assert.equal(ready.length, 1, `${browser.name}: one arcscope-ready`);
  assert.deepEqual({ ...ready[0], config: undefined, build: undefined },
    { model: DEFAULT_MODEL_FILE, config: undefined, layers: 4, heads: 4, build: undefined });
  // The engine's build: one thread, since the library is on another origin (so not cross-origin isolated either).
  assert.match(ready[0].build.summary, /^(SIMD128|relaxed SIMD), one thread: /, `${browser.name}: the build`);
  assert.deepEqual(ready[0].config, { ...ready[0].config, n_layer: 4, n_head: 4, dtype: 'q8' });
  assert.deepEqual(rendered(events), [{ tokens: before.T, layer: VIEW.layer, head: VIEW.head, mode: 'arcs' }]);
  const firstArcs = events.find((e) => e.type === 'arcscope-rendered').at;

  // A new text: the element draws it once, with the engine's arcs for it.
  await browser.run((t) => { document.getElementById('figure').text = t; }, typed);
  const after = await engineAttention(MODEL, typed);
  const second = await arcsEqual(browser, 'the cross-origin element after a new text', '#figure', expectedArcs(after, VIEW));
  ({ events } = await until(browser, 'the second arcscope-rendered', (w) => rendered(w.events).length === 2, pageWatch));
  assert.deepEqual(rendered(events)[1], { tokens: after.T, layer: VIEW.layer, head: VIEW.head, mode: 'arcs' });
  assert.deepEqual(events.filter((e) => e.type === 'arcscope-error'), []);
  await noConsoleErrors(browser, 'the cross-origin post');
  return { firstArcs, arcs: [first, second] };
}

// bad-models.html: a model URL on the asset host that 404s, and a corrupt model file on the post's own origin.
export async function checkElementBadModels(browser, { site }) {
  await browser.open(`${site}bad-models.html`);
  const { events } = await until(browser, 'two arcscope-error events', (w) =>
    w.events.filter((e) => e.type === 'arcscope-error').length >= 2, pageWatch);
  const errors = Object.fromEntries(events.filter((e) => e.type === 'arcscope-error').map((e) => [e.id, e.detail.message]));
  assert.match(errors.missing, /missing\.arcs/);
  assert.match(errors.missing, /404/);
  assert.match(errors.corrupt, /corrupt\.arcs/);
  assert.match(errors.corrupt, /checksum mismatch.*the file is corrupt/);
  // Each element shows its message, in sight: not a blank box.
  const shown = await browser.run(() => ['missing', 'corrupt'].map((id) => {
    const error = document.getElementById(id).shadowRoot.querySelector('.error');
    return { text: error?.textContent, height: error?.getBoundingClientRect().height ?? 0, hidden: error?.hidden };
  }));
  for (const [i, id] of ['missing', 'corrupt'].entries()) {
    assert.equal(shown[i].text, `arc-scope: ${errors[id]}`, `${browser.name}: #${id}'s message`);
    assert.ok(shown[i].height > 0 && !shown[i].hidden, `${browser.name}: #${id}'s message is in sight`);
  }
  assert.equal(events.filter((e) => e.type === 'arcscope-rendered').length, 0);
  await noConsoleErrors(browser, 'the post with bad models');
  return errors;
}
