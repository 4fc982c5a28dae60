// convert-shards.test.mjs: a sharded Hugging Face checkpoint (model.safetensors.index.json and its files, as
// scripts/make_checkpoint.py --shards writes them) converted through the JS API, convertCheckpoint's index and shards:
// the bytes of `arcscope convert` on the same folder and of the one-file checkpoint of the same weights (q16, q8,
// f32), whichever form shards takes (an object of bytes, a Map of streams, a function called as each shard is
// reached), progress over every shard, and the refusals (a shard missing, extra, short, long or of the wrong length,
// an index naming a tensor twice or a file outside its folder), each naming the file, with the wasm allocator left
// where it was; and the worker's checkpoint sources (model-source.js): from URLs, the index found where
// model.safetensors is not (or given), each shard downloaded when it is reached and named in the status, and from
// picked files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertAndKeep } from '../../web/lib/worker/model-source.js';
import { checkpointSource } from '../../web/tutorial/page/loader-ui.js';
import { engine, python, repoRoot } from './support.mjs';

const cli = join(repoRoot, 'build', 'native', 'arcscope');
// A Qwen2 of 9 query heads over 3 key/value heads, Qwen's q, k, v biases; three shards of about 170 kB.
const SHAPE = ['--arch', 'qwen2', '--seed', '11', '--dtype', 'BF16', '--n-layer', '3', '--n-head', '9', '--n-kv-head',
  '3', '--n-embd', '144', '--ffn', '256', '--n-ctx', '128', '--vocab', '400'];
const SHARDS = ['model-00001-of-00003.safetensors', 'model-00002-of-00003.safetensors',
  'model-00003-of-00003.safetensors'];

function makeCheckpoint(dir, shards) {
  execFileSync(python, [join(repoRoot, 'scripts', 'make_checkpoint.py'), '--out', dir, '--shards', String(shards),
    ...SHAPE]);
  return dir;
}

// An async iterable of bytes that says whether it was read and whether it was ended early.
function watched(bytes) {
  const seen = { read: false, ended: false };
  const chunks = {
    [Symbol.asyncIterator]() { return this; },
    async next() {
      if (seen.read) return { done: true, value: undefined };
      seen.read = true;
      return { done: false, value: bytes };
    },
    async return() { seen.ended = true; return { done: true, value: undefined }; },
  };
  return { chunks, totalBytes: bytes.length, seen };
}

test('a sharded checkpoint converts through the JS API to arcscope convert\'s bytes and the one file\'s', async () => {
  const e = await engine();
  const work = mkdtempSync(join(tmpdir(), 'arcscope-convert-shards-api-'));
  try {
    const dir = makeCheckpoint(join(work, 'sharded'), 3);
    const one = makeCheckpoint(join(work, 'one'), 1);
    const config = readFileSync(join(dir, 'config.json'), 'utf8');
    const indexText = readFileSync(join(dir, 'model.safetensors.index.json'), 'utf8');
    const bytes = Object.fromEntries(SHARDS.map((name) => [name, readFileSync(join(dir, name))]));
    const sizes = SHARDS.map((name) => bytes[name].length);
    const sum = sizes.reduce((a, b) => a + b, 0);
    for (const dtype of ['q16', 'q8', 'f32']) {
      const out = join(work, `qwen2.${dtype}.arcs`);
      execFileSync(cli, ['convert', '--in', dir, '--out', out, '--dtype', dtype], { encoding: 'utf8' });
      const native = readFileSync(out);
      const st = readFileSync(join(one, 'model.safetensors'));
      const fromOne = await e.convertCheckpoint({ config, chunks: [st], dtype });
      assert.equal(Buffer.compare(Buffer.from(fromOne), native), 0, `${dtype}: the one-file checkpoint`);

      // An object of each shard's bytes, the index as text; progress over all three from the first report.
      const reports = [];
      const fromObject = await e.convertCheckpoint({ config, index: indexText, shards: bytes, dtype,
        onProgress: (p) => reports.push(p) });
      assert.equal(Buffer.compare(Buffer.from(fromObject), native), 0, `${dtype}: shards as an object of bytes`);
      assert.ok(reports.every((r) => r.bytesTotal === sum), `${dtype}: bytesTotal is the three shards' ${sum}`);
      assert.deepEqual([...new Set(reports.filter((r) => r.shard).map((r) => r.shard.number))], [1, 2, 3]);
      assert.ok(reports.every((r) => r.shard === null || (r.shard.count === 3 &&
        r.shard.name === SHARDS[r.shard.number - 1])));
      assert.deepEqual(reports.at(-1), { stage: 'done', bytesDone: sum, bytesTotal: sum,
        outputBytes: native.length, shard: { name: SHARDS[2], number: 3, count: 3, bytesDone: sizes[2],
          bytesTotal: sizes[2] } });
      assert.ok(reports.every((r) => !r.shard || (r.shard.bytesTotal === sizes[r.shard.number - 1] &&
        r.bytesDone === sizes.slice(0, r.shard.number - 1).reduce((a, b) => a + b, 0) + r.shard.bytesDone)));

      // A Map of file streams with their lengths, the index parsed.
      const streams = new Map(SHARDS.map((name) => [name,
        { chunks: createReadStream(join(dir, name), { highWaterMark: 40_000 }), totalBytes: statSync(join(dir, name)).size }]));
      const fromMap = await e.convertCheckpoint({ config, index: JSON.parse(indexText), shards: streams, dtype });
      assert.equal(Buffer.compare(Buffer.from(fromMap), native), 0, `${dtype}: shards as a Map of streams`);

      // A function, asked for each shard in the converter's order, when it is reached.
      const asked = [];
      const fromCalls = await e.convertCheckpoint({ config, index: indexText, dtype,
        shards: async (name) => { asked.push(name); return { chunks: createReadStream(join(dir, name)),
          totalBytes: statSync(join(dir, name)).size }; } });
      assert.equal(Buffer.compare(Buffer.from(fromCalls), native), 0, `${dtype}: shards as a function`);
      assert.deepEqual(asked, SHARDS);
      console.log(`${dtype}: ${native.length} bytes, the CLI's, from one file and from 3 shards (${sizes.join(' + ')})`);
    }

    // convertToModel, in the default format: the one file's conversion, run where it was converted.
    const model = await e.convertToModel({ config, index: indexText, shards: bytes });
    const st = readFileSync(join(one, 'model.safetensors'));
    const expected = Buffer.from(await e.convertCheckpoint({ config, chunks: [st] }));
    const kept = Buffer.from(await new Response(model.fileStream()).arrayBuffer());
    assert.equal(Buffer.compare(kept, expected), 0, 'convertToModel\'s file');
    assert.equal(model.config.architecture, 'qwen2');
    const fromFile = e.loadModel(expected);
    assert.deepEqual(model.forward([1, 2, 3]).logits, fromFile.forward([1, 2, 3]).logits);
    model.free();
    fromFile.free();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('a shard missing, extra, short, long or of the wrong length, and a bad index, are Errors naming the file; ' +
  'nothing is left behind', async () => {
  const e = await engine();
  const work = mkdtempSync(join(tmpdir(), 'arcscope-convert-shards-bad-'));
  try {
    const dir = makeCheckpoint(join(work, 'sharded'), 3);
    const config = readFileSync(join(dir, 'config.json'), 'utf8');
    const indexText = readFileSync(join(dir, 'model.safetensors.index.json'), 'utf8');
    const index = JSON.parse(indexText);
    const bytes = Object.fromEntries(SHARDS.map((name) => [name, readFileSync(join(dir, name))]));
    const [first, second, third] = SHARDS;
    const convert = (options) => e.convertCheckpoint({ config, index: indexText, dtype: 'q8', ...options });
    const without = (name) => Object.fromEntries(Object.entries(bytes).filter(([n]) => n !== name));
    const firstTensor = Object.keys(index.weight_map).find((name) => index.weight_map[name] === first);
    const cases = [
      ['a shard missing', () => convert({ shards: without(second) }),
        /^shards lacks model-00002-of-00003\.safetensors, which the index lists \(model\.safetensors\.index\.json lists model-00001-of-00003\.safetensors, model-00002-of-00003\.safetensors, model-00003-of-00003\.safetensors\)$/],
      ['a shard the index does not list', () => convert({ shards: { ...bytes, 'model-00004-of-00004.safetensors': bytes[first] } }),
        /^shards has model-00004-of-00004\.safetensors, which the index does not list/],
      ['a function that has no such shard', () => convert({ shards: (name) => (name === third ? undefined : bytes[name]) }),
        /^shards\('model-00003-of-00003\.safetensors'\) gave undefined: the index lists model-00003-of-00003\.safetensors$/],
      ['a length one byte short of the file', () => convert({ shards: { ...bytes,
        [second]: { chunks: [bytes[second]], totalBytes: bytes[second].length - 1 } } }),
        /model-00002-of-00003\.safetensors/],
      ['a shard whose bytes end early', () => convert({ shards: { ...bytes,
        [second]: { chunks: [bytes[second].subarray(0, 5000)], totalBytes: bytes[second].length } } }),
        new RegExp(`^truncated checkpoint: model-00002-of-00003\\.safetensors: got 5000 of its ${bytes[second].length} bytes$`)],
      ['a shard with bytes past its header\'s end', () => convert({ shards: { ...bytes,
        [third]: { chunks: [bytes[third], new Uint8Array(10)], totalBytes: bytes[third].length } } }),
        /^model-00003-of-00003\.safetensors: the checkpoint is longer than its safetensors header describes/],
      ['shards of another checkpoint\'s files swapped', () => convert({ shards: { ...bytes, [first]: bytes[second],
        [second]: bytes[first] } }), /model-00001-of-00003\.safetensors/],
      ['an index naming a tensor twice', () => convert({ shards: bytes,
        index: indexText.replace('"weight_map": {', `"weight_map": {"${firstTensor}": "${second}", `) }),
        /duplicate key|twice/],
      ['an index naming a file outside its folder', () => convert({ shards: bytes,
        index: { ...index, weight_map: { ...index.weight_map, [firstTensor]: '../x.safetensors' } } }),
        /weight_map puts .* in '\.\.\/x\.safetensors', which is not the name of a \.safetensors file beside it/],
      ['chunks and shards both', () => convert({ shards: bytes, chunks: [bytes[first]] }),
        /takes chunks and totalBytes \(one model\.safetensors\) or index and shards \(a sharded checkpoint\), not both/],
      ['shards without an index', () => e.convertCheckpoint({ config, shards: bytes }),
        /needs index \(model\.safetensors\.index\.json\) to read shards/],
      ['a stream of a shard without its length', () => convert({ shards: { ...bytes,
        [second]: { chunks: (async function* () { yield bytes[second]; })() } } }),
        /needs shards\['model-00002-of-00003\.safetensors'\]\.totalBytes, the length of model-00002-of-00003\.safetensors/],
    ];
    const refusals = async () => {
      const said = [];
      for (const [what, run, message] of cases) {
        await assert.rejects(run, (err) => err instanceof Error && message.test(err.message), what);
        said.push(await run().catch((err) => `${what}: ${err.message}`));
      }
      return said;
    };
    // Where a 4 KB block would go: the lowest free place, which a converter left undeleted would push upwards.
    const nextBlock = () => { const p = e.core._malloc(4096); e.core._free(p); return p; };
    for (const line of await refusals()) console.log(line);
    const before = nextBlock();
    for (let i = 0; i < 5; i++) await refusals();
    assert.equal(nextBlock() - before, 0, 'the refusals left memory behind');

    // A refusal before the first byte reads no shard, and ends the streams it was given.
    const given = SHARDS.map((name) => watched(bytes[name]));
    await assert.rejects(convert({ shards: { [first]: given[0], [third]: given[2] } }), /shards lacks/);
    assert.ok(given.every(({ seen }) => !seen.read), 'no shard was read');
    assert.ok(given[0].seen.ended && given[2].seen.ended, 'both streams were ended');
    // So does an index the converter refuses.
    const refused = SHARDS.map((name) => watched(bytes[name]));
    await assert.rejects(convert({ index: '{"weight_map": {}}', shards: Object.fromEntries(SHARDS.map((name, i) =>
      [name, refused[i]])) }), /needs a weight_map object/);
    assert.ok(refused.every(({ seen }) => !seen.read && seen.ended), 'every stream was ended, none read');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

// A folder served over HTTP as Hugging Face serves a repository's files (a length for each, 404 for what is not
// there), recording each path asked for.
async function folderHost(dir) {
  const asked = [];
  const host = createServer((req, res) => {
    const name = decodeURIComponent(req.url.split('?')[0].slice(1));
    asked.push(name);
    if (!existsSync(join(dir, name)) || name.includes('/')) { res.writeHead(404).end(); return; }
    const bytes = readFileSync(join(dir, name));
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length });
    res.end(bytes);
  });
  await new Promise((ok) => host.listen(0, '127.0.0.1', ok));
  return { host, asked, at: `http://127.0.0.1:${host.address().port}` };
}

test('the worker converts a sharded checkpoint from its URLs, each shard downloaded in turn, and from picked files', async () => {
  const e = await engine();
  const work = mkdtempSync(join(tmpdir(), 'arcscope-convert-shards-worker-'));
  const dir = makeCheckpoint(join(work, 'sharded'), 3);
  const { host, asked, at } = await folderHost(dir);
  try {
    const out = join(work, 'qwen2.q8.arcs');
    execFileSync(cli, ['convert', '--in', dir, '--out', out, '--dtype', 'q8']);
    const native = readFileSync(out);
    const converted = async (source, key) => {
      const stages = [];
      const model = await convertAndKeep({ convert: (o) => e.convertToModel(o), load: () => assert.fail('cached') },
        source, key, { dtype: 'q8', progress: (p) => stages.push(p) });
      const bytes = Buffer.from(await new Response(model.fileStream()).arrayBuffer());
      model.free();
      return { bytes, stages };
    };
    const configUrl = `${at}/config.json`;
    // The loader's URLs name model.safetensors: not there, so the index beside it is read, then each shard.
    const fromUrls = await converted({ safetensorsUrl: `${at}/model.safetensors`, configUrl }, 'test:sharded-urls');
    assert.equal(Buffer.compare(fromUrls.bytes, native), 0, 'from URLs: arcscope convert\'s bytes');
    assert.deepEqual(asked.filter((name) => !name.startsWith('tokenizer')),
      ['config.json', 'model.safetensors', 'model.safetensors.index.json', ...SHARDS]);
    const said = fromUrls.stages.map((p) => p.stage);
    for (const [i, name] of SHARDS.entries()) {
      const stage = `shard ${i + 1} of 3, downloading ${name} and converting to q8`;
      const reports = fromUrls.stages.filter((p) => p.stage === stage);
      assert.ok(reports.length > 0, `"${stage}" among ${[...new Set(said)].join('; ')}`);
      assert.ok(reports.every((p) => p.total === statSync(join(dir, name)).size && p.loaded <= p.total));
    }
    console.log(`from URLs, the status said: ${[...new Set(said)].join('; ')}`);

    // The index's URL given, as {indexUrl, configUrl}.
    asked.length = 0;
    const fromIndex = await converted({ indexUrl: `${at}/model.safetensors.index.json`, configUrl },
      'test:sharded-index');
    assert.equal(Buffer.compare(fromIndex.bytes, native), 0, 'from indexUrl');
    assert.ok(!asked.includes('model.safetensors'));

    // Picked files: the index, its three shards and config.json, in any order.
    const files = ['model.safetensors.index.json', ...SHARDS, 'config.json'].reverse()
      .map((name) => new File([readFileSync(join(dir, name))], name));
    const picked = await converted({ files }, 'test:sharded-files');
    assert.equal(Buffer.compare(picked.bytes, native), 0, 'from picked files');
    assert.ok(picked.stages.some((p) => p.stage === `shard 2 of 3, reading ${SHARDS[1]} and converting to q8`));
    // A shard not picked is named before any is read.
    const message = await convertAndKeep({ convert: (o) => e.convertToModel(o), load: () => assert.fail('cached') },
      { files: files.filter((f) => f.name !== SHARDS[1]) }, 'test:sharded-missing', { dtype: 'q8' })
      .then(() => 'converted', (err) => err.message);
    assert.match(message, /^shards lacks model-00002-of-00003\.safetensors, which the index lists/);
    // Neither model.safetensors nor the index: both named.
    const none = await convertAndKeep({ convert: (o) => e.convertToModel(o), load: () => assert.fail('cached') },
      { safetensorsUrl: `${at}/nothing/model.safetensors`, configUrl }, 'test:none', { dtype: 'q8' })
      .then(() => 'converted', (err) => err.message);
    assert.match(none, /nothing\/model\.safetensors is not there \(HTTP 404\), and neither is model\.safetensors\.index\.json beside it/);
  } finally {
    host.closeAllConnections();
    host.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test('the loader reads a URL of model.safetensors, or of a sharded checkpoint\'s index, as a checkpoint with config.json beside it', () => {
  const at = 'https://huggingface.co/Qwen/Qwen2.5-7B/resolve/main';
  assert.deepEqual(checkpointSource(`${at}/model.safetensors`),
    { safetensorsUrl: `${at}/model.safetensors`, configUrl: `${at}/config.json` });
  assert.deepEqual(checkpointSource(`${at}/model.safetensors.index.json?download=true`),
    { indexUrl: `${at}/model.safetensors.index.json?download=true`, configUrl: `${at}/config.json?download=true` });
  assert.equal(checkpointSource(`${at}/gpt2.q8.arcs`), null);
  assert.equal(checkpointSource(`${at}/model.safetensors.json`), null);
});
