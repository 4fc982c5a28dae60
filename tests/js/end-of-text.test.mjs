// end-of-text.test.mjs: generation ends at the model's own end of text, its tokenizer's EOS (tokenizer_config.json's
// eos_token), not at GPT-2's <|endoftext|> id (50256), which is an ordinary token in Llama 3's or Qwen's vocabulary.
// A Llama-shaped checkpoint with Llama 2's real tokenizer files greedily continues "Once upon a time" with
// "▁time"; the same checkpoint whose tokenizer_config.json names "▁time" its eos_token stops there at once, in the
// CLI and in the JS model.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { engine, llama2ShapedCheckpoint, repoRoot } from './support.mjs';

const cli = join(repoRoot, 'build', 'native', 'arcscope');
const work = join(repoRoot, 'build', 'test-models', 'end-of-text');
const llama2 = join(repoRoot, 'node_modules', '@lenml', 'tokenizer-llama2', 'models');
const PROMPT = 'Once upon a time';
const generate = (model) => JSON.parse(execFileSync(cli, ['generate', '--model', model, '--text', PROMPT, '--tokens', '4',
  '--temperature', '0', '--json'], { encoding: 'utf8' }));

// A folder with the checkpoint and Llama 2's tokenizer files, tokenizer_config.json's eos_token replaced by eos where
// given, converted natively: -> the .arcs file's path.
function model(name, eos) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(work, 'checkpoint', 'config.json'), join(dir, 'config.json'));
  copyFileSync(join(work, 'checkpoint', 'model.safetensors'), join(dir, 'model.safetensors'));
  copyFileSync(join(llama2, 'tokenizer.json'), join(dir, 'tokenizer.json'));
  const config = JSON.parse(readFileSync(join(llama2, 'tokenizer_config.json'), 'utf8'));
  if (eos) config.eos_token = eos;
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  execFileSync(cli, ['convert', '--in', dir, '--out', `${dir}.q8.arcs`, '--dtype', 'q8']);
  return `${dir}.q8.arcs`;
}

let plain, endsAtTime;
before(() => {
  llama2ShapedCheckpoint(join(work, 'checkpoint'));
  plain = model('eos-s', null);
  endsAtTime = model('eos-time', '▁time');
});

test('the CLI stops at the tokenizer\'s eos_token', () => {
  const free = generate(plain);
  assert.deepEqual(free.ids, [727, 727, 727, 727], 'greedy: "▁time" again and again (</s> is 2)');
  assert.equal(free.stop, 'max_tokens');
  const ended = generate(endsAtTime);
  assert.deepEqual(ended.ids, []);
  assert.equal(ended.stop, 'end_of_text');
});

test('the JS model stops at its tokenizer\'s eosId', async () => {
  const e = await engine();
  for (const [file, ids, stop] of [[plain, [727, 727, 727, 727], 'max_tokens'], [endsAtTime, [], 'end_of_text']]) {
    const m = e.loadModel(readFileSync(file));
    try {
      assert.equal(m.tokenizer.eosId, file === plain ? 2 : 727);
      const out = await m.generate({ ids: m.tokenize(PROMPT).ids, maxTokens: 4, temperature: 0 });
      assert.deepEqual([...out.ids], ids);
      assert.equal(out.stop, stop);
    } finally {
      m.free();
    }
  }
  // GPT-2's tokenizer ends a text with <|endoftext|>, as before.
  assert.equal(e.tokenizer.eosId, 50256);
});
