// decoder-models.test.mjs: the loader's other decoders (web/tutorial/page/decoder-models.js). Every converted size it
// shows is the engine's converter's own for the model's config.json (ModelConverter.convertedBytes), and that
// arithmetic is the converter's: it gives the size of the file a real conversion writes, for a small checkpoint of
// each architecture. The download estimates are half the f32 file (2-byte weights); the default format is the
// engine's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { engine, python, repoRoot } from './support.mjs';
import { DECODER_MODELS } from '../../web/tutorial/page/decoder-models.js';
import { checkpointUrls, loadingLimits } from '../../web/tutorial/page/gpt2-family.js';
import { defaultFormat } from '../../web/tutorial/page/model-formats.js';
import { checkpointName, nameFromUrl } from '../../web/tutorial/page/loader-ui.js';
import { formatBytes } from '../../web/lib/shared/downloads.js';

const ENGINE_ADDRESSES = 2 ** 32;  // a wasm32 engine's memory: a larger f32 file is not offered

test('each model\'s .arcs sizes are the converter\'s for its config, and its download about half its f32 file', async () => {
  const e = await engine();
  const ids = [];
  for (const m of DECODER_MODELS) {
    const config = JSON.stringify(m.config);
    for (const dtype of ['q8', 'q16', 'f32']) {
      const bytes = e.core.ModelConverter.convertedBytes(config, dtype);
      if (bytes < ENGINE_ADDRESSES) assert.equal(m.arcs[dtype], bytes, `${m.id} in ${dtype}`);
      else assert.equal(m.arcs[dtype], undefined, `${m.id} in ${dtype}: ${bytes} bytes is more than the engine holds`);
    }
    const half = e.core.ModelConverter.convertedBytes(config, 'f32') / 2;
    assert.ok(Math.abs(m.download - half) <= 1e5, `${m.id}: download ${m.download}, half the f32 file ${half}`);
    assert.equal(defaultFormat(m.arcs), e.defaultDtype(config), `${m.id}: the engine's default format`);
    assert.equal(checkpointUrls(m).safetensorsUrl, `https://huggingface.co/${m.repo}/resolve/main/model.safetensors`);
    assert.equal(nameFromUrl(checkpointUrls(m).safetensorsUrl), m.id);
    assert.equal(checkpointName('https://mirror.example/x/model.safetensors', m, m.config), m.id, 'a mirror of it');
    assert.equal(loadingLimits(m, defaultFormat(m.arcs), {}).blocking, null, m.id);
    ids.push(`${m.id} (${m.architecture}): about ${formatBytes(m.download)} download, ${defaultFormat(m.arcs)} ` +
      `${formatBytes(m.arcs[defaultFormat(m.arcs)])}`);
  }
  assert.deepEqual(DECODER_MODELS.map((m) => m.id), ['SmolLM2-135M', 'SmolLM2-360M', 'pythia-70m', 'pythia-160m',
    'pythia-410m', 'Qwen2.5-0.5B', 'Qwen3-0.6B', 'TinyLlama-1.1B', 'Llama-3.2-1B']);
  console.log(ids.join('; '));
});

test('convertedBytes is the size of the file the converter writes, for each architecture', async () => {
  const e = await engine();
  const work = join(repoRoot, 'build', 'test-models', 'decoder-models');
  const shapes = {
    gpt_neox: ['--n-head', '2', '--ffn', '80'],
    llama: ['--n-head', '6', '--n-kv-head', '2', '--ffn', '72', '--llama3-scaling', '32,1,4,64',
      '--tie-word-embeddings', 'false'],
    qwen2: ['--n-head', '4', '--n-kv-head', '2', '--ffn', '72'],
    qwen3: ['--n-head', '4', '--n-kv-head', '2', '--head-dim', '16', '--ffn', '72'],
  };
  for (const [arch, args] of Object.entries(shapes)) {
    const dir = join(work, arch);
    mkdirSync(dir, { recursive: true });
    execFileSync(python, [join(repoRoot, 'scripts', 'make_checkpoint.py'), '--out', dir, '--arch', arch, '--seed', '2',
      '--n-layer', '2', '--n-embd', '48', '--n-ctx', '128', '--vocab', '1000', '--dtype', 'BF16', ...args]);
    const config = readFileSync(join(dir, 'config.json'), 'utf8');
    for (const dtype of ['q8', 'q16', 'f32']) {
      const out = join(work, `${arch}.${dtype}.arcs`);
      execFileSync(join(repoRoot, 'build', 'native', 'arcscope'), ['convert', '--in', dir, '--out', out, '--dtype', dtype]);
      assert.equal(e.core.ModelConverter.convertedBytes(config, dtype), statSync(out).size, `${arch} in ${dtype}`);
    }
  }
  assert.throws(() => e.core.ModelConverter.convertedBytes('{"model_type": "llama"}', 'q8'), /config\.json/);
  assert.throws(() => e.core.ModelConverter.convertedBytes(JSON.stringify(DECODER_MODELS[0].config), 'q4'), /dtype/);
});
