// Model downloads in Node, against scripts/serve.mjs's misbehaving test routes: the stall timeout, cancelling,
// a connection cut short, a web page instead of a file, and model names that never throw; a conversion's key and
// cache entry, which name its format. The bounds: an endless stream, a gzip bomb and a size claimed but not sent
// cost only what arrived and stop at the size bound; a checkpoint's download is named from its start, and a
// conversion that fails frees its converter and ends its download (a node:http server of its own).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startServer } from '../../scripts/serve.mjs';
import { createServer } from 'node:http';
import { fetchBytes, formatBytes, setStallTimeout, MAX_BYTES } from '../../web/lib/shared/downloads.js';
import { nameOf, convertedKey, parseConvertedKey, DTYPES } from '../../web/lib/shared/model-cache.js';
import { openModelFile, convertAndKeep } from '../../web/lib/worker/model-source.js';
import { engine, repoRoot } from './support.mjs';
import { checkpoint } from './crafted-files.mjs';
import { MODEL_FORMATS } from '../../web/tutorial/page/model-formats.js';

let server, base;
before(async () => {
  server = await startServer({ port: 0, testRoutes: true });
  base = `http://127.0.0.1:${server.address().port}`;
  setStallTimeout(0.3);
});
after(() => { server.closeAllConnections(); server.close(); });

const failure = (promise) => promise.then(() => assert.fail('expected a failure'), (e) => e.message);

// An .arcs URL's bytes, as openModelFile streams them into the engine.
async function fileBytes(url) {
  const { chunks, totalBytes, name } = await openModelFile(url);
  const bytes = new Uint8Array(totalBytes);
  let at = 0;
  for await (const chunk of chunks instanceof Uint8Array ? [chunks] : chunks) bytes.set(chunk, at), at += chunk.length;
  assert.equal(at, totalBytes);
  return { bytes, name };
}
// The engine's conversion as the worker hands it to convertAndKeep, without its turns: the model is freed (only its
// error or its existence is looked at).
const converting = (e) => ({ convert: (o) => e.convertToModel(o), load: () => assert.fail('nothing is cached') });

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
  const { bytes, name } = await fileBytes(`${base}/hostile/100%ZZ.arcs`);
  assert.equal(new TextDecoder().decode(bytes.subarray(0, 8)), 'ARCSCOPE');
  assert.equal(name, '100%ZZ.arcs');
  assert.equal(nameOf('https://example.com/models/a%20b.arcs?v=1#x'), 'a b.arcs');
  assert.equal(nameOf('https://example.com/%E0%A4%A.arcs'), '%E0%A4%A.arcs');
  assert.equal(nameOf('local:my.arcs:123'), 'my.arcs');  // a picked file: its name, not the cache's key
  assert.equal(nameOf('q16:local:model.safetensors:548106328'), 'model.safetensors');
  assert.equal(nameOf('local:a:b:7'), 'a:b');
  assert.equal(nameOf('https://example.com/'), 'https://example.com/');
  assert.deepEqual([0, 412, 65536, 8192384, 2 ** 31, NaN].map(formatBytes),
    ['0 B', '412 B', '66 kB', '8.2 MB', '2.15 GB', '?']);  // under 1 kB in bytes: never "0 kB of 0 kB"
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
  // The page's loader offers every format, q16 (the default up to gpt2-large) first.
  assert.deepEqual(MODEL_FORMATS.map((f) => f.dtype), ['q16', 'q8', 'f32']);
  assert.deepEqual([...DTYPES].sort(), MODEL_FORMATS.map((f) => f.dtype).sort());

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
    const fileOf = (bytes) => ({ fileBytes: bytes.length, fileStream: () => new Response(bytes).body, bytes });
    const standIn = {  // the engine's convertToModel and loadModelStream, as the worker hands them over
      convert: async ({ dtype, onProgress }) => {
        asked.push(dtype);
        onProgress({ stage: 'tensors', bytesDone: 10 << 20, bytesTotal: 10 << 20, outputBytes: 1 });
        return fileOf(new Uint8Array([madeOf[dtype]]));
      },
      load: async ({ chunks }) => fileOf(new Uint8Array(await new Response(chunks).arrayBuffer())),
    };
    const run = async (dtype) => [...(await convertAndKeep(standIn, { files: [weights, config] },
      'local:model.safetensors:10', { dtype, progress: (p) => stages.push(p.stage) })).bytes];
    assert.deepEqual(await run('q8'), [8]);
    assert.deepEqual(await run('q16'), [16]);
    assert.deepEqual(await run('q16'), [16]);   // from the cache: not converted again
    assert.deepEqual(await run(undefined), [8]); // q8 is the default
    assert.deepEqual(asked, ['q8', 'q16']);
    assert.ok(stages.includes('reading and converting to q16'), stages.join(' | '));
    assert.deepEqual([...stored.keys()].map((u) => decodeURIComponent(u.slice(u.lastIndexOf('/') + 1))),
      ['local:model.safetensors:10', 'q16:local:model.safetensors:10']);
  } finally {
    delete globalThis.self;
    delete globalThis.caches;
  }
});

// Whether check() comes true within ms.
const until = async (check, ms = 2000) => {
  for (const end = Date.now() + ms; !check() && Date.now() < end;) await new Promise((ok) => setTimeout(ok, 20));
  return check();
};

// Bytes in ArrayBuffers (the downloads' buffers and chunks live there, not on the JS heap), after a full garbage
// collection when collected is set: what is still held, not what is garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const arrayBytes = (collected = false) => { if (collected) gc(); return process.memoryUsage().arrayBuffers; };

test('a stream without Content-Length holds only what arrived, and stops at the size bound, naming it', async () => {
  const before = arrayBytes(true);
  let worst = 0;
  const progress = ({ loaded }) => { worst = Math.max(worst, arrayBytes(true) - before - loaded); };
  const signal = AbortSignal.timeout(10_000);  // a download that ignores the bound ends anyway
  assert.equal(await failure(fetchBytes(`${base}/hostile/endless.arcs`, 'downloading model',
    { progress, signal, limit: 48e6, most: 'this test allows' })),
  `${base}/hostile/endless.arcs is larger than 48.0 MB, the most this test allows`);
  // A buffer that doubles holds up to twice what arrived, plus the copy it grew from: 44 MB beyond 18 MB received,
  // where the chunks themselves hold some 11 MB beyond 44 MB (Node's chunks share larger buffers).
  assert.ok(worst < 20e6, `${(worst / 1e6).toFixed(1)} MB held beyond the bytes that arrived`);
  // Nothing is kept once the refused download has wound down (its connection closes a moment after).
  assert.ok(await until(() => arrayBytes(true) - before < 4e6), 'the chunks of the refused download were kept');
  assert.equal(MAX_BYTES, 2 ** 31);  // the bound when none is given: what a wasm32 engine can hold
});

test('a declared size is not allocated before its bytes arrive: a 2 GB claim that sends 64 kB costs about 64 kB', async () => {
  const before = arrayBytes(true);
  let held = 0;
  const sample = setTimeout(() => { held = arrayBytes() - before; }, 150);  // while it waits for more
  assert.equal(await failure(fetchBytes(`${base}/hostile/claims-2gb.arcs`, 'downloading model')),
    `the download of ${base}/hostile/claims-2gb.arcs stalled: no data for 0.3 s (received 66 kB of 2.15 GB)`);
  clearTimeout(sample);
  assert.ok(held < 16e6, `${(held / 1e6).toFixed(1)} MB allocated for 66 kB`);
  // A whole file with its size declared comes back exact.
  const { bytes } = await fileBytes(`${base}/hostile/100%ZZ.arcs`);
  assert.deepEqual(bytes, new Uint8Array(readFileSync(`${repoRoot}/models/shakespeare-4l.q8.arcs`)));
});

test('a gzip bomb stops at the bound on its inflated bytes; a declared size past it is refused at the headers', async () => {
  const options = { limit: 64e6, most: 'a src file may be' };
  const before = arrayBytes(true);
  assert.equal(await failure(fetchBytes(`${base}/hostile/bomb.json`, 'downloading', options)),
    `${base}/hostile/bomb.json is larger than 64.0 MB, the most a src file may be`);
  assert.equal(await failure(fetchBytes(`${base}/hostile/huge.json`, 'downloading', options)),
    `${base}/hostile/huge.json is larger than 64.0 MB, the most a src file may be (it is 100.0 MB)`);
  // Nothing kept once the failures have wound down: not the 64 MB that arrived, never the 100 MB it inflates to.
  assert.ok(await until(() => arrayBytes(true) - before < 4e6), 'the bomb\'s bytes were kept');
});

// A checkpoint host of its own: config.json, and a model.safetensors that sends its header and then nothing.
async function checkpointHost(config) {
  const header = checkpoint(config, { headerOnly: true });
  const weights = hfWeightBytes(config);
  const open = new Set();
  const host = createServer((req, res) => {
    if (req.url === '/config.json') {
      const body = JSON.stringify(config);  // a few hundred bytes: "0 kB" as it was shown
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
      return;
    }
    open.add(res);
    res.on('close', () => open.delete(res));
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': header.length + weights });
    res.write(header);
  });
  await new Promise((ok) => host.listen(0, '127.0.0.1', ok));
  const at = `http://127.0.0.1:${host.address().port}`;
  return { host, open, source: { configUrl: `${at}/config.json`, safetensorsUrl: `${at}/model.safetensors` } };
}
const hfWeightBytes = ({ n_layer, n_embd: C, n_positions, vocab_size }) =>
  4 * ((vocab_size + n_positions) * C + n_layer * (12 * C * C + 13 * C) + 2 * C);

test('a checkpoint is judged by the model it converts to: GPT-2 XL\'s 6.2 GB streams in, an output past 4 GB is refused at its header', async () => {
  const e = await engine();
  const convert = (config, dtype) => checkpointHost(config).then(async ({ host, source }) => {
      try {
        return { error: await failure(convertAndKeep(converting(e), source, `test:${config.n_layer}:${dtype}`,
          { dtype })) };
      } finally {
        host.closeAllConnections();
        host.close();
      }
    });
  // GPT-2 XL's shape: more than the 2.15 GB a model file may be, and its q8 file is 1.76 GB. The converter takes the
  // header (a refusal would be the error here); this host then sends nothing, so it stalls.
  const xl = await convert({ n_layer: 48, n_head: 25, n_embd: 1600, n_positions: 1024, vocab_size: 50257 }, 'q8');
  assert.match(xl.error, /stalled: no data for 0\.3 s \(received \d+ kB of 6\.23 GB\)$/);
  // 72 such layers in q16 would be a 4.9 GB file: refused before any weight is downloaded.
  const huge = await convert({ n_layer: 72, n_head: 25, n_embd: 1600, n_positions: 1024, vocab_size: 50257 }, 'q16');
  assert.match(huge.error, /the converted model file needs 4\.\d GB.*can address 4\.3 GB/);
  console.log(`GPT-2 XL's checkpoint: ${xl.error}\n72 XL layers in q16: ${huge.error}`);
});

test('a checkpoint download is named from its start, and a failed conversion frees its converter and its download', async () => {
  // A model whose ~100 MB output the converter would hold if it allocated the output before the weights arrived.
  const config = { n_layer: 4, n_head: 16, n_embd: 1024, n_positions: 1024, vocab_size: 50257 };
  const { host, open, source } = await checkpointHost(config);
  try {
    const e = await engine();
    const heap = () => e.core.HEAP8.buffer.byteLength;
    const shown = [];
    const progress = ({ stage, loaded, total }) => shown.push(`${stage}: ${formatBytes(loaded)}` +
      `${total ? ` of ${formatBytes(total)}` : ''}`);
    const run = () => failure(convertAndKeep(converting(e), source, 'test:big', { progress }));
    const stalled = (got) => new RegExp(`^the download of ${source.safetensorsUrl} stalled: no data for 0\\.3 s ` +
      `\\(received ${got} of 411\\.6 MB\\)$`);
    assert.match(await run(), stalled('\\d+ kB'));
    // Not "downloading config.json: 0 kB of 0 kB" while the weights are waited for.
    const configSize = JSON.stringify(config).length;
    assert.equal(shown[0], `downloading config.json: ${configSize} B of ${configSize} B`);
    assert.ok(shown.includes('downloading model.safetensors: 0 B'), shown.join(' | '));
    assert.match(shown.at(-1),
      /^downloading (model\.safetensors|and reading the header|and converting to \w+): \d+ (B|kB) of 411\.6 MB$/);
    assert.ok(await until(() => open.size === 0), 'the stalled download was left open');
    // The converter's output went back to the engine's allocator: the same failure again needs no more memory.
    const peak = heap();
    for (let i = 0; i < 3; i++) assert.match(await run(), stalled('\\d+ kB'));
    assert.equal(heap(), peak);

    // A converter that refuses at once, before reading a chunk, ends the download too.
    assert.equal(await failure(convertAndKeep({ convert: async () => { throw new Error('refused'); } }, source, 'test:refused')),
      'refused');
    assert.ok(await until(() => open.size === 0), 'a download no one reads was left open');
  } finally {
    host.closeAllConnections();
    host.close();
  }
});

// Errors that name what is wrong, not the network: a picked file's key that is not loaded has nothing to download,
// and a checkpoint source without its URLs was downloaded from "undefined" (a request for /undefined).
test('an unloaded local: key and a checkpoint source without its URLs say so, and request nothing', async () => {
  const requests = [];
  const host = createServer((req, res) => { requests.push(req.url); res.writeHead(404).end(); });
  await new Promise((ok) => host.listen(0, '127.0.0.1', ok));
  const at = `http://127.0.0.1:${host.address().port}`;
  try {
    for (const key of ['local:picked.arcs:8192384', 'q16:local:model.safetensors:548105171']) {
      const message = await failure(openModelFile(key));
      assert.match(message, /^(picked\.arcs|model\.safetensors) \(.*\) is a model file picked from disk, and it is not loaded here nor kept in this browser's cache: pick the file again/);
      assert.doesNotMatch(message, /could not reach|offline/);
    }
    const e = await engine();
    const sources = [
      [{}, /this one has no safetensorsUrl and no configUrl$/],
      [{ safetensorsUrl: `${at}/model.safetensors` }, /this one has no configUrl$/],
      [{ configUrl: `${at}/config.json`, safetensorsUrl: '' }, /this one has no safetensorsUrl$/],
      [{ safetensorsUrl: 5, configUrl: `${at}/config.json` }, /this one has no safetensorsUrl$/],
      [null, /got null$/],
      ['https://huggingface.co/gpt2', /got string$/],
      [{ files: [{ name: 'model.safetensors' }] },
        /files must be the File objects of its model\.safetensors \(or its index and shards\) and config\.json$/],
      [{ indexUrl: `${at}/model.safetensors.index.json` }, /this one has no configUrl$/],
      [{ files: 'model.safetensors' }, /files must be the File objects/],
    ];
    for (const [source, expected] of sources) {
      const message = await failure(convertAndKeep(converting(e), source, 'test:bad-source'));
      assert.match(message, /^a checkpoint('s files must| source is \{safetensorsUrl, configUrl\})/, message);
      assert.match(message, expected);
      assert.doesNotMatch(message, /undefined|could not (reach|download)/);
    }
    assert.deepEqual(requests, []);
  } finally {
    host.close();
  }
});

// A stall timeout that setTimeout cannot hold (Infinity, or past 24.8 days, wraps to fire at once) or that is no
// time at all made every download stall, or none: refused by name, and the clock keeps its setting.
test('the stall timeout takes seconds above 0 and at most a day, and refuses the rest by name', async () => {
  for (const bad of [0, -1, NaN, Infinity, 1e10, '5', null]) {
    assert.throws(() => setStallTimeout(bad), { name: 'RangeError', message: /^stallSeconds must be a number of seconds above 0 and at most 86400, got / }, String(bad));
  }
  assert.equal(await failure(fetchBytes(`${base}/hostile/never.arcs`, 'downloading model')),
    `the download of ${base}/hostile/never.arcs stalled: no answer from the server for 0.3 s`);
});
