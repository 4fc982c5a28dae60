// interventions.test.mjs: runWithHooks, the patching and ablation sweeps, the logit lens and direct logit attribution
// in wasm against the native CLI (arcscope patch / ablate / lens / attribute) on the shipped model: the same numbers,
// bit for bit, since both builds sum in the same order (the CLI reads a text without <|endoftext|>: prependBos false).
// A text given to them is tokenized as toTokens does, <|endoftext|> first. The values against PyTorch: tests/reference/
// test_interventions_engine.py; the sweeps' shortcuts against plain passes: tests/cpp/test_interventions.cpp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { engine, repoRoot } from './support.mjs';

const cli = `${repoRoot}build/native/arcscope`;
const modelPath = `${repoRoot}models/shakespeare-4l.q8.arcs`;
const native = (...args) => JSON.parse(execFileSync(cli, [...args, '--model', modelPath], { encoding: 'utf8' }));
const line = ' the quick brown fox jumps over the lazy dog';
const repeated = `${line}.${line}`;
let model;
const shipped = async () => (model ??= (await engine()).loadModel(new Uint8Array(readFileSync(modelPath))));
const f32 = (rows) => Float32Array.from(rows.flat());

test('runWithHooks: the minimum shape posts rely on, and ablating the induction head breaks the second copy', async () => {
  const m = await shipped();
  const ids = m.tokenize(repeated).ids;
  const T = ids.length, V = 50257;
  const plain = m.forward(ids, { attention: false, allLogits: true });
  const { logits, logitsShape } = m.runWithHooks(ids, [{ hook: 'blocks.1.attn.hook_z', heads: [0], ablate: 'zero' }],
    { allLogits: true });
  assert.deepEqual(logitsShape, [T, V]);
  // Before the repeat the two runs agree on what comes next only as much as the head matters there; in the second
  // copy the induction head predicts the next token, and without it the prediction breaks.
  const rank = (rows, t, id) => { const row = rows.subarray(t * V, (t + 1) * V); return row.filter((v) => v > row[id]).length; };
  const second = ids.length - (ids.length - 1) / 2;  // the first token of the second copy, after the '.'
  let ranksWith = 0, ranksWithout = 0;
  for (let t = second; t < T - 1; t++) {
    ranksWith += rank(plain.logits, t, ids[t + 1]);
    ranksWithout += rank(logits, t, ids[t + 1]);
  }
  console.log(`second copy: mean rank of the right next token ${(ranksWith / (T - 1 - second)).toFixed(1)} with ` +
    `layer 1 head 0, ${(ranksWithout / (T - 1 - second)).toFixed(1)} without it`);
  assert.ok(ranksWithout > ranksWith + 5 * (T - 1 - second), 'ablating the induction head should break the copy');
});

test('the patching sweep in wasm equals arcscope patch', async () => {
  const m = await shipped();
  const clean = 'The fox jumps over the lazy dog', corrupted = 'The cat jumps over the lazy dog';
  const mine = m.patchingSweep({ clean, corrupted, answer: ' and', wrong: '.', prependBos: false });
  const theirs = native('patch', '--clean', clean, '--corrupted', corrupted, '--answer', ' and', '--wrong', '.');
  assert.equal(mine.clean, Math.fround(theirs.clean));
  assert.equal(mine.firstDifference, theirs.first_difference);
  assert.deepEqual(mine.heads.shape, [4, 4]);
  assert.deepEqual(mine.heads.data, f32(theirs.heads));
  assert.deepEqual(mine.resid.data, f32(theirs.resid));
});

test('the ablation sweep in wasm equals arcscope ablate, and a head of it equals runWithHooks', async () => {
  const m = await shipped();
  const prompt = repeated.slice(0, -' dog'.length);
  for (const kind of ['zero', 'mean']) {
    const mine = m.ablationSweep({ input: prompt, answer: ' dog', wrong: ' cat', kind, prependBos: false });
    const theirs = native('ablate', '--text', prompt, '--answer', ' dog', '--wrong', ' cat', ...(kind === 'mean' ? ['--mean'] : []));
    assert.deepEqual(mine.heads.data, f32(theirs.heads));
    const ids = m.tokenize(prompt).ids, V = 50257;
    const { logits } = m.runWithHooks(ids, [{ hook: 'blocks.1.attn.hook_z', heads: [0], ablate: kind }]);
    assert.equal(mine.heads.data[4], Math.fround(logits[3290] - logits[3797]));  // ' dog' - ' cat'
    assert.equal(logits.length, V);
    console.log(`${kind} ablation: metric ${mine.baseline.toFixed(2)} with every head, ${mine.heads.data[4].toFixed(2)} without layer 1 head 0`);
  }
});

test('the sweeps by layer give the same cells, report each layer, stop when asked and hold the model meanwhile', async () => {
  const m = await shipped();
  const clean = 'The fox jumps over the lazy dog', corrupted = 'The cat jumps over the lazy dog';
  const options = { clean, corrupted, answer: ' and', wrong: '.' };
  const seen = [];
  const byLayer = await m.patchingSweepInSteps(options, async (p) => {
    seen.push(p.layersDone);
    assert.equal(p.layers, 4);
    assert.throws(() => m.forward([1, 2, 3]), /running patchingSweepInSteps\(\)/);  // the model is the sweep's
    await new Promise((ok) => setTimeout(ok, 0));
  });
  assert.deepEqual(seen, [1, 2, 3, 4]);
  assert.deepEqual(byLayer, m.patchingSweep(options));
  const ablation = { input: repeated, answer: ' dog', wrong: ' cat', kind: 'mean' };
  assert.deepEqual(await m.ablationSweepInSteps(ablation), m.ablationSweep(ablation));
  // false stops it; a throw stops it with that error; either way the model is free again
  assert.equal(await m.ablationSweepInSteps(ablation, ({ layersDone }) => layersDone < 2), null);
  await assert.rejects(m.patchingSweepInSteps(options, () => { throw new Error('cancelled'); }), /cancelled/);
  assert.equal(m.forward([1, 2, 3], { attention: false }).logits.length, 50257);
  await assert.rejects(m.patchingSweepInSteps({ ...options, corrupted: 'The cat' }), /same length/);
});

test('the logit lens and direct logit attribution in wasm equal arcscope lens and attribute', async () => {
  const m = await shipped();
  const text = 'To be, or not to be, that is the';
  const lens = m.logitLens(text, { k: 3, target: ' question', prependBos: false });
  const theirs = native('lens', '--text', text, '--k', '3', '--target', ' question');
  assert.deepEqual(lens.top.map((l) => l.map((t) => t.map((x) => x.id))), theirs.top.map((l) => l.map((t) => t.map((x) => x.id))));
  assert.deepEqual(lens.topProbs, Float32Array.from(theirs.top.flat(2).map((x) => x.prob)));
  assert.deepEqual(lens.target, f32(theirs.target));
  const dla = m.directLogitAttribution(text, { token: ' question', prependBos: false });
  // the last position's logit is the pass's own
  assert.equal(dla.logit, m.forward(m.tokenize(text).ids, { attention: false }).logits[m.tokenize(' question').ids[0]]);
  const parts = native('attribute', '--text', text, '--token', ' question');
  assert.equal(dla.logit, Math.fround(parts.logit));
  assert.deepEqual(dla.parts.map((p) => p.name), Object.keys(parts.parts));
  assert.deepEqual(Float32Array.from(dla.parts.map((p) => p.value)), Float32Array.from(Object.values(parts.parts)));
});

test('bad requests are errors that say what is wrong', async () => {
  const m = await shipped();
  const ids = m.tokenize('a b c').ids;
  assert.throws(() => m.runWithHooks(ids, [{ hook: 'blocks.1.attn.hook_z', heads: [4], ablate: 'zero' }]),
    { message: 'blocks.1.attn.hook_z: head 4 is not in [0, 4)' });
  assert.throws(() => m.runWithHooks(ids, [{ hook: 'blocks.4.attn.hook_z', ablate: 'zero' }]),
    { message: 'hook blocks.4.attn.hook_z: the model has layers 0 to 3' });
  assert.throws(() => m.runWithHooks(ids, [{ hook: 'blocks.0.hook_mlp_out' }]),
    { message: "hooks[0]: give either ablate ('zero' or 'mean') or values" });
  assert.throws(() => m.runWithHooks(ids, [{ hook: 'blocks.0.hook_mlp_out', values: [1, 2] }]),
    { message: 'blocks.0.hook_mlp_out: replacing it needs 384 values (3 positions), got 2' });
  assert.throws(() => m.patchingSweep({ clean: 'a b', corrupted: 'a b c', answer: 1, wrong: 2 }),
    { message: 'patching needs prompts of the same length: the clean prompt has 3 tokens, the corrupted one 4' });
  assert.throws(() => m.patchingSweep({ clean: 'a b', corrupted: 'a b', answer: 1, wrong: 2 }), /the same tokens/);
  assert.throws(() => m.ablationSweep({ input: 'a', answer: ' Mary and', wrong: 1 }),
    { message: "answer ' Mary and' is 2 tokens; it must be exactly one (mind the leading space: ' Mary')" });
  assert.throws(() => m.directLogitAttribution('a b', { token: 60000 }), /token must be an integer in \[0, 50256\]/);
  assert.equal(m.forward(ids).logits.length, 50257); // still fine
});

test('the sweeps, the lens and the attribution read a text as toTokens does: <|endoftext|> first unless prependBos is false', async () => {
  const m = await shipped();
  const text = ' the quick brown fox jumps over the lazy dog. the quick brown fox jumps over the lazy';
  const other = text.replaceAll(' fox', ' cat');  // the corrupted prompt, as many tokens
  assert.equal(m.toTokens(text)[0], 50256);
  assert.deepEqual(m.toTokens(text).slice(1), m.toTokens(text, { prependBos: false }));
  // Each analysis on its prompt(s) given as they are (`as`), by toTokens' ids, or by the ids without <|endoftext|>.
  const forms = {
    text: (t) => t, bos: (t) => m.toTokens(t), plain: (t) => m.toTokens(t, { prependBos: false }) };
  const calls = {
    ablationSweep: (as, more) => m.ablationSweep({ input: as(text), answer: ' dog', wrong: ' cat', ...more }),
    patchingSweep: (as, more) => m.patchingSweep({ clean: as(text), corrupted: as(other), answer: ' dog', wrong: ' cat',
      ...more }),
    logitLens: (as, more) => m.logitLens(as(text), { k: 2, target: ' dog', ...more }),
    directLogitAttribution: (as, more) => m.directLogitAttribution(as(text), { token: ' dog', ...more }),
  };
  for (const [name, call] of Object.entries(calls)) {
    assert.deepEqual(call(forms.text), call(forms.bos), `${name}(text) runs toTokens(text)`);
    assert.deepEqual(call(forms.text, { prependBos: false }), call(forms.plain), `${name}(text, {prependBos: false})`);
    assert.deepEqual(call(forms.plain, { prependBos: true }), call(forms.plain), `${name}: ids are taken as they are`);
  }
  assert.notDeepEqual(calls.logitLens(forms.text).shape, calls.logitLens(forms.plain).shape);
  assert.deepEqual(await m.ablationSweepInSteps({ input: text, answer: ' dog', wrong: ' cat' }), calls.ablationSweep(forms.bos));
  assert.deepEqual(await m.patchingSweepInSteps({ clean: text, corrupted: other, answer: ' dog', wrong: ' cat' }),
    calls.patchingSweep(forms.bos));
  const bos = calls.ablationSweep(forms.text).baseline, plain = calls.ablationSweep(forms.plain).baseline;
  console.log(`induction prompt: logit(dog) - logit(cat) ${bos.toFixed(3)} with <|endoftext|> first, ${plain.toFixed(3)} without`);
});
