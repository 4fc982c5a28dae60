// The worker client's async API (worker-client.js) refuses through its promises: arguments a worker cannot be sent,
// a model URL that is not one, bytes that are not bytes. A synchronous throw would escape a caller's .catch() and, for
// postMessage, left the call's entry pending for ever.
import { test, expect } from '@playwright/test';
import { openPage } from './helpers.mjs';

test('every method of the worker client that returns a promise rejects, never throws, and names what was wrong', async ({ page }) => {
  await openPage(page);
  const outcomes = await page.evaluate(async () => {
    const { sharedEngine } = await import('./lib/worker-client.js');
    const worker = sharedEngine();
    const tries = {
      'call with a function in its arguments': () => worker.call('analyze', { model: () => 1, text: 'x' }),
      'call with a DOM node in its arguments': () => worker.call('tokenize', { text: document.body }),
      'loadModel of a URL that is not one': () => worker.loadModel('http://[::1'),
      'loadModelBytes of null': () => worker.loadModelBytes(null, 'local:x.arcs:1', 'x.arcs'),
      'loadModelBytes of a number': () => worker.loadModelBytes(5, 'local:y.arcs:5', 'y.arcs'),
    };
    const out = {};
    for (const [what, run] of Object.entries(tries)) {
      try {
        const promise = run();
        out[what] = await promise.then(() => 'resolved', (e) => `rejected: ${e.message}`);
      } catch (e) {
        out[what] = `threw: ${e.message}`;
      }
    }
    out.pending = worker.pending.size;
    out['the worker still answers'] = (await worker.call('tokenize', { text: 'To be' })).ids.length;
    return out;
  });
  console.log(outcomes);
  expect(outcomes['call with a function in its arguments']).toMatch(/^rejected: analyze: its arguments cannot be sent to the engine's worker \(.+\)$/);
  expect(outcomes['call with a DOM node in its arguments']).toMatch(/^rejected: tokenize: its arguments cannot be sent/);
  expect(outcomes['loadModel of a URL that is not one']).toMatch(/^rejected: the model URL "http:\/\/\[::1" is not a URL/);
  expect(outcomes['loadModelBytes of null']).toBe('rejected: loadModelBytes takes the .arcs file as a File (or Blob) ' +
    'or its bytes (a Uint8Array), got null');
  expect(outcomes['loadModelBytes of a number']).toMatch(/^rejected: loadModelBytes takes .*, got number$/);
  expect(outcomes.pending).toBe(0);
  expect(outcomes['the worker still answers']).toBe(2);
});
