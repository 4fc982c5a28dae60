// checkpoint-tokenizer.test.mjs: a checkpoint the page converts brings its tokenizer (web/lib/worker/model-source.js).
// From URLs, tokenizer.json and tokenizer_config.json beside config.json; from picked files, the ones of those names.
// The converted model carries them byte for byte as `arcscope convert` does (the same file), and reads text with
// them. A folder without tokenizer.json (a 404) converts to a model that carries none and says so; any other failure
// of the tokenizer's download is an error; a GPT-2's tokenizer is built in, so nothing is asked for it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { convertAndKeep } from '../../web/lib/worker/model-source.js';
import { engine, python, repoRoot } from './support.mjs';

const cli = join(repoRoot, 'build', 'native', 'arcscope');
const work = join(repoRoot, 'build', 'test-models', 'checkpoint-tokenizer');
const llama2 = join(repoRoot, 'node_modules', '@lenml', 'tokenizer-llama2', 'models');
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json'];
let server, base;
const requests = [];
// What the server answers for a path it has no file for: 404, or a status the test sets.
const failing = new Map();

before(async () => {
  const make = (dir, args) => {
    if (existsSync(join(dir, 'config.json'))) return;
    mkdirSync(dir, { recursive: true });
    execFileSync(python, [join(repoRoot, 'scripts', 'make_checkpoint.py'), '--out', dir, '--seed', '3', '--n-layer', '1',
      '--n-embd', '32', '--n-ctx', '64', ...args]);
  };
  make(join(work, 'llama'), ['--arch', 'llama', '--n-head', '4', '--n-kv-head', '2', '--ffn', '48', '--vocab', '32000']);
  for (const name of TOKENIZER_FILES) copyFileSync(join(llama2, name), join(work, 'llama', name));
  make(join(work, 'llama-bare'), ['--arch', 'llama', '--n-head', '4', '--ffn', '48', '--vocab', '32000']);
  rmSync(join(work, 'llama-bare', 'tokenizer.json'), { force: true });
  make(join(work, 'gpt2'), ['--n-head', '2', '--vocab', '50257']);
  execFileSync(cli, ['convert', '--in', join(work, 'llama'), '--out', join(work, 'llama.q8.arcs'), '--dtype', 'q8']);
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.push(path);
    if (failing.has(path)) return res.writeHead(failing.get(path)).end('');
    const file = join(work, path);
    if (!existsSync(file)) return res.writeHead(404).end('');
    const bytes = readFileSync(file);
    res.writeHead(200, { 'Content-Length': bytes.length }).end(bytes);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server?.close());

// convertAndKeep with the engine's own conversion, as the worker lends it (no Cache Storage in Node: nothing kept).
async function convert(source, key) {
  const e = await engine(), notes = [], stages = [];
  const loader = { convert: (o) => e.convertToModel(o), load: () => assert.fail('nothing is kept'),
    noted: (n) => notes.push(n) };
  const model = await convertAndKeep(loader, source, key, { dtype: 'q8', progress: (p) => stages.push(p.stage) });
  return { model, notes, stages };
}
const urls = (folder) => ({ safetensorsUrl: `${base}/${folder}/model.safetensors?download=true`,
  configUrl: `${base}/${folder}/config.json?download=true` });
async function fileOf(model) {
  return new Uint8Array(await new Response(model.fileStream()).arrayBuffer());
}

test('from URLs, the tokenizer files beside config.json ride in the model: the CLI\'s file, text read with them', async () => {
  requests.length = 0;
  const { model, notes, stages } = await convert(urls('llama'), `${base}/llama/model.safetensors`);
  try {
    assert.equal(model.config.tokenizer, 'carried');
    assert.deepEqual(notes, []);
    assert.ok(stages.includes('downloading tokenizer.json'), stages.join(' | '));
    assert.deepEqual(requests.filter((p) => p.endsWith('.json')),
      ['/llama/config.json', '/llama/tokenizer.json', '/llama/tokenizer_config.json']);
    const cliFile = readFileSync(join(work, 'llama.q8.arcs'));
    assert.ok(Buffer.from(await fileOf(model)).equals(cliFile), 'the same bytes as arcscope convert\'s file');
    const reference = (await engine()).loadTokenizer({ json: readFileSync(join(llama2, 'tokenizer.json'), 'utf8'),
      config: readFileSync(join(llama2, 'tokenizer_config.json'), 'utf8') });
    const text = 'Hello world, où est-il? 中文';
    assert.deepEqual([...model.tokenizer.encode(text)], [...(await reference).encode(text)]);
    assert.equal(model.tokenizer.bosId, 1);
  } finally {
    model.free();
  }
});

test('picked files bring the picked tokenizer.json and tokenizer_config.json', async () => {
  // In any order: a drop hands them over as the user's file manager lists them.
  const picked = [...TOKENIZER_FILES, 'model.safetensors', 'config.json']
    .map((name) => new File([readFileSync(join(work, 'llama', name))], name));
  const { model, notes } = await convert({ files: picked }, 'local:model.safetensors:1');
  try {
    assert.equal(model.config.tokenizer, 'carried');
    assert.deepEqual(notes, []);
    assert.ok(Buffer.from(await fileOf(model)).equals(readFileSync(join(work, 'llama.q8.arcs'))));
  } finally {
    model.free();
  }
  const { model: bare, notes: said } = await convert({ files: picked.slice(2) }, 'local:model.safetensors:2');
  bare.free();
  assert.deepEqual(said, ['no tokenizer.json was picked: the model carries no tokenizer, so it takes token ids ' +
    'rather than text']);
});

test('a checkpoint without tokenizer.json (404) converts to a model that carries none, and says so', async () => {
  const { model, notes, stages } = await convert(urls('llama-bare'), `${base}/llama-bare/model.safetensors`);
  try {
    assert.equal(model.config.tokenizer, 'none');
    assert.deepEqual(notes, ['no tokenizer.json beside config.json: the model carries no tokenizer, so it takes ' +
      'token ids rather than text']);
    assert.ok(stages.includes(notes[0]), stages.join(' | '));
  } finally {
    model.free();
  }
});

test('a tokenizer download that fails otherwise than 404 is an error naming it', async () => {
  failing.set('/llama/tokenizer_config.json', 500);
  try {
    await assert.rejects(convert(urls('llama'), `${base}/llama/model.safetensors#500`),
      new RegExp(`^Error: could not download ${base}/llama/tokenizer_config\\.json\\?download=true: HTTP 500`));
  } finally {
    failing.clear();
  }
});

test('a GPT-2 checkpoint asks for no tokenizer: its own is built in', async () => {
  requests.length = 0;
  const { model, notes } = await convert(urls('gpt2'), `${base}/gpt2/model.safetensors`);
  model.free();
  assert.deepEqual(notes, []);
  assert.deepEqual(requests, ['/gpt2/config.json', '/gpt2/model.safetensors']);
});
