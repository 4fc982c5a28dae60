// suite.mjs: the browser suite for one engine (firefox.test.mjs, webkit.test.mjs): the tutorial, the embed page and a
// cross-origin self-hosted <arc-scope>, each compared with the engine's attention computed in Node; then the pages
// given a model that 404s and a corrupt one. Prints each page's first-arcs time (not asserted: a busy machine is
// slow, not wrong) and the largest difference from the engine's weights. Beyond GPT-2, the decoders (decoders.mjs:
// GPT-NeoX, grouped Llama and Qwen3 in q8, 16-bit q16 and f32) give Node's bits in the page on every build it runs.
import { after, before, describe, test } from 'node:test';
import { startSites } from './sites.mjs';
import { checkTutorial, checkTutorialBadModels, checkTutorialCacheStorage } from './tutorial.mjs';
import { checkEmbed } from './embed.mjs';
import { checkCrossOrigin, checkElementBadModels } from './cross-origin.mjs';
import { checkBuilds } from './builds.mjs';
import { checkDecoders, makeDecoderModels } from './decoders.mjs';

export const TEXT = "The trophy didn't fit in the bag because it was too big";
export const TYPED = 'Is this a dagger which I see before me';

const largest = (comparisons) => Math.max(...comparisons.map((c) => c.largest)).toExponential(2);
const arcCounts = (comparisons) => comparisons.map((c) => c.drawn).join(' and ');

export function browserSuite(launch) {
  let browser, sites, decoders;
  describe('browser', { timeout: 600_000 }, () => {
    before(async () => {
      decoders = makeDecoderModels();
      sites = await startSites({ text: TEXT,
        extra: Object.fromEntries(decoders.models.map(({ path, bytes }) => [path, bytes])) });
      browser = await launch();
      console.log(`${browser.name} ${browser.version}`);
    });
    after(async () => {
      await browser?.close();
      await sites?.close();
      decoders?.close();
    });
    const report = (page, r) => console.log(`${browser.name}, ${page}: first arcs ${Math.round(r.firstArcs)} ms after ` +
      `navigation; ${arcCounts(r.arcs)} arcs drawn, largest difference from the engine ${largest(r.arcs)}` +
      (r.matrixLargest !== undefined ? `, matrix ${r.matrixLargest.toExponential(2)}` : '') +
      (r.build ? `; the page said "${r.build}"` : ''));

    test('the tutorial: the engine\'s arcs, redrawn as the reader types; the build named', async () => {
      report('tutorial', await checkTutorial(browser, sites, { text: TEXT, typed: TYPED }));
    });
    test('the embed page: both examples the engine\'s, a typed layer redrawn, the events, the build named', async () => {
      report('embed page', await checkEmbed(browser, sites, { text: TEXT }));
    });
    test('<arc-scope> self-hosted on another origin: the engine\'s arcs, a new text redrawn, the events', async () => {
      report('cross-origin element', await checkCrossOrigin(browser, sites, { text: TEXT, typed: TYPED }));
    });
    test('the builds: relaxed SIMD where it runs, with the SIMD128 build\'s logits, else the SIMD128 fallback alone', async () => {
      const r = await checkBuilds(browser, sites);
      const line = (b) => `${b.simd} (${b.count} logits, hash ${b.hash})`;
      console.log(`${browser.name}: probe ${JSON.stringify(r.probe)}; simd128 ${line(r.builds.simd128)}` +
        (r.builds.relaxed ? `; relaxed ${line(r.builds.relaxed)}` : `; relaxed refused: ${r.refused}`) +
        `; auto runs ${line(r.builds.auto)}, "${r.builds.auto.summary}"` +
        (r.builds.auto.simdWhy ? `, simdWhy "${r.builds.auto.simdWhy}"` : ''));
    });
    test('the decoders: GPT-NeoX, grouped Llama and Qwen3 in q8, q16 and f32 give Node\'s bits on every build', async () => {
      for (const r of await checkDecoders(browser, sites, decoders.models)) {
        console.log(`${browser.name}: ${r.arch} ${r.dtype}, ${r.weightBits}-bit weights, ${r.node.count} floats, ` +
          Object.entries(r.builds).map(([simd, b]) => `${simd} ${b.hash}`).join(', ') + `, Node ${r.node.hash}`);
      }
    });
    test('a page without Cache Storage (plain http off localhost) says a converted model is not kept, and why', async (t) => {
      if (!sites.insecure) { t.skip('this machine has no network address besides loopback'); return; }
      const notes = await checkTutorialCacheStorage(browser, sites);
      console.log(`${browser.name}: the model bar said\n  ${Object.entries(notes).map(([k, v]) => `on ${k}: ${v}`).join('\n  ')}`);
    });
    test('a model that 404s and a corrupt one: the tutorial and the element say why, and do not go blank', async () => {
      const page = await checkTutorialBadModels(browser, sites);
      const element = await checkElementBadModels(browser, sites);
      console.log(`${browser.name}: the tutorial said\n  ${page.join('\n  ')}\nthe element said\n  ` +
        `${Object.values(element).join('\n  ')}`);
    });
  });
}
