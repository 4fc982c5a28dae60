// Model downloads in Node, against scripts/serve.mjs's misbehaving test routes: the stall timeout, cancelling,
// a connection cut short, a web page instead of a file, and model names that never throw; a conversion's key and
// cache entry, which name its format.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../scripts/serve.mjs';
import { fetchBytes, loadModelBytes, nameOf, formatBytes, setStallTimeout, convertToModel, convertedKey, parseConvertedKey,
  DTYPES } from '../../web/lib/model-source.js';
import { MODEL_FORMATS } from '../../web/js/model-formats.js';

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
  assert.equal(nameOf('local:my.arcs:123'), 'my.arcs');  // a picked file: its name, not the cache's key
  assert.equal(nameOf('q16:local:model.safetensors:548106328'), 'model.safetensors');
  assert.equal(nameOf('local:a:b:7'), 'a:b');
  assert.equal(nameOf('https://example.com/'), 'https://example.com/');
  assert.deepEqual([0, 65536, 8192384, 2 ** 31, NaN].map(formatBytes), ['0 kB', '66 kB', '8.2 MB', '2.15 GB', '?']);
});

test('a conversion\'s key names its format (q8 keeps the bare key), and each format has its own cache entry', async () => {
  const url = 'https://example.com/gpt2/model.safetensors';
  assert.equal(convertedKey(url), url);
  assert.equal(convertedKey(url, 'q8'), url);
  assert.equal(convertedKey(url, 'q16'), `q16:${url}`);
  assert.equal(convertedKey(`q16:${url}`, 'f32'), `f32:${url}`);   // a format already there is replaced
  assert.equal(convertedKey(`q16:${url}`, 'q8'), url);
  assert.equal(convertedKey('local:model.safetensors:548105171', 'q16'), 'q16:local:model.safetensors:548105171');
  assert.throws(() => convertedKey(url, 'q4'), /dtype must be q8, q16 or f32, got 'q4'/);
  for (const dtype of ['q8', 'q16', 'f32']) assert.deepEqual(parseConvertedKey(convertedKey(url, dtype)), { key: url, dtype });
  assert.deepEqual(parseConvertedKey('models/x.arcs'), { key: 'models/x.arcs', dtype: 'q8' });
  assert.deepEqual(MODEL_FORMATS.map((f) => f.dtype), DTYPES);  // the page's loader offers every format, q8 first

  // Cache Storage as the worker has it (Node has none): one checkpoint converted to q8 and to q16 is two entries.
  const stored = new Map();
  globalThis.self = { location: { href: 'https://example.com/page/' } };
  globalThis.caches = { open: async () => ({
    match: async (u) => (stored.has(u) ? new Response(stored.get(u)) : undefined),
    put: async (u, response) => { stored.set(u, new Uint8Array(await response.arrayBuffer())); },
  }) };
  try {
    const config = new File(['{"n_layer": 1}'], 'config.json');
    const weights = new File([new Uint8Array(10)], 'model.safetensors');
    const asked = [], stages = [], madeOf = { q8: 8, q16: 16, f32: 32 };
    const convert = async ({ dtype, onProgress }) => {  // a stand-in for the engine's convertCheckpoint
      asked.push(dtype);
      onProgress({ stage: 'tensors', bytesDone: 10 << 20, bytesTotal: 10 << 20 });
      return new Uint8Array([madeOf[dtype]]);
    };
    const run = (dtype) => convertToModel(convert, { files: [weights, config] }, 'local:model.safetensors:10',
      { dtype, progress: (p) => stages.push(p.stage) });
    assert.deepEqual([...await run('q8')], [8]);
    assert.deepEqual([...await run('q16')], [16]);
    assert.deepEqual([...await run('q16')], [16]);   // from the cache: not converted again
    assert.deepEqual([...await run(undefined)], [8]); // q8 is the default
    assert.deepEqual(asked, ['q8', 'q16']);
    assert.ok(stages.includes('reading and converting to q16'), stages.join(' | '));
    assert.deepEqual([...stored.keys()].map((u) => decodeURIComponent(u.slice(u.lastIndexOf('/') + 1))),
      ['local:model.safetensors:10', 'q16:local:model.safetensors:10']);
  } finally {
    delete globalThis.self;
    delete globalThis.caches;
  }
});
