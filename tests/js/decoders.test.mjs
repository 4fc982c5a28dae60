// decoders.test.mjs: GPT-NeoX, Llama, Qwen2 and Qwen3 through the JS API and the CLI. The wasm engine gives the
// native build's bits on the same file and ids (logits and every layer's and head's attention, over more than one
// chunk), model.config names the architecture and its numbers, the hooks follow it, and the CLI takes token ids for
// a model that carries no tokenizer (text is refused in words, tokens are labelled <id>).
// Needs build/native/arcscope (built before this suite). The values against PyTorch:
// tests/reference/test_decoder_engine.py.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { engine, python, repoRoot } from './support.mjs';

const cli = `${repoRoot}build/native/arcscope`;
const work = `${repoRoot}build/test-models/decoders`;
const T = 80;  // two chunks of the pass
const VOCAB = 300;
const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % VOCAB);

// Each architecture's small shape, in its usual storage type.
const SHAPES = {
  gpt_neox: ['--n-head', '4', '--n-embd', '64', '--ffn', '256', '--dtype', 'F16'],
  llama: ['--n-head', '4', '--n-kv-head', '2', '--n-embd', '64', '--ffn', '96', '--llama3-scaling', '8,1,4,32',
    '--dtype', 'BF16'],
  qwen2: ['--n-head', '4', '--n-kv-head', '2', '--n-embd', '64', '--ffn', '96', '--dtype', 'BF16'],
  qwen3: ['--n-head', '4', '--n-kv-head', '2', '--head-dim', '32', '--n-embd', '64', '--ffn', '96', '--dtype', 'BF16'],
};

function native(arch, dtype) {
  const dir = `${work}/${arch}`, model = `${dir}/model.${dtype}.arcs`;
  const bin = `${dir}/logits.${dtype}.f32`, json = `${dir}/run.${dtype}.json`;
  execFileSync(cli, ['convert', '--in', dir, '--out', model, '--dtype', dtype]);
  execFileSync(cli, ['run', '--model', model, '--ids', ids.join(','), '--out', json, '--logits-bin', bin]);
  const b = readFileSync(bin);
  const run = JSON.parse(readFileSync(json, 'utf8'));
  return {
    path: model,
    bytes: new Uint8Array(readFileSync(model)),
    logits: new Float32Array(b.buffer, b.byteOffset, b.length / 4),
    attention: Float32Array.from(run.attention.flat(3)),
    tokens: run.tokens,
  };
}

const made = {};
before(() => {
  for (const [arch, shape] of Object.entries(SHAPES)) {
    const dir = `${work}/${arch}`;
    mkdirSync(dir, { recursive: true });
    execFileSync(python, [`${repoRoot}scripts/make_checkpoint.py`, '--out', dir, '--arch', arch, '--seed', '23',
      '--n-layer', '2', '--n-ctx', '128', '--vocab', String(VOCAB), '--qk-scale', '4', ...shape]);
    made[arch] = { q8: native(arch, 'q8'), q16: native(arch, 'q16'), f32: native(arch, 'f32') };
  }
});

for (const arch of Object.keys(SHAPES)) {
  test(`${arch}: wasm gives the native build's bits in every format`, async () => {
    const e = await engine();
    for (const dtype of ['q8', 'q16', 'f32']) {
      const nat = made[arch][dtype];
      const model = e.loadModel(nat.bytes);
      assert.equal(model.config.architecture, arch);
      const r = model.forward(ids, { attention: true, allLogits: true });
      assert.deepEqual(r.attentionShape, [2, 4, T, T]);
      assert.ok(r.logits.every((x, i) => Object.is(x, nat.logits[i])), `${dtype} logits`);
      assert.ok(r.attention.every((x, i) => Object.is(x, nat.attention[i])), `${dtype} attention`);
      model.free();
    }
  });
}

test('model.config names the architecture and its numbers', async () => {
  const e = await engine();
  const model = e.loadModel(made.qwen3.q8.bytes);
  const { checksum, ...config } = model.config;
  assert.deepEqual(config, {
    architecture: 'qwen3', n_layer: 2, n_head: 4, n_kv_head: 2, d_head: 32, n_embd: 64, d_mlp: 96, n_ctx: 128,
    n_vocab: VOCAB, norm: 'rmsnorm', norm_eps: 1e-6, positions: 'rotary', rotary_dim: 32, rope_theta: 10000,
    rope_scaling: 'none', mlp: 'swiglu', parallel_residual: false, tied_head: true, qk_norm: true,
    patternHooks: ['attn.hook_rot_q', 'attn.hook_rot_k'], dtype: 'q8', weightBits: 8, activationBits: 14,
    kvCache: 'f32', tokenizer: 'none',
  });
  assert.match(checksum, /^\d+$/);
  model.free();
});

test('the hooks follow the architecture, and the rotated queries and keys give the attention', async () => {
  const e = await engine();
  const neox = e.loadModel(made.gpt_neox.q8.bytes);
  assert.ok(neox.hookNames.includes('blocks.1.attn.hook_rot_q'));
  assert.ok(!neox.hookNames.includes('blocks.1.hook_resid_mid'), 'a parallel block has no resid_mid');
  neox.free();
  const llama = e.loadModel(made.llama.q16.bytes);
  const [q, k] = llama.config.patternHooks.map((h) => `blocks.1.${h}`);
  const { cache } = llama.runWithCache(ids, { names: [q, k, 'blocks.1.attn.hook_v', 'blocks.1.attn.hook_pattern'] });
  assert.deepEqual(cache[k].shape, [T, 2, 16], 'keys hold the key/value heads only');
  assert.deepEqual(cache['blocks.1.attn.hook_v'].shape, [T, 2, 16]);
  assert.deepEqual(cache[q].shape, [T, 4, 16]);
  const pattern = llama.attentionPattern(cache[q].data, cache[k].data);
  const captured = cache['blocks.1.attn.hook_pattern'].data;
  assert.equal(pattern.length, captured.length);
  assert.ok(pattern.every((x, i) => Object.is(x, captured[i])));
  llama.free();
});

test('the CLI takes token ids for a model that carries no tokenizer, and says why text is refused', () => {
  const model = made.llama.q8.path;
  assert.deepEqual(made.llama.q8.tokens.slice(0, 2), [`<${ids[0]}>`, `<${ids[1]}>`]);
  for (const args of [['run', '--text', 'hello'], ['generate', '--text', 'hello', '--tokens', '2'],
    ['lens', '--text', 'hello']]) {
    const run = spawnSync(cli, [...args, '--model', model], { encoding: 'utf8' });
    assert.equal(run.status, 1, args.join(' '));
    assert.match(run.stderr, /--text: this llama model carries no tokenizer: give token ids, or --tokenizer FILE_OR_FOLDER \(its tokenizer\.json\), or convert it again with tokenizer\.json beside the checkpoint/);
  }
  const generated = spawnSync(cli, ['generate', '--model', model, '--ids', '1,2,3', '--tokens', '3', '--json'],
    { encoding: 'utf8' });
  assert.equal(generated.status, 0, generated.stderr);
  assert.match(JSON.parse(generated.stdout).text, /^(<\d+>){3}$/);
  const perplexity = JSON.parse(execFileSync(cli, ['perplexity', '--model', model, '--ids', ids.slice(0, 20).join(',')],
    { encoding: 'utf8' }));
  assert.equal(perplexity.predicted, 19);
  const info = JSON.parse(execFileSync(cli, ['info', '--model', model], { encoding: 'utf8' }));
  assert.equal(info.architecture, 'llama');
  assert.equal(info.n_kv_head, 2);
  assert.equal(info.rope_scaling, 'llama3');
});

test("the JS API takes token ids for a model that carries no tokenizer, and says why text is refused", async () => {
  const e = await engine();
  const model = e.loadModel(made.llama.q8.bytes);
  assert.equal(model.tokenizer, null);
  const refusal = { message: "this llama model carries no tokenizer: give token ids, or convert it again with its " +
    "tokenizer's files (convertCheckpoint's tokenizerFiles; tokenizer.json beside the checkpoint for arcscope convert)" };
  assert.throws(() => model.tokenize('hello'), refusal);
  assert.throws(() => model.toTokens('hello'), refusal);
  assert.throws(() => model.logitLens('hello'), refusal);
  assert.throws(() => model.ablationSweep({ input: [1, 2, 3], answer: ' Mary', wrong: 4 }), refusal);
  assert.deepEqual(model.toStrToks([5, 7]), ['<5>', '<7>']);
  const lens = model.logitLens([1, 2, 3], { k: 2 });
  assert.deepEqual(lens.shape, [2, 3, 2]);
  assert.match(lens.top[1][2][0].token, /^<\d+>$/);
  model.free();
});
