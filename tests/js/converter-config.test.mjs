// converter-config.test.mjs: convertCheckpoint runs the CLI's C++ converter on the config.json it is given, whole: a
// field that changes the model (attention scaling, an untied LM head, an unknown model type) is refused by name in wasm
// as natively, never converted into a plain GPT-2 with other logits. Sizes computed from a config stay checked in
// wasm's 32-bit address space.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engine, repoRoot } from './support.mjs';
import { checkpoint } from './crafted-files.mjs';

const TINY = { model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], n_layer: 2, n_head: 2, n_embd: 32,
  n_positions: 16, vocab_size: 96, activation_function: 'gelu_new' };

const convert = async (config, st) => (await engine()).convertCheckpoint({ config, chunks: [st], dtype: 'q8' });

// The safetensors file with one more tensor at its end: lm_head.weight, a copy of wte.weight that edit() may change.
function withHead(st, edit = () => {}) {
  const length = Number(new DataView(st.buffer, st.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(st.subarray(8, 8 + length)));
  const [begin, end] = header['wte.weight'].data_offsets;
  const data = st.subarray(8 + length);
  const head = new Float32Array(data.slice(begin, end).buffer);
  edit(head);
  header['lm_head.weight'] = { ...header['wte.weight'], data_offsets: [data.length, data.length + head.byteLength] };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length + head.byteLength);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  out.set(new Uint8Array(head.buffer), 8 + json.length + data.length);
  return out;
}

test('config fields that change the model are refused by name, not converted as plain GPT-2', async () => {
  const st = checkpoint(TINY);
  const refused = [
    [{ scale_attn_weights: false }, /config\.json: scale_attn_weights false is not supported/],
    [{ scale_attn_by_inverse_layer_idx: true }, /config\.json: scale_attn_by_inverse_layer_idx true is not supported \(arcscope computes GPT-2's attention scaled by 1\/sqrt\(head size\) only\)/],
    [{ n_inner: 64 }, /config\.json: n_inner 64 is not supported/],
    [{ activation_function: 'gelu' }, /config\.json: activation_function 'gelu' is not supported/],
    [{ add_cross_attention: true }, /config\.json: add_cross_attention true is not supported/],
    [{ model_type: 'mistral', architectures: ['MistralForCausalLM'] },
      /config\.json: model_type 'mistral' is not supported \(supported: gpt2, gpt_neox, llama, qwen2, qwen3\)/],
    [{ architectures: ['LlamaForCausalLM'] }, /config\.json: architectures 'LlamaForCausalLM' is not supported for model_type gpt2/],
  ];
  for (const [fields, message] of refused) {
    await assert.rejects(convert({ ...TINY, ...fields }, st), message, JSON.stringify(fields));
    await assert.rejects(convert(JSON.stringify({ ...TINY, ...fields }), st), message, 'as text');
  }
  // What GPT-2 computes under other names, or only rounds differently, converts to the same file.
  const plain = await convert(TINY, st);
  for (const fields of [{ activation_function: 'gelu_pytorch_tanh' }, { reorder_and_upcast_attn: true },
    { attn_pdrop: 0, resid_pdrop: 0.5 }, { n_inner: null }, { tie_word_embeddings: true }]) {
    assert.deepEqual(await convert({ ...TINY, ...fields }, st), plain, JSON.stringify(fields));
  }
});

test('an lm_head.weight converts only when it equals wte.weight: one matrix holds both in an .arcs file', async () => {
  const st = checkpoint(TINY);
  const plain = await convert(TINY, st);
  const untied = { ...TINY, tie_word_embeddings: false };
  assert.deepEqual(await convert(TINY, withHead(st)), plain, 'a tied checkpoint that stores its head');
  assert.deepEqual(await convert(untied, withHead(st)), plain, 'an untied head equal to wte');
  const other = withHead(st, (head) => { head[1000] += 0.125; });
  await assert.rejects(convert(untied, other),
    /config\.json: tie_word_embeddings false with an lm_head\.weight that differs from wte\.weight is not supported/);
  await assert.rejects(convert(TINY, other), /lm_head\.weight differs from wte\.weight, though config\.json ties them/);
  await assert.rejects(convert(untied, st), /config\.json: tie_word_embeddings false, but the checkpoint has no lm_head\.weight/);
});

test('arcscope convert refuses the same fields, and writes nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arcscope-convert-config-'));
  try {
    writeFileSync(join(dir, 'model.safetensors'), checkpoint(TINY));
    const out = join(dir, 'model.arcs');
    const convert = (config) => {
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
      return spawnSync(join(repoRoot, 'build', 'native', 'arcscope'), ['convert', '--in', dir, '--out', out,
        '--dtype', 'q8'], { encoding: 'utf8', timeout: 120_000 });
    };
    for (const [fields, message] of [
      [{ scale_attn_by_inverse_layer_idx: true }, /^error: config\.json: scale_attn_by_inverse_layer_idx true is not supported/],
      [{ scale_attn_weights: false }, /^error: config\.json: scale_attn_weights false is not supported/],
      [{ model_type: 'mistral' }, /^error: config\.json: model_type 'mistral' is not supported/],
    ]) {
      const run = convert({ ...TINY, ...fields });
      assert.equal(run.status, 1, JSON.stringify(fields));
      assert.match(run.stderr, message);
      assert.equal(existsSync(out), false, 'nothing written');
    }
    assert.equal(convert(TINY).status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a packed matrix beyond wasm\'s address space is refused by its size, not wrapped to a small one', async () => {
  const e = await engine();
  // Valid (2^31 weights a matrix), but its q16 embedding is 4.6 GB, which 32-bit size_t wrapped to 268 MB.
  const config = JSON.stringify({ n_layer: 1, n_head: 16, n_embd: 2048, n_positions: 1, vocab_size: 1 << 20 });
  let made = null;
  assert.throws(() => { made = e.core.ModelConverter.create(config, 'q16', 1e10); },
    /^Error: a q16 matrix \[1048576, 2048\] needs 4\.6 GB \(4563402752 bytes\); this build can address 4\.3 GB/);
  made?.delete();
});
