// hostile-input.test.mjs: the crafted inputs of the hostile-input review, against the wasm engine itself, where size_t
// is 32 bits. Every one must be a clear Error, and afterwards every model loaded before it must give the same bits
// and the tokenizer must still work: one wasm memory holds them all, so a write past a wrapped size would land in
// their bytes. Each class also prints the wasm memory it left the engine with (wasm memory never shrinks, so that
// is its peak).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { engine, repoRoot } from './support.mjs';
import { checkpoint, tensorAt, reseal } from './crafted-files.mjs';

const TEXT = 'Where is the duke of York? Where is the duke of York?';
const TINY = { n_layer: 2, n_head: 2, n_embd: 32, n_positions: 64, vocab_size: 96, activation_function: 'gelu_new' };
let e, shipped, tiny, tinyBytes, reference;

const convert = (config, chunks, options = {}) => e.convertCheckpoint({ config, chunks, dtype: 'q8', ...options });
const bytesOf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const mb = () => (e.core.HEAP8.buffer.byteLength / 2 ** 20).toFixed(0);

// Everything the loaded models and the tokenizer give for fixed inputs: logits and attention of every position.
function observe() {
  const ids = e.encode(TEXT);
  const a = shipped.forward(ids, { attention: true, allLogits: true });
  const b = tiny.forward([1, 5, 9, 5, 1, 95], { attention: true, allLogits: true });
  return { ids: [...ids], text: e.decode(ids), arrays: [a.logits, a.attention, b.logits, b.attention].map(bytesOf) };
}

function assertUnharmed(what) {
  const now = observe();
  assert.deepEqual(now.ids, reference.ids, `${what}: the tokenizer changed`);
  assert.equal(now.text, TEXT, `${what}: decode changed`);
  now.arrays.forEach((bytes, i) => assert.equal(Buffer.compare(bytes, reference.arrays[i]), 0,
    `${what}: results of a model loaded earlier changed (array ${i})`));
  console.log(`${what}: loaded models bit-identical, tokenizer intact; wasm memory ${mb()} MB`);
}

before(async () => {
  e = await engine();
  shipped = e.loadModel(readFileSync(`${repoRoot}/models/shakespeare-4l.q8.arcs`));
  tinyBytes = await convert(TINY, checkpoint(TINY));
  tiny = e.loadModel(tinyBytes);
  reference = observe();
  console.log(`before: wasm memory ${mb()} MB`);
});
after(() => { shipped?.free(); tiny?.free(); });

test('1. a config whose .arcs is 2^32 + 117 KB: refused before the output is allocated', async () => {
  const config = { n_layer: 73, n_head: 16, n_embd: 2048, n_positions: 1, vocab_size: 66712 };
  const st = checkpoint(config, { headerOnly: true });
  await assert.rejects(convert(config, st),
    /truncated checkpoint: model\.safetensors is 82\.8 KB \(82843 bytes\) but its header describes 15\.3 GB/);
  // A source that lies about its length (a false Content-Length): the 4.3 GB output itself is refused.
  await assert.rejects(convert(config, [st], { totalBytes: 15_251_227_547 }),
    /the converted model file needs 4\.3 GB \(\d+ bytes\); this build can address 4\.3 GB \(2\^32 bytes\)/);
  // A stream of unknown length is refused up front.
  await assert.rejects(convert(config, (async function* () { yield st; })()), /needs totalBytes/);
  assertUnharmed('1 (converter size)');
});

test('2. attention capture L·H·T·T beyond 4 GB: an Error naming the size, before the buffer grows', async () => {
  const config = { n_layer: 1, n_head: 1, n_embd: 8, n_positions: 32769, vocab_size: 16 };
  const long = e.loadModel(await convert(config, checkpoint(config)));
  try {
    assert.throws(() => long.forward(new Array(32769).fill(3), { attention: true }),
      /attention capture \(n_layer x n_head x queries x keys\) \[1, 1, 32769, 32769\] of 4-byte values needs 4\.3 GB \(4295229444 bytes\); this build can address 4\.3 GB/);
    assert.equal(long.forward([1, 2, 3], { attention: true }).attentionShape.join(), '1,1,3,3');
  } finally {
    long.free();
  }
  assertUnharmed('2 (attention capture)');
});

test('3. tensor shapes whose element count wraps in 32 bits', () => {
  const pe = e.positionalEncoding(256, 256);
  assert.throws(() => pe.forward(new Float32Array(0), [65536, 256, 256]),
    /tensor \[65536, 256, 256\] of 4-byte values needs 17\.2 GB/);
  assert.throws(() => pe.forward(new Float32Array(0), [2 ** 32 + 1, 1, 256]), /shape\[0\] \(4294967297\) is not a 32-bit integer/);
  pe.free();
  assert.throws(() => e.randomNormal([65537, 65536, 1]), /needs 17\.2 GB/);
  assert.throws(() => e.causalMask(2 ** 32 + 2), /n must be an integer in \[-2147483648, 2147483647\], got 4294967298/);
  assert.throws(() => e.positionalEncoding(2 ** 32 + 8, 4), /d_model must be an integer/);
  const mha = e.multiHeadAttention(8, 2);
  assert.throws(() => mha.forward(new Float32Array(16), [1, 2, 8], { mask: new Float32Array(2 ** 20) }), /mask must be \(2, 2\)/);
  mha.free();
  assertUnharmed('3 (tensor shapes)');
});

test('4. lengths that overflow in head analysis', () => {
  assert.throws(() => shipped.headScores({ length: 2 ** 30 }), /length must be an integer in \[2, 128\], got 1073741824/);
  assert.throws(() => tiny.headScores({ length: 2 ** 31 + 4 }), /length must be an integer in \[2, 32\]/);
  assertUnharmed('4 (lengths)');
});

test('5. non-finite weights are refused at load; overflowing activations are an Error, not NaN', async () => {
  const edit = (name, index, value) => {
    const b = tinyBytes.slice();
    new DataView(b.buffer).setFloat32(tensorAt(b, name).offset + 4 * index, value, true);
    return reseal(b);
  };
  assert.throws(() => e.loadModel(edit('ln_f.weight', 3, NaN)), /tensor ln_f\.weight holds a non-finite value \(NaN\) at index 3/);
  assert.throws(() => e.loadModel(edit('h.1.mlp.c_fc.bias', 100, -Infinity)), /h\.1\.mlp\.c_fc\.bias holds a non-finite value \(Inf\) at index 100/);
  // a q8 scale: the first record of wte holds rows 0-7's scales for columns 0-31
  assert.throws(() => e.loadModel(edit('wte.weight', 5, NaN)), /wte\.weight has a non-finite q8 scale \(NaN\) for row 5, columns 0-31/);
  // A NaN weight in a checkpoint stops the conversion, naming the tensor and index.
  const st = checkpoint(TINY);
  const headerBytes = Number(new DataView(st.buffer).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(st.subarray(8, 8 + headerBytes)));
  new DataView(st.buffer).setFloat32(8 + headerBytes + header['ln_f.bias'].data_offsets[0] + 4 * 2, NaN, true);
  await assert.rejects(convert(TINY, st), /tensor ln_f\.bias holds a non-finite value \(NaN\) at index 2/);
  // Finite but enormous LayerNorm gains: the logits overflow, and the engine says so instead of drawing NaN.
  const huge = tinyBytes.slice();
  const lnf = tensorAt(huge, 'ln_f.weight');
  for (let i = 0; i < lnf.rows; i++) new DataView(huge.buffer).setFloat32(lnf.offset + 4 * i, 3e38, true);
  const overflowing = e.loadModel(reseal(huge));
  try {
    assert.throws(() => overflowing.forward([1, 2, 3]), /the model produced a non-finite logit \((NaN|Inf)\) at position 2/);
    await assert.rejects(overflowing.generate({ ids: [1, 2], maxTokens: 3 }), /non-finite logit/);
  } finally {
    overflowing.free();
  }
  assertUnharmed('5 (non-finite weights)');
});

test('6. overlapping tensor ranges (checksum recomputed) are refused', () => {
  const b = tinyBytes.slice();
  const weight = tensorAt(b, 'h.0.ln_1.weight'), bias = tensorAt(b, 'h.0.ln_1.bias');
  const view = new DataView(b.buffer);
  view.setBigUint64(bias.entry + 80, view.getBigUint64(weight.entry + 80, true), true);
  assert.throws(() => e.loadModel(reseal(b)), /tensors h\.0\.ln_1\.weight and h\.0\.ln_1\.bias overlap/);
  assertUnharmed('6 (overlap)');
});

test('7. ids are checked as integers in range before any conversion to int32', async () => {
  assert.throws(() => shipped.forward([2 ** 32 + 464]), /token id 4294967760 at position 0 is outside the vocabulary \[0, 50257\)/);
  assert.throws(() => shipped.forward([15496, 2 ** 31]), /token id 2147483648 at position 1 is outside the vocabulary/);
  assert.throws(() => shipped.forward([-1]), /token id -1 at position 0/);
  assert.throws(() => shipped.append(2 ** 32 + 464), /token id must be an integer in \[0, 50256\], got 4294967760/);
  assert.throws(() => shipped.perplexity([1, 2 ** 32 + 1]), /token id 4294967297 at position 1/);
  assert.throws(() => shipped.headScores({ candidates: [2 ** 32] }), /token id 4294967296 at position 0/);
  // The core's own bindings check too (the JS wrapper is not the only caller).
  assert.throws(() => shipped.handle.forward([2 ** 32 + 464], false, false), /token id 4294967760/);
  assert.throws(() => e.core.topK(new Float32Array(4), 2 ** 32 + 1), /k must be an integer/);
  assert.throws(() => e.decode([2 ** 32]), /token id 4294967296 at position 0 is outside the vocabulary/);
  assert.throws(() => e.tokenizer.tokenText(2 ** 32 + 1), /token id must be an integer in \[0, 50256\], got 4294967297/);
  await assert.rejects(convert({ ...TINY, n_layer: '+2' }, []), /n_layer must be an integer/);
  await assert.rejects(convert(JSON.stringify(TINY).replace('"n_layer":2', '"n_layer":+2'), []), /config\.json: JSON/);
  await assert.rejects(convert(JSON.stringify(TINY).replace('"n_layer":2', '"n_layer":2,"n_layer":3'), []),
    /key "n_layer" appears twice/);
  assertUnharmed('7 (ids)');
});

test('9. memory: a 100 MB safetensors header is refused at its first 8 bytes; JSON bombs stop early', async () => {
  const prefix = new Uint8Array(8);
  new DataView(prefix.buffer).setBigUint64(0, 100n << 20n, true);
  await assert.rejects(convert(TINY, [prefix], { totalBytes: (100 << 20) + 8 }),
    /safetensors header of 105 MB is larger than arcscope reads \(1 MB/);
  const bomb = new TextEncoder().encode(`[${'0,'.repeat(400_000)}0]`);  // 0.8 MB, a tree of 19 MB
  const st = new Uint8Array(8 + bomb.length);
  new DataView(st.buffer).setBigUint64(0, BigInt(bomb.length), true);
  st.set(bomb, 8);
  await assert.rejects(convert(TINY, st), /more than 16 bytes of memory per byte of text/);
  assertUnharmed('9 (memory)');
});

test('10. a model file that is not one, or empty input, says what is wrong', () => {
  assert.throws(() => e.loadModel(new TextEncoder().encode('<!doctype html><title>404</title>')),
    /not an arcscope model file/);
  assert.throws(() => e.loadModel(tinyBytes.subarray(0, 100)), /truncated/);
  assert.throws(() => shipped.forward([]), /empty input/);
  assert.throws(() => shipped.forward(new Array(257).fill(1)), /longer than the model's context \(n_ctx 256\)/);
  assertUnharmed('10 (messages)');
});

// Values that JavaScript's ToNumber (Embind's conversion of a number parameter) would read as 0, 1, 5 or 7.
const NOT_NUMBERS = [[null, 'null'], [false, 'a boolean (false)'], [[], 'an array of length 0'],
  [true, 'a boolean (true)'], ['5', 'the string "5"'], [[7], 'an array of length 1'],
  [{ valueOf() { return 7; } }, 'a value of type object']];
const escaped = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const refusal = (name, got) => new RegExp(`^${escaped(name)} must be .*, got ${escaped(got)}$`);

test('11. every numeric argument is a number or a clear Error; no silent defaults', async () => {
  const ids = e.encode('To be, or not to be');
  const clean = 'The fox jumps over the lazy dog', corrupted = 'The cat jumps over the lazy dog';
  const { logits } = shipped.forward(ids, { attention: false });
  // Plain numbers: a string is refused as much as null.
  const numeric = {
    k: (v) => shipped.logitLens(ids, { k: v }),
    'k (topk)': (v) => shipped.topk(logits, v),
    position: (v) => shipped.directLogitAttribution(ids, { token: 11, position: v }),
    window: (v) => shipped.perplexity(ids, { window: v }),
    maxTokens: (v) => shipped.generate({ ids, maxTokens: v }),
    temperature: (v) => shipped.generate({ ids, temperature: v }),
    topK: (v) => shipped.generate({ ids, topK: v }),
    topP: (v) => shipped.generate({ ids, topP: v }),
    seed: (v) => shipped.generate({ ids, seed: v }),
    'headScores: seed': (v) => tiny.headScores({ seed: v }),
    'headScores: length': (v) => tiny.headScores({ length: v }),
    totalBytes: (v) => convert(TINY, checkpoint(TINY), { totalBytes: v }),
    'fileStream: chunkBytes': (v) => tiny.fileStream({ chunkBytes: v }),
  };
  // Tokens: an id or one token's text, so '5' is the token "5" (and target null means no target).
  const tokens = {
    'answer (ablationSweep)': (v) => shipped.ablationSweep({ input: ids, answer: v, wrong: 11 }),
    'wrong (ablationSweep)': (v) => shipped.ablationSweep({ input: ids, answer: 11, wrong: v }),
    'answer (patchingSweep)': (v) => shipped.patchingSweep({ clean, corrupted, answer: v, wrong: 11 }),
    'wrong (patchingSweep)': (v) => shipped.patchingSweep({ clean, corrupted, answer: 11, wrong: v }),
    token: (v) => shipped.directLogitAttribution(ids, { token: v }),
    target: (v) => shipped.logitLens(ids, { target: v }),
  };
  let tried = 0;
  for (const [label, call] of [...Object.entries(numeric), ...Object.entries(tokens)]) {
    const name = label.replace(/ \(.*\)$/, '');
    for (const [value, got] of NOT_NUMBERS) {
      if (label in tokens && (value === '5' || (name === 'target' && value === null))) continue;
      await assert.rejects(async () => call(value), { message: refusal(name, got) }, `${label}: ${got}`);
      tried++;
    }
  }
  // What stays valid: '5' is a token's text, and target null is no target.
  const five = e.tokenize('5').ids[0];
  assert.deepEqual(shipped.directLogitAttribution(ids, { token: '5' }), shipped.directLogitAttribution(ids, { token: five }));
  assert.equal(shipped.logitLens(ids, { target: null }).target, null);
  // A negative target was read as "no target"; now it is an Error (TransformerLens has no such convention).
  for (const target of [-5, -1]) {
    assert.throws(() => shipped.logitLens(ids, { target }),
      { message: `target must be an integer in [0, 50256] (or null for none), got ${target}` });
  }
  console.log(`11: ${tried} values that are not numbers refused, over ${Object.keys(numeric).length} numeric ` +
    `options and ${Object.keys(tokens).length} token options`);
  assertUnharmed('11 (numbers)');
});

// Every option that sizes or counts something, given a number that is not one it can mean: each refused at once,
// naming the option and its range (a stream with a chunk of 0, NaN or -1 bytes never ended).
test('11b. sizes and counts: 0, negatives, NaN, Infinity and fractions are refused by name, never looped on', async () => {
  const ids = e.encode('To be, or not to be');
  const { logits } = shipped.forward(ids, { attention: false });
  const { cache } = shipped.runWithCache(ids, { names: ['blocks.0.attn.hook_q', 'blocks.0.attn.hook_k'] });
  const [q, k] = [cache['blocks.0.attn.hook_q'].data, cache['blocks.0.attn.hook_k'].data];
  // option -> [call, the values it must refuse besides NaN, Infinity, -1 and 1.5]
  const sizes = {
    'fileStream: chunkBytes': [(v) => tiny.fileStream({ chunkBytes: v }), [0, -Infinity, 2 ** 31, 2 ** 53]],
    k: [(v) => shipped.logitLens(ids, { k: v }), [0, 101]],
    'k (topk)': [(v) => shipped.topk(logits, v), [0]],
    size: [(v) => shipped.attentionThumbnail(q, k, 0, v), [0, ids.length + 1]],
    window: [(v) => shipped.perplexity(ids, { window: v }), []],
    maxTokens: [(v) => shipped.generate({ ids, maxTokens: v }), []],
    topK: [(v) => shipped.generate({ ids, topK: v }), []],
    'headScores: length': [(v) => tiny.headScores({ length: v }), [-(2 ** 31), 1e9]],
    'headScores: seed': [(v) => tiny.headScores({ seed: v }), [2 ** 53]],
    totalBytes: [(v) => e.loadModelStream({ chunks: [tinyBytes], totalBytes: v }), [0]],
  };
  let tried = 0;
  for (const [label, [call, more]] of Object.entries(sizes)) {
    const name = label.replace(/ \(.*\)$/, '');
    for (const value of [NaN, Infinity, -1, 1.5, ...more]) {
      await assert.rejects(async () => call(value),
        { message: new RegExp(`^(${escaped(name)}|the model file's length) must be (an integer in \\[|a positive)`) },
        `${label}: ${value}`);
      tried++;
    }
  }
  // The stream's own refusals are RangeErrors; a chunk size that is one reads the whole file, and ends.
  assert.throws(() => tiny.fileStream({ chunkBytes: 0 }),
    { name: 'RangeError', message: 'fileStream: chunkBytes must be an integer in [1, 1073741824], got 0' });
  assert.throws(() => tiny.fileStream({ chunkBytes: '4' }), { name: 'TypeError' });
  for (const chunkBytes of [1000, tinyBytes.length, 2 ** 30]) {
    const read = new Uint8Array(await new Response(tiny.fileStream({ chunkBytes })).arrayBuffer());
    assert.equal(Buffer.compare(bytesOf(read), bytesOf(tinyBytes)), 0, `chunkBytes ${chunkBytes}`);
  }
  console.log(`11b: ${tried} sizes and counts refused over ${Object.keys(sizes).length} options`);
  assertUnharmed('11b (sizes and counts)');
});

test('12. hooks: a sparse array of length 2^31 or more, and empty heads or positions, are Errors', () => {
  const ids = [1, 5, 9, 5, 1, 95];
  const plain = tiny.runWithHooks(ids, []).logits;
  const zero = { hook: 'blocks.0.attn.hook_z', ablate: 'zero' };
  for (const length of [2 ** 31, 2 ** 32 - 1, 3]) {
    const sparse = [zero];
    sparse.length = length;  // the engine read this length as a 32-bit int: 2^31 and up applied no hook at all
    assert.throws(() => tiny.runWithHooks(ids, sparse),
      { message: `hooks[1] is missing: hooks must be an array without holes, got a sparse array of length ${length}` });
  }
  for (const key of ['heads', 'positions']) {
    for (const empty of [[], new Int32Array(0)]) {
      assert.throws(() => tiny.runWithHooks(ids, [zero, { ...zero, [key]: empty }]),
        { message: `hooks[1].${key} is empty, which selects nothing: leave ${key} out to change every ` +
          `${key === 'heads' ? 'head' : 'position'}, or list at least one` });
    }
  }
  // Left out, they mean every head and position: the same bits as listing them all.
  assert.deepEqual(tiny.runWithHooks(ids, [zero]).logits,
    tiny.runWithHooks(ids, [{ ...zero, heads: [0, 1], positions: [0, 1, 2, 3, 4, 5] }]).logits);
  assert.notDeepEqual(tiny.runWithHooks(ids, [zero]).logits, plain);
  assertUnharmed('12 (hooks)');
});

// What an intervention puts in is checked where it goes in: a NaN or an infinity in its values was blamed on the
// model's weights ("its weights overflow float32") once it reached the logits.
test('12b. an intervention\'s values that are NaN, infinite or beyond float32 are named, not blamed on the weights', () => {
  const ids = [1, 5, 9, 5, 1, 95];
  const C = TINY.n_embd, plain = tiny.runWithHooks(ids, []).logits;
  const values = (at, v) => { const a = new Array(ids.length * C).fill(0.5); a[at] = v; return a; };
  for (const [hook, width] of [['blocks.0.hook_resid_pre', C], ['blocks.1.attn.hook_z', C], ['blocks.1.mlp.hook_post', 4 * C]]) {
    for (const [v, shown] of [[NaN, 'nan'], [Infinity, 'inf'], [-Infinity, '-inf'], [1e39, '9.9999999999999994e\\+38'],
      [-3.5e38, '-3.5e\\+38']]) {
      const at = ids.length * width - 1;
      const a = new Array(ids.length * width).fill(0.5);
      a[at] = v;
      for (const given of [a, Float64Array.from(a)]) {
        assert.throws(() => tiny.runWithHooks(ids, [{ hook: 'blocks.0.attn.hook_z', ablate: 'zero' }, { hook, values: given }]),
          { message: new RegExp(`^hooks\\[1\\]\\.values\\[${at}\\] is ${shown}: the values put in must be finite float32 ` +
            'numbers \\(at most 3\\.4e38 in magnitude\\)$') }, `${hook} ${v}`);
      }
    }
  }
  // Finite values within float32 still go in, and the model is as it was; values that make the pass overflow share
  // the blame with the weights, where the message named the weights alone.
  assert.equal(tiny.runWithHooks(ids, [{ hook: 'blocks.0.hook_resid_pre', values: values(3, 3e38 / 1e30) }]).logits.length,
    plain.length);
  assert.throws(() => tiny.runWithHooks(ids, [{ hook: 'blocks.1.hook_mlp_out', values: new Array(ids.length * C).fill(3e38) }]),
    /non-finite logit \((NaN|Inf)\) at position 5 .*: its weights or the values put into the pass overflow float32 on this input$/);
  assertUnharmed('12b (intervention values)');
});

test("13. re-entrancy: inside generate's onToken, calls that run or change the model are refused", async () => {
  const prompt = [...e.encode('To be, or not to be, that')];
  const options = { ids: prompt, maxTokens: 8, temperature: 0.9, topK: 40, seed: 7 };
  const undisturbed = await shipped.generate(options);
  const calls = {
    forward: (m) => m.forward([1, 2, 3]),
    runWithCache: (m) => m.runWithCache([1, 2, 3], { names: ['blocks.0.hook_resid_pre'] }),
    runWithHooks: (m) => m.runWithHooks([1, 2, 3], [{ hook: 'blocks.0.attn.hook_z', ablate: 'zero' }]),
    patchingSweep: (m) => m.patchingSweep({ clean: [1, 2, 3], corrupted: [1, 4, 3], answer: 1, wrong: 2 }),
    ablationSweep: (m) => m.ablationSweep({ input: [1, 2, 3], answer: 1, wrong: 2 }),
    logitLens: (m) => m.logitLens([1, 2, 3]),
    directLogitAttribution: (m) => m.directLogitAttribution([1, 2, 3], { token: 1 }),
    append: (m) => m.append(5),
    reset: (m) => m.reset(),
    headScores: (m) => m.headScores(),
    perplexity: (m) => m.perplexity([1, 2, 3]),
    generate: (m) => m.generate({ ids: [1, 2], maxTokens: 2 }),
    free: (m) => m.free(),
  };
  let refused = 0;
  const lengths = [];
  const disturbed = await shipped.generate({ ...options, onToken: async () => {
    for (const [name, call] of Object.entries(calls)) {
      await assert.rejects(async () => call(shipped),
        { message: `model.${name}: the model is generating; call it after generate() returns (or return false from ` +
          'onToken to stop the generation)' });
      refused++;
    }
    lengths.push(shipped.length);  // reading the model is fine
  } });
  assert.deepEqual(disturbed, undisturbed, 'the refused calls changed the generated text');
  assert.equal(disturbed.ids.length, 8);
  assert.deepEqual(lengths, Array.from({ length: 8 }, (_, i) => prompt.length + i + 1));
  assert.equal(refused, 8 * Object.keys(calls).length);
  // Once generate() has returned (or thrown), the model takes calls again.
  assert.equal(shipped.forward([1, 2, 3], { attention: false }).logits.length, 50257);
  await assert.rejects(shipped.generate({ ids: prompt, maxTokens: 2, onToken: () => { throw new Error('stop'); } }), /stop/);
  assert.equal(shipped.forward([1, 2, 3], { attention: false }).logits.length, 50257);
  console.log(`13: ${refused} calls from inside onToken refused (${Object.keys(calls).length} methods x 8 tokens)`);
  assertUnharmed('13 (re-entrancy)');
});

// The methods that return a promise refuse through it: a busy or freed model, or a bad argument, is a rejection
// (as generate()'s always were), never an exception thrown before the promise exists, which a caller's .catch()
// would miss.
test('13b. every async method of a model rejects, never throws synchronously: busy, freed or given bad arguments', async () => {
  const m = e.loadModel(tinyBytes);
  const asyncMethods = Object.getOwnPropertyNames(Object.getPrototypeOf(m))
    .filter((name) => m[name]?.constructor?.name === 'AsyncFunction').sort();
  assert.deepEqual(asyncMethods, ['ablationSweepInSteps', 'generate', 'patchingSweepInSteps']);
  const calls = {
    generate: (a) => m.generate({ ids: [1, 2], maxTokens: 1, ...a }),
    patchingSweepInSteps: (a) => m.patchingSweepInSteps({ clean: [1, 2, 3], corrupted: [1, 4, 3], answer: 1, wrong: 2, ...a }),
    ablationSweepInSteps: (a) => m.ablationSweepInSteps({ input: [1, 2, 3], answer: 1, wrong: 2, ...a }),
  };
  const settle = (call) => {
    let promise;
    assert.doesNotThrow(() => { promise = call(); });
    assert.ok(promise instanceof Promise);
    return promise;
  };
  let rejected = 0;
  await m.generate({ ids: [1, 2], maxTokens: 2, onToken: async () => {
    for (const [name, call] of Object.entries(calls)) {
      await assert.rejects(settle(() => call({})), { message: new RegExp(`^model\\.${name}: the model is generating`) });
      rejected++;
    }
  } });
  await m.ablationSweepInSteps({ input: [1, 2, 3], answer: 1, wrong: 2 }, async () => {
    for (const [name, call] of Object.entries(calls)) {
      await assert.rejects(settle(() => call({})), { message: new RegExp(`^model\\.${name}: the model is running ` +
        'ablationSweepInSteps\\(\\)') });
      rejected++;
    }
    return false;
  });
  const bad = { answer: 'two tokens', ids: null, maxTokens: 'many' };
  for (const call of Object.values(calls)) await assert.rejects(settle(() => call(bad))), rejected++;
  m.free();
  for (const call of Object.values(calls)) {
    await assert.rejects(settle(() => call({})), { message: 'this model has been freed' });
    rejected++;
  }
  console.log(`13b: ${rejected} refusals of ${asyncMethods.length} async methods, each a rejection`);
  assertUnharmed('13b (async refusals)');
});

test('14. convertCheckpoint: chunks that are not bytes are refused, not written as zero bytes', async () => {
  const st = checkpoint(TINY), totalBytes = st.length;
  const cases = [
    [[5], /chunk 0 of model\.safetensors is the number 5: chunks must be Uint8Array or ArrayBuffer/],
    [[st.subarray(0, 8), 'abc'], /chunk 1 of model\.safetensors is the string "abc"/],
    [[null], /chunk 0 of model\.safetensors is null/],
    [[{ length: 4 }], /chunk 0 of model\.safetensors is a value of type object/],
    ['abc', /chunks is the string "abc": give model\.safetensors as/],
    [7, /chunks is the number 7/],
    [(async function* () { yield st.subarray(0, 100); yield 42; })(), /chunk 1 of model\.safetensors is the number 42/],
    [new ReadableStream({ start(c) { c.enqueue(true); c.close(); } }), /chunk 0 of model\.safetensors is a boolean \(true\)/],
  ];
  for (const [chunks, pattern] of cases) await assert.rejects(convert(TINY, chunks, { totalBytes }), pattern);
  // Any other view of the bytes is read as bytes.
  const asView = await convert(TINY, [new DataView(st.buffer, st.byteOffset, st.byteLength)]);
  assert.deepEqual(asView, tinyBytes);
  assertUnharmed('14 (chunks)');
});

test('15. refused calls free what they converted: each refusal 1,000 times leaves wasm memory where it was', () => {
  // Each input is large (800 KB as doubles) so that a leak would show: 1,000 refusals would leak 800 MB.
  const big = new BigInt64Array(100_000);
  const ids = [...e.encode(TEXT)];
  const z = { hook: 'blocks.0.attn.hook_z', ablate: 'zero' };
  const throwing = { get hook() { throw new Error('a getter that throws'); } };
  const proxy = new Proxy({ hook: 'blocks.0.attn.hook_z' }, { get() { throw new Error('a Proxy that throws'); } });
  const empty = new Proxy({}, { get() { throw new Error('never read'); } });
  const longIds = Array.from({ length: 100_000 }, (_, i) => i % 50000);
  const refusals = [
    ['ids as a BigInt64Array', () => shipped.handle.forward(big, false, false), /ids is a BigInt64Array: give numbers/],
    ['hook values as a BigInt64Array', () => e.core.runWithHooks(shipped.handle, ids,
      [z, { hook: 'blocks.0.hook_resid_pre', values: big }], false), /hooks\[1\]\.values is a BigInt64Array/],
    ['decode of a BigInt64Array', () => e.decode(big), /ids is a BigInt64Array/],
    ['tokenSpans of a BigInt64Array', () => e.tokenizer.tokenSpans(big), /ids is a BigInt64Array/],
    ['a throwing getter in hooks', () => e.core.runWithHooks(shipped.handle, longIds.slice(0, 10), [z, throwing], false),
      /hooks could not be read: a getter that throws/],
    ['a Proxy in hooks', () => e.core.runWithHooks(shipped.handle, ids, [z, proxy], false),
      /hooks could not be read: a Proxy that throws/],
    ['a Proxy with no keys in hooks', () => e.core.runWithHooks(shipped.handle, ids, [z, empty], false),
      /hooks\[1\]\.hook must be a hook name, got undefined/],
    ['a Proxy as ids', () => shipped.handle.forward(new Proxy(longIds, { get(t, k) { if (k === '99999') throw new Error('late'); return t[k]; } }), false, false),
      /ids could not be read: late/],
  ];
  for (const [what, call, pattern] of refusals) {
    assert.throws(call, pattern, what);  // warm: scratch buffers reach their size
    const before = e.core.HEAP8.buffer.byteLength;
    for (let i = 0; i < 1000; i++) assert.throws(call, pattern);
    const grew = e.core.HEAP8.buffer.byteLength - before;
    console.log(`${what}: 1,000 refusals, wasm memory grew ${(grew / 2 ** 20).toFixed(1)} MB`);
    assert.ok(grew < 16 << 20, `${what}: wasm memory grew by ${grew} bytes over 1,000 refused calls`);
  }
  assertUnharmed('15 (refusals)');
});

test("16. the article's blocks take sizes and seeds as numbers, strictly", () => {
  const bad = [null, false, [], true, '5', [7], { valueOf() { return 7; } }];
  const calls = {
    'singleHeadAttention dModel': (v) => e.singleHeadAttention(v, 16),
    'singleHeadAttention dHead': (v) => e.singleHeadAttention(64, v),
    'singleHeadAttention seed': (v) => e.singleHeadAttention(64, 16, { seed: v }),
    'multiHeadAttention nHeads': (v) => e.multiHeadAttention(64, v),
    'multiHeadAttention seed': (v) => e.multiHeadAttention(64, 4, { seed: v }),
    'positionalEncoding dModel': (v) => e.positionalEncoding(v),
    'positionalEncoding maxSeqLen': (v) => e.positionalEncoding(64, v),
    'rotaryEmbedding dHead': (v) => e.rotaryEmbedding(v),
    'rotaryEmbedding maxSeqLen': (v) => e.rotaryEmbedding(64, { maxSeqLen: v }),
    'rotaryEmbedding theta': (v) => e.rotaryEmbedding(64, { theta: v }),
    'rotaryEmbedding rotaryDim': (v) => e.rotaryEmbedding(64, { rotaryDim: v }),
    'causalMask n': (v) => e.causalMask(v),
    'randomNormal seed': (v) => e.randomNormal([2, 3], { seed: v }),
    'attentionCost repeats': (v) => e.attentionCost({ lengths: [8, 16, 32], dModel: 16, nHeads: 2, repeats: v }),
  };
  let refused = 0;
  for (const [what, call] of Object.entries(calls)) {
    for (const v of bad) {
      assert.throws(() => call(v), /must be a number, got/, `${what} = ${JSON.stringify(v)}`);
      refused++;
    }
  }
  for (const seed of [2 ** 32 + 1, -1, 1.5]) {
    assert.throws(() => e.randomNormal([2], { seed }), /seed must be an integer in \[0, 4294967295\]/);
    refused++;
  }
  assert.deepEqual(e.randomNormal([4], { seed: 2 ** 32 - 1 }).data.length, 4);
  // Rotary positions: numbers out of range are refused in words, the table is sized before it is allocated.
  for (const [options, pattern] of [[{ theta: 1 }, /rope theta 1(\.0+)? must be above 1/], [{ theta: NaN }, /theta must be a finite number/],
    [{ rotaryDim: 3 }, /rotary_dim 3 must be even/], [{ maxSeqLen: 2 ** 31 - 1 }, /rotary table|memory/]]) {
    assert.throws(() => e.rotaryEmbedding(64, options), pattern, JSON.stringify(options));
    refused++;
  }
  const rope = e.rotaryEmbedding(8, { maxSeqLen: 4 });
  assert.throws(() => rope.forward(new Float32Array(16), [2, 8], [0, 4]), /position 4 is outside \[0, max_seq_len 4\)/);
  assert.throws(() => rope.forward(new Float32Array(16), [2, 8], [0, 1.5]), /positions\[1\] \(1.5\) is not a 32-bit integer/);
  rope.free();
  refused += 2;
  console.log(`16: ${refused} refusals`);
  assertUnharmed('16 (blocks)');
});

test('17. a conversion holds what arrived: a stalled download after a GPT-2 medium header holds what arrived and one tensor, not 400 MB', () => {
  const config = { n_layer: 24, n_head: 16, n_embd: 1024, n_positions: 1024, vocab_size: 50257 };
  const header = checkpoint(config, { headerOnly: true });
  const weights = 4 * ((50257 + 1024) * 1024 + 24 * (12 * 1024 * 1024 + 13 * 1024) + 2 * 1024);
  const conv = e.core.ModelConverter.create(JSON.stringify(config), 'q8', header.length + weights);
  try {
    const before = e.core.HEAP8.buffer.byteLength;
    conv.feed(header);
    const arrived = new Uint8Array(1 << 20);
    for (let i = 0; i < 8; i++) conv.feed(arrived);
    const grew = e.core.HEAP8.buffer.byteLength - before;
    console.log(`8 MB of ${(weights / 1e6).toFixed(0)} MB arrived: the converter holds ` +
      `${(conv.allocatedBytes() / 2 ** 20).toFixed(1)} MB of a ${(conv.outputBytes() / 2 ** 20).toFixed(0)} MB file; ` +
      `wasm memory grew ${(grew / 2 ** 20).toFixed(1)} MB`);
    assert.ok(conv.outputBytes() > 380 * 2 ** 20);
    // What arrived, and the page of the tensor being written: a tensor's page is allocated whole, since a model runs
    // on it where it lies. This file sends wte first, 58 MB in q8.
    const tensorBeingWritten = 58 << 20;
    assert.ok(conv.allocatedBytes() > 0 && conv.allocatedBytes() <= (8 << 20) + tensorBeingWritten,
      String(conv.allocatedBytes()));
    assert.ok(grew < (32 << 20) + tensorBeingWritten, `wasm memory grew by ${grew} bytes`);
    assert.throws(() => conv.finish(), /truncated checkpoint: got \d+ of \d+ bytes/);
  } finally {
    conv.delete();
  }
  assertUnharmed('17 (a stalled conversion)');
});

test('the CLI: strict numbers, clear file errors, never "nan" in its JSON', async () => {
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const cli = (...args) => {
    const r = spawnSync(`${repoRoot}/build/native/arcscope`, args, { encoding: 'utf8' });
    return { status: r.status, out: r.stdout, err: r.stderr.trim() };
  };
  const expectError = (args, pattern) => {
    const r = cli(...args);
    assert.equal(r.status, 1, `${args.join(' ')} should fail`);
    assert.match(r.err, pattern);
  };
  expectError(['attention-cost', '--d-model', '4294967297'], /^error: --d-model expects an integer in \[1, 65536\], got '4294967297'$/);
  expectError(['attention-cost', '--lengths', '+2'], /--lengths expects an integer/);
  expectError(['attention-cost', '--repeats', ' 3'], /--repeats expects an integer/);
  expectError(['run', '--model', `${repoRoot}/models/shakespeare-4l.q8.arcs`, '--ids', '4294967760'], /--ids .* got '4294967760'/);
  expectError(['generate', '--model', `${repoRoot}/models/shakespeare-4l.q8.arcs`, '--text', 'a', '--temperature', 'nan'],
    /--temperature expects a finite number, got 'nan'/);
  expectError(['run', '--model', `${repoRoot}/models`, '--text', 'hi'], /models is a directory, not a file/);
  const dir = mkdtempSync(`${tmpdir()}/arcscope-hostile-`);
  try {
    // The 73-layer config with its header alone: refused at once (no 4 GB allocation first).
    const config = { n_layer: 73, n_head: 16, n_embd: 2048, n_positions: 1, vocab_size: 66712 };
    writeFileSync(`${dir}/config.json`, JSON.stringify(config));
    writeFileSync(`${dir}/model.safetensors`, checkpoint(config, { headerOnly: true }));
    expectError(['convert', '--in', dir, '--out', `${dir}/out.arcs`], /truncated checkpoint: .* header describes 15\.3 GB/);
    // Overflowing activations: an error, and no JSON with nan in it.
    const huge = tinyBytes.slice();
    const lnf = tensorAt(huge, 'ln_f.weight');
    for (let i = 0; i < lnf.rows; i++) new DataView(huge.buffer).setFloat32(lnf.offset + 4 * i, 3e38, true);
    writeFileSync(`${dir}/huge.arcs`, reseal(huge));
    const r = cli('run', '--model', `${dir}/huge.arcs`, '--ids', '1,2,3', '--tokenizer', `${repoRoot}/build/native/gpt2-tokenizer.bin`);
    assert.equal(r.status, 1);
    assert.match(r.err, /non-finite logit/);
    assert.doesNotMatch(r.out, /nan/i);

    // A long-context model: attention for 32,769 tokens (4.3 GB) is refused before anything is allocated, and
    // --no-attention runs; an allocation the system refuses is "out of memory", not a bare std::bad_alloc.
    const long = { n_layer: 1, n_head: 1, n_embd: 8, n_positions: 65536, vocab_size: 16 };
    writeFileSync(`${dir}/config.json`, JSON.stringify(long));
    writeFileSync(`${dir}/model.safetensors`, checkpoint(long));
    assert.equal(cli('convert', '--in', dir, '--out', `${dir}/long.arcs`).status, 0);
    const ids = (n) => Array.from({ length: n }, (_, i) => i % 16).join(',');
    const tok = ['--tokenizer', `${repoRoot}/build/native/gpt2-tokenizer.bin`];
    expectError(['run', '--model', `${dir}/long.arcs`, '--ids', ids(32769), ...tok],
      /^error: attention capture \[1, 1, 32769, 32769\] of 4-byte values needs 4\.3 GB; `arcscope run` writes at most 4\.3 GB of attention: pass --no-attention, or fewer tokens$/);
    const plain = cli('run', '--model', `${dir}/long.arcs`, '--ids', ids(32769), '--no-attention', '--no-logits', ...tok);
    assert.equal(plain.status, 0, plain.err);
    const out = JSON.parse(plain.out);
    assert.equal(out.ids.length, 32769);
    assert.ok(!('attention' in out) && !('logits_last' in out));
    const limited = spawnSync('bash', ['-c', 'ulimit -v 600000; exec "$@"', 'bash', `${repoRoot}/build/native/arcscope`,
      'run', '--model', `${dir}/long.arcs`, '--ids', ids(20000), ...tok], { encoding: 'utf8' });
    assert.equal(limited.status, 1);
    assert.match(limited.stderr.trim(), /^error: out of memory: `arcscope run` needed more memory than the system gave it/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
