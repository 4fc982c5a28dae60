// Model downloads in Node, against scripts/serve.mjs's misbehaving test routes: the stall timeout, cancelling,
// a connection cut short, a web page instead of a file, and model names that never throw.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../scripts/serve.mjs';
import { fetchBytes, loadModelBytes, nameOf, formatBytes, setStallTimeout } from '../../web/lib/model-source.js';

let server, base;
before(async () => {
  server = await startServer({ port: 0, testRoutes: true });
  base = `http://127.0.0.1:${server.address().port}`;
  setStallTimeout(0.3);
});
after(() => { server.closeAllConnections(); server.close(); });

const failure = (promise) => promise.then(() => assert.fail('expected a failure'), (e) => e.message);

test('a download that stalls mid-body or never answers gives up after the stall timeout, saying how far it got', async () => {
  const started = Date.now();
  assert.equal(await failure(fetchBytes(`${base}/hostile/stall.arcs`, 'downloading model')),
    `the download of ${base}/hostile/stall.arcs stalled: no data for 0.3 s (received 66 kB of 8.2 MB)`);
  assert.equal(await failure(fetchBytes(`${base}/hostile/never.arcs`, 'downloading model')),
    `the download of ${base}/hostile/never.arcs stalled: no answer from the server for 0.3 s`);
  assert.ok(Date.now() - started < 3000);
});

test('a download is cancelled by its signal at once, whatever the stall timeout', async () => {
  setStallTimeout(20);
  try {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled')), 100);
    const started = Date.now();
    assert.equal(await failure(fetchBytes(`${base}/hostile/stall.arcs`, 'downloading model', { signal: controller.signal })),
      `the download of ${base}/hostile/stall.arcs was cancelled`);
    assert.ok(Date.now() - started < 2000);
  } finally {
    setStallTimeout(0.3);
  }
});

test('a connection cut short, a web page, a 404: each says what happened', async () => {
  assert.match(await failure(fetchBytes(`${base}/hostile/cut.arcs`, 'downloading model')),
    /^the download of .*\/hostile\/cut\.arcs broke off after 4\.1 MB of 8\.2 MB \(.+\)$/);
  assert.equal(await failure(fetchBytes(`${base}/hostile/page.arcs`, 'downloading model')),
    `${base}/hostile/page.arcs sent a web page, not the file: check that the link points at the file itself ` +
    '(on Hugging Face, a /resolve/ link rather than /blob/)');
  assert.equal(await failure(fetchBytes(`${base}/models/missing.arcs`, 'downloading model')),
    `could not download ${base}/models/missing.arcs: HTTP 404 Not Found`);
});

test('a model whose URL holds a "%" that is not an escape downloads and keeps its name as written', async () => {
  const { bytes, name } = await loadModelBytes(`${base}/hostile/100%ZZ.arcs`);
  assert.equal(new TextDecoder().decode(bytes.subarray(0, 8)), 'ARCSCOPE');
  assert.equal(name, '100%ZZ.arcs');
  assert.equal(nameOf('https://example.com/models/a%20b.arcs?v=1#x'), 'a b.arcs');
  assert.equal(nameOf('https://example.com/%E0%A4%A.arcs'), '%E0%A4%A.arcs');
  assert.equal(nameOf('local:my.arcs:123'), 'local:my.arcs:123');
  assert.equal(nameOf('https://example.com/'), 'https://example.com/');
  assert.deepEqual([0, 65536, 8192384, 2 ** 31, NaN].map(formatBytes), ['0 kB', '66 kB', '8.2 MB', '2.15 GB', '?']);
});
