// steps.mjs: what the browser suite does in a page, the same in every engine (browser: firefox.mjs's or webkit.mjs's).
import assert from 'node:assert/strict';
import { compareArcs } from './reference.mjs';

// Waits, with no deadline but a generous one (a busy machine is slow, not wrong), until check(value) holds for
// value = await browser.run(fn, ...args); -> value. On giving up, says what it waited for and what it saw last.
export async function until(browser, what, check, fn, ...args) {
  let last;
  for (const deadline = Date.now() + 180_000; Date.now() < deadline;) {
    last = await browser.run(fn, ...args);
    if (check(last)) return last;
    await new Promise((ok) => setTimeout(ok, 150));
  }
  assert.fail(`${browser.name}: gave up waiting for ${what}; last seen: ${JSON.stringify(last)?.slice(0, 2000)}`);
}

// In the page: the arcs drawn in sight under root (a selector; its shadow root when it is an <arc-scope>), from
// their paths' data attributes. -> [{from, to, head, weight}]
export function pageArcs(selector) {
  const host = document.querySelector(selector);
  const root = host?.shadowRoot ?? host;
  if (!root) return [];
  return [...root.querySelectorAll('path[data-from]')].filter((p) => getComputedStyle(p).display !== 'none')
    .map((p) => ({ from: +p.dataset.from, to: +p.dataset.to, head: +p.dataset.head, weight: +p.dataset.weight }));
}

// Waits until the arcs under selector are exactly the expected ones (each weight within 1e-5). -> the comparison
export async function arcsEqual(browser, what, selector, expected) {
  let comparison;
  try {
    await until(browser, `${what}: arcs equal to the engine's`, (arcs) => (comparison = compareArcs(arcs, expected)).ok,
      pageArcs, selector);
  } catch (e) {
    e.message = `${e.message.slice(0, 300)}…\nthe last arcs against the engine's ${expected.length}: ${JSON.stringify(comparison)}`;
    throw e;
  }
  return comparison;
}

// In the page: what page-watch.js recorded.
export const pageWatch = () => window.pageWatch;

// Asserts that the page reported no error (console.error, window's error, an unhandled rejection).
export async function noConsoleErrors(browser, page) {
  const { errors } = await browser.run(pageWatch);
  assert.deepEqual(errors, [], `${browser.name}: ${page} reported errors`);
}

// Replaces the value of the input or textarea at selector by typing text, key by key, as a reader would.
export async function retype(browser, selector, text) {
  await browser.run((s) => { const el = document.querySelector(s); el.value = ''; el.focus(); }, selector);
  await browser.type(selector, text);
}
