// convert-decoders.test.mjs: the wasm converter reads GPT-NeoX, Llama, Qwen2 and Qwen3 checkpoints as the CLI does,
// byte for byte, from one model.safetensors (convertCheckpoint) or from shards (the binding's createSharded,
// beginShard and feed, shard after shard), and refuses shards fed out of turn by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engine, python, repoRoot } from './support.mjs';

const cli = join(repoRoot, 'build', 'native', 'arcscope');
const SHAPE = ['--n-layer', '2', '--n-head', '4', '--n-embd', '64', '--n-ctx', '64', '--vocab', '300', '--ffn', '96'];
const ARCHS = { gpt_neox: [], llama: ['--n-kv-head', '2'], qwen2: ['--n-kv-head', '2'], qwen3: ['--head-dim', '32'] };

function makeCheckpoint(dir, arch, shards) {
  execFileSync(python, [join(repoRoot, 'scripts', 'make_checkpoint.py'), '--arch', arch, '--out', dir, '--seed', '3',
    '--dtype', 'BF16', '--shards', String(shards), ...SHAPE, ...ARCHS[arch]]);
  return dir;
}

// The binding's sharded conversion: every shard of the index, in the order it gives, in chunks of 1000 bytes.
function convertShards(e, dir, dtype) {
  const conv = e.core.ModelConverter.createSharded(readFileSync(join(dir, 'config.json'), 'utf8'), dtype,
    readFileSync(join(dir, 'model.safetensors.index.json'), 'utf8'));
  try {
    for (const name of conv.shards()) {
      const bytes = readFileSync(join(dir, name));
      conv.beginShard(name, bytes.length);
      for (let at = 0; at < bytes.length; at += 1000) conv.feed(bytes.subarray(at, at + 1000));
    }
    return conv.finish();
  } finally {
    conv.delete();
  }
}

test('every decoder converts in wasm to the CLI\'s bytes, from one file or from shards', async () => {
  const e = await engine();
  const work = mkdtempSync(join(tmpdir(), 'arcscope-convert-decoders-'));
  try {
    for (const arch of Object.keys(ARCHS)) {
      const one = makeCheckpoint(join(work, `${arch}-1`), arch, 1);
      const sharded = makeCheckpoint(join(work, `${arch}-3`), arch, 3);
      for (const dtype of ['q8', 'f32']) {
        const out = join(work, `${arch}.${dtype}.arcs`);
        const said = execFileSync(cli, ['convert', '--in', sharded, '--out', out, '--dtype', dtype],
          { encoding: 'utf8' });
        assert.match(said, new RegExp(`^read ${arch}: n_layer 2, `, 'm'));
        const native = readFileSync(out);
        const st = readFileSync(join(one, 'model.safetensors'));
        const fromOne = await e.convertCheckpoint({ config: readFileSync(join(one, 'config.json'), 'utf8'),
          chunks: [st], totalBytes: st.length, dtype });
        assert.equal(Buffer.compare(Buffer.from(fromOne), native), 0, `${arch} ${dtype}: one file`);
        const fromShards = convertShards(e, sharded, dtype);
        assert.equal(Buffer.compare(Buffer.from(fromShards), native), 0, `${arch} ${dtype}: shards`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('shards fed out of turn are refused by name, as JavaScript errors', async () => {
  const e = await engine();
  const work = mkdtempSync(join(tmpdir(), 'arcscope-convert-shards-'));
  try {
    const dir = makeCheckpoint(join(work, 'llama'), 'llama', 3);
    const conv = e.core.ModelConverter.createSharded(readFileSync(join(dir, 'config.json'), 'utf8'), 'q8',
      readFileSync(join(dir, 'model.safetensors.index.json'), 'utf8'));
    try {
      const [first, second] = conv.shards();
      assert.equal(first, 'model-00001-of-00003.safetensors');
      assert.throws(() => conv.feed(new Uint8Array(8)), /feed\(\) before begin_shard\(\)/);
      assert.throws(() => conv.beginShard('model.safetensors', 100),
        /model\.safetensors\.index\.json names no shard 'model\.safetensors'/);
      assert.throws(() => conv.beginShard(first, -1), /the length of a shard must be a positive byte count/);
      const bytes = readFileSync(join(dir, first));
      conv.beginShard(first, bytes.length);
      conv.feed(bytes);
      assert.throws(() => conv.beginShard(first, bytes.length),
        /shard model-00001-of-00003\.safetensors was already read/);
      assert.throws(() => conv.finish(), /truncated checkpoint: shard model-00002-of-00003\.safetensors was not read/);
      assert.equal(second, 'model-00002-of-00003.safetensors');
    } finally {
      conv.delete();
    }
    assert.throws(() => e.core.ModelConverter.createSharded(readFileSync(join(dir, 'config.json'), 'utf8'), 'q8',
      '{"weight_map": {"model.norm.weight": "../x.safetensors"}}'),
    /which is not the name of a \.safetensors file beside it/);
    const single = e.core.ModelConverter.create(readFileSync(join(dir, 'config.json'), 'utf8'), 'q8', 100);
    try {
      assert.deepEqual(single.shards(), []);
      assert.throws(() => single.beginShard('model-00001-of-00003.safetensors', 100),
        /reads one model\.safetensors, not shards/);
    } finally {
      single.delete();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('a model carries its tokenizer\'s files: the CLI and convertCheckpoint write the same bytes, and config says so', async () => {
  const e = await engine();
  const work = mkdtempSync(join(tmpdir(), 'arcscope-convert-tokenizer-'));
  try {
    const dir = makeCheckpoint(join(work, 'qwen3'), 'qwen3', 1);
    const json = JSON.stringify({ version: '1.0', model: { type: 'BPE', vocab: { 'é': 0, t: 1 }, merges: [] } });
    const tokenizerConfig = '{"add_bos_token": false, "eos_token": "<|im_end|>"}';
    writeFileSync(join(dir, 'tokenizer.json'), json);
    writeFileSync(join(dir, 'tokenizer_config.json'), tokenizerConfig);
    const out = join(work, 'qwen3.q8.arcs');
    const said = execFileSync(cli, ['convert', '--in', dir, '--out', out, '--dtype', 'q8'], { encoding: 'utf8' });
    assert.match(said, /^it carries its tokenizer: tokenizer\.json, tokenizer_config\.json$/m);
    const config = readFileSync(join(dir, 'config.json'), 'utf8');
    const st = readFileSync(join(dir, 'model.safetensors'));
    const carried = await e.convertCheckpoint({ config, chunks: [st], dtype: 'q8',
      tokenizerFiles: { json: JSON.parse(json), config: tokenizerConfig } });
    assert.equal(Buffer.compare(Buffer.from(carried), readFileSync(out)), 0, 'the CLI\'s bytes');
    const bare = await e.convertCheckpoint({ config, chunks: [st], dtype: 'q8' });
    assert.equal(carried.length, bare.length + 128 + 64);
    const withIt = e.loadModel(carried), without = e.loadModel(bare);
    assert.equal(withIt.config.tokenizer, 'carried');
    assert.equal(without.config.tokenizer, 'none');
    assert.deepEqual(withIt.forward([1, 2, 3]).logits, without.forward([1, 2, 3]).logits);
    withIt.free();
    without.free();
    const info = JSON.parse(execFileSync(cli, ['info', '--model', out], { encoding: 'utf8' }));
    assert.equal(info.tokenizer, 'carried');
    assert.equal(info.tokenizer_bytes, Buffer.byteLength(json) + Buffer.byteLength(tokenizerConfig));

    // Where it cannot be: GPT-2 (built in), or after the checkpoint's first bytes.
    const gpt2 = e.core.ModelConverter.create('{"n_layer": 1, "n_head": 1, "n_embd": 8, "n_positions": 4, "vocab_size": 8}', 'q8', 100);
    assert.throws(() => gpt2.carryTokenizer(json, null), /a GPT-2 model file carries no tokenizer: GPT-2's own is built in/);
    gpt2.delete();
    const late = e.core.ModelConverter.create(config, 'q8', st.length);
    late.feed(st.subarray(0, st.length));
    assert.throws(() => late.carryTokenizer(json, null), /the tokenizer's files must be given before the checkpoint's bytes/);
    late.delete();
    const wrong = e.core.ModelConverter.create(config, 'q8', st.length);
    assert.throws(() => wrong.carryTokenizer(12, null), /tokenizer\.json/);
    wrong.delete();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
