// The page's pure logic, in Node: arc filtering, the sink toggle, aggregation, the views' attention sources, growing
// attention during generation, thumbnails' pooling, the URL-hash state, token labels, the printouts, and the cost
// chart's quadratic fit. (Drawing is tested in Chromium.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { filterArcs, hideSink, aggregate, growMatrix, topAttended, topKFor, viewHeads } from '../../web/lib/shared/attention-math.js';
import { EngineAttention, TensorAttention, GrowingAttention, selectView, withoutSink } from '../../web/lib/views/attention-source.js';
import { parseHash, formatHash, defaults } from '../../web/tutorial/page/state.js';
import { displayPiece, plainLabel, spanLabels } from '../../web/lib/shared/token-text.js';
import { shapeText, tensorText } from '../../web/tutorial/page/printout.js';
import { PromiseCache } from '../../web/lib/shared/promise-cache.js';
import { xmlSafe } from '../../web/tutorial/views/export.js';
import { checkpointName, nameFromUrl } from '../../web/tutorial/page/loader-ui.js';
import { GPT2_FAMILY } from '../../web/tutorial/page/gpt2-family.js';

// A seeded random causal attention tensor [L, H, T, T] whose rows sum to 1.
function randomAttention(L, H, T, seed = 1) {
  const a = new Float32Array(L * H * T * T);
  const rand = () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647; };
  for (let m = 0; m < L * H; m++) {
    for (let i = 0; i < T; i++) {
      let s = 0;
      for (let j = 0; j <= i; j++) s += (a[(m * T + i) * T + j] = rand() ** 3);
      for (let j = 0; j <= i; j++) a[(m * T + i) * T + j] /= s;
    }
  }
  return a;
}

test('filterArcs keeps exactly the top k per row at or above the threshold (checked against a full sort)', () => {
  const T = 40, a = randomAttention(1, 1, T, 7);
  for (const topK of [0, 1, 3, 7]) {
    for (const threshold of [0, 0.05]) {
      const f = filterArcs(a, T, { topK, threshold });
      let n = 0;
      for (let i = 0; i < T; i++) {
        const want = [...a.subarray(i * T, i * T + T)].map((w, j) => [w, j]).filter(([w]) => w > 0 && w >= threshold)
          .sort((x, y) => y[0] - x[0]).slice(0, topK || T).map(([, j]) => j).sort((x, y) => x - y);
        const got = [];
        for (let q = 0; q < f.n; q++) if (f.from[q] === i) got.push(f.to[q]);
        assert.deepEqual(got.sort((x, y) => x - y), want, `row ${i}, topK ${topK}, threshold ${threshold}`);
        n += want.length;
      }
      assert.equal(f.n, n);
    }
  }
});

test('hideSink zeroes the first column and renormalizes every other row to 1', () => {
  const T = 12, a = randomAttention(1, 1, T, 3);
  const h = hideSink(a, T);
  let worst = 0;
  for (let i = 1; i < T; i++) {
    assert.equal(h[i * T], 0);
    worst = Math.max(worst, Math.abs(h.subarray(i * T, i * T + T).reduce((x, y) => x + y, 0) - 1));
  }
  console.log(`largest row-sum error after hiding the sink: ${worst.toExponential(2)}`);
  assert.ok(worst < 1e-6);
  assert.deepEqual([...h.subarray(0, T)], new Array(T).fill(0));
});

test('mean and max over heads and layers, as every source computes them (attention-math.js viewMatrix)', async () => {
  const [L, H, T] = [2, 3, 5], a = randomAttention(L, H, T, 9);
  const at = (l, h, i, j) => a[((l * H + h) * T + i) * T + j];
  const source = new TensorAttention(a, [L, H, T, T]);
  const [mean] = await selectView(source, { layer: 1, head: 'mean' });
  const [max] = await selectView(source, { layer: 'max', head: 2 });
  assert.equal(mean.head, -1);
  let worst = 0;
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      worst = Math.max(worst, Math.abs(mean.matrix[i * T + j] - (at(1, 0, i, j) + at(1, 1, i, j) + at(1, 2, i, j)) / 3));
      assert.equal(max.matrix[i * T + j], Math.max(at(0, 2, i, j), at(1, 2, i, j)));
    }
  }
  assert.ok(worst < 1e-7, `mean differs by ${worst}`);
  const all = await selectView(source, { layer: 0, head: 'all' });
  assert.deepEqual(all.map((p) => p.head), [0, 1, 2]);
  assert.deepEqual([...all[1].matrix], [...a.subarray((0 * H + 1) * T * T, (0 * H + 2) * T * T)]);
  // Layers first, then heads: the mean over layers of the max over heads is not what the page draws.
  const [both] = await selectView(source, { layer: 'mean', head: 'max' });
  const want = aggregate([0, 1, 2].map((h) => aggregate([0, 1].map((l) => a.subarray((l * H + h) * T * T, (l * H + h + 1) * T * T)), 'mean')), 'max');
  assert.deepEqual([...both.matrix], [...want]);
  assert.deepEqual(viewHeads([L, H], 'mean', 2), [[0, 2], [1, 2]]);
  assert.deepEqual([...aggregate([new Float32Array([1, 4]), new Float32Array([3, 2])], 'max')], [3, 4]);
  assert.deepEqual([...aggregate((function* () { yield new Float32Array([1, 4]); yield new Float32Array([3, 2]); })(), 'mean')], [2, 3]);
  // Hiding the sink is applied to each head drawn.
  const [hidden] = withoutSink(await selectView(source, { layer: 1, head: 0 }), T);
  assert.deepEqual([...hidden.matrix], [...hideSink(a.subarray(1 * H * T * T, (1 * H + 1) * T * T), T)]);
});

test('the worker\'s matrices are asked for once; a mean over heads the page holds is taken without asking', async () => {
  const [L, H, T] = [2, 3, 6], a = randomAttention(L, H, T, 4), shape = [L, H, T, T];
  const worker = new TensorAttention(a, shape), calls = [];
  const engine = { call: async (op, { layer, head }) => { calls.push(`${op} ${layer}/${head}`); return { data: await worker.matrix(layer, head) }; } };
  const source = new EngineAttention(engine, 'model', [1, 2, 3, 4, 5, 6], shape);
  const all = await selectView(source, { layer: 1, head: 'all' });
  assert.equal(calls.length, H);
  await selectView(source, { layer: 1, head: 2 }); // held
  const [mean] = await selectView(source, { layer: 1, head: 'mean' });
  assert.equal(calls.length, H);
  assert.deepEqual([...mean.matrix], [...await worker.matrix(1, 'mean')]);
  const [max] = await selectView(source, { layer: 'max', head: 0 }); // layer 0 was never sent: the worker's
  assert.deepEqual(calls.slice(H), ['attention max/0']);
  assert.deepEqual([...max.matrix], [...await worker.matrix('max', 0)]);
  assert.equal(all[2].matrix, (await selectView(source, { layer: 1, head: 2 }))[0].matrix);
});

test('growing attention appends one query row a token (the KV cache step) and keeps the old rows', async () => {
  const [L, H, T] = [2, 2, 4], a = randomAttention(L, H, T, 5);
  const m = a.subarray(0, T * T), row = Float32Array.from({ length: T + 1 }, (_, k) => k + 1);
  const g = growMatrix(m, T, row), N = T + 1;
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) assert.equal(g[i * N + j], m[i * T + j]);
  for (let i = 0; i < T; i++) assert.equal(g[i * N + T], 0);
  assert.deepEqual([...g.subarray(T * N)], [...row]);
  // A generation's rows, [L, H, T + 1] per token, grow every head of a source the same way.
  const grown = new GrowingAttention(new TensorAttention(a, [L, H, T, T]));
  const rows = [1, 2].map((n) => Float32Array.from({ length: L * H * (T + n) }, (_, k) => k / 100));
  for (const r of rows) grown.append(r);
  assert.deepEqual(grown.shape, [L, H, T + 2, T + 2]);
  const head = await grown.matrix(1, 1), M = T + 2, at = (l, h) => (l * H + h) * T * T;
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) assert.equal(head[i * M + j], a[at(1, 1) + i * T + j]);
  assert.deepEqual([...head.subarray(T * M, T * M + T + 1)], [...rows[0].subarray(3 * (T + 1), 4 * (T + 1))]);
  assert.deepEqual([...head.subarray((T + 1) * M)], [...rows[1].subarray(3 * (T + 2), 4 * (T + 2))]);
  const [mean] = await selectView(grown, { layer: 1, head: 'mean' });
  assert.equal(mean.matrix.length, M * M);
  assert.deepEqual(topAttended(Float32Array.from([1, 0, 0.2, 0.8]), 2, 1, 5).map((x) => x.index), [1, 0]);
});

test('topk "auto" draws every arc of short texts only', () => {
  assert.equal(topKFor('auto', 64), 0);
  assert.equal(topKFor('auto', 65), 3);
  assert.equal(topKFor(5, 1000), 5);
  assert.equal(topKFor(0, 1000), 0);
});

test('the view state survives the URL hash, including odd text, and bad values keep their defaults and are reported', () => {
  const state = { ...defaults(), text: 'a&b=c #d <img src=x> 🦜\n', layer: 'mean', head: 3, topk: 5, threshold: 0.1,
    sink: false, mode: 'matrix', token: 4, model: 'https://example.org/model.safetensors?x=1' };
  assert.deepEqual(parseHash(formatHash(state)), { state, errors: [] });
  const { state: bad, errors } = parseHash('#layer=-1&head=zz&topk=abc&threshold=7&mode=pie&sink=no');
  assert.deepEqual(errors, [
    'layer "-1" is not valid: use an integer from 0 up, "mean" or "max"',
    'head "zz" is not valid: use an integer from 0 up, "all", "mean" or "max"',
    'topk "abc" is not valid: use an integer from 0 up (0 draws every arc) or "auto"',
    'threshold "7" is not valid: use a number from 0 to 1',
    'mode "pie" is not valid: use "arcs" or "matrix"',
    'sink "no" is not valid: use "0" or "1"',
  ]);
  assert.equal(bad.sink, 'auto');
  // sink: absent is the default, decided by the rows drawn; 1 and 0 are the reader's choice, kept by a link.
  assert.equal(formatHash(defaults()).includes('sink'), false);
  for (const sink of [true, false]) assert.equal(parseHash(formatHash({ ...defaults(), sink })).state.sink, sink);
  assert.equal(bad.layer, null);
  assert.equal(bad.head, null);
  assert.equal(bad.topk, 'auto');
  assert.equal(parseHash('#topk=auto').state.topk, 'auto');
  assert.equal(parseHash('#topk=0').state.topk, 0);
  assert.equal(bad.threshold, defaults().threshold);
  assert.equal(bad.mode, 'arcs');
});

test('token labels: visible leading spaces, newline marks, multi-token characters merged', () => {
  assert.deepEqual(displayPiece(' it'), { lead: '\u00B7', text: 'it' });
  assert.deepEqual(displayPiece('\n\n'), { lead: '', text: '\u21B5\u21B5' });
  assert.deepEqual(displayPiece('   '), { lead: '', text: '\u2423\u2423\u2423' });
  const labels = spanLabels([{ first: 0, count: 1, text: 'A' }, { first: 1, count: 3, text: ' 🦜' }], 4);
  assert.equal(labels.length, 4);
  assert.deepEqual([labels[1].lead, labels[1].text, labels[1].continuation], ['\u00B7', '🦜', false]);
  assert.ok(labels[2].continuation && labels[3].continuation);
  // The plain labels (result.tokens, tables, exports) are what the drawing shows: the ellipsis, not a word of their own.
  assert.deepEqual(labels.map(plainLabel), ['A', '·🦜', '…', '…']);
  assert.deepEqual(labels.map(plainLabel), labels.map((l) => l.lead + l.text));
});

test('printouts write shapes and tensors as the article\'s print() calls show them (PyTorch\'s own output)', () => {
  assert.equal(shapeText([2, 8, 64]), '(2, 8, 64)');
  // torch.tril(torch.ones(3, 3)), torch.tensor([[0., 1.], [0.8415, -0.5403]]) and torch.arange(1., 9.).view(2, 2, 2)
  assert.equal(tensorText([1, 0, 0, 1, 1, 0, 1, 1, 1], [3, 3]), 'tensor([[1., 0., 0.],\n        [1., 1., 0.],\n        [1., 1., 1.]])');
  assert.equal(tensorText([0, 1, 0.8415, -0.5403], [2, 2]), 'tensor([[ 0.0000,  1.0000],\n        [ 0.8415, -0.5403]])');
  assert.equal(tensorText([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2]),
    'tensor([[[1., 2.],\n         [3., 4.]],\n\n        [[5., 6.],\n         [7., 8.]]])');
});

test('PromiseCache: within its bytes and its number, oldest out first, failures forgotten', async () => {
  const sized = (n) => new Float32Array(n);
  const cache = new PromiseCache({ budget: 40, maxEntries: 3, sizeOf: (v) => v.byteLength });
  let starts = 0;
  const get = (key, value) => cache.get(key, () => { starts++; return Promise.resolve(value); });
  await get('a', sized(4)); await get('b', sized(4)); // 16 + 16 bytes
  assert.equal(await get('a', null).then((v) => v.length), 4); // a hit: not started again, a now the newest
  assert.equal(starts, 2);
  await get('c', sized(4)); // 48 bytes: the oldest (b) goes
  assert.deepEqual([...cache.entries.keys()], ['a', 'c']);
  assert.equal(cache.bytes, 32);
  // Past the number: values holding no bytes (a long text's analysis) go too, oldest first.
  for (const key of ['e1', 'e2', 'e3', 'e4', 'e5']) await get(key, sized(0));
  assert.deepEqual([...cache.entries.keys()], ['e3', 'e4', 'e5']);
  // A failure is forgotten, so the next caller asks again.
  await assert.rejects(cache.get('bad', () => Promise.reject(new Error('no'))));
  assert.equal(cache.value('bad'), undefined);
  assert.ok(!cache.entries.has('bad'));
  // keepNewest: the one just arrived stays even alone over the budget; without it, it goes too.
  const keep = new PromiseCache({ budget: 8, sizeOf: (v) => v.byteLength, keepNewest: true });
  await keep.get('big', () => Promise.resolve(sized(4)));
  assert.ok(keep.value('big'));
  const drop = new PromiseCache({ budget: 8, sizeOf: (v) => v.byteLength });
  await drop.get('big', () => Promise.resolve(sized(4)));
  assert.equal(drop.size, 0);
});

test('xmlSafe: what XML 1.0 forbids becomes visible, the rest stays', () => {
  assert.equal(xmlSafe('a\u0000b\u0007c\u001Fd'), 'a\u2400b\u2407c\u241Fd');
  assert.equal(xmlSafe('tab\tnl\ncr\r'), 'tab\tnl\ncr\r');
  assert.equal(xmlSafe('\uFFFE\uFFFF'), '\uFFFD\uFFFD');
  assert.equal(xmlSafe('lone \uD800 and \uDC00'), 'lone \uFFFD and \uFFFD');
  assert.equal(xmlSafe('pair \uD83D\uDE00 ok, \u00E9, \u2028'), 'pair \uD83D\uDE00 ok, \u00E9, \u2028');
  // Every one of the 33 forbidden code units below U+0020 and at U+FFFE/U+FFFF, each alone.
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    const ch = String.fromCharCode(c), bad = (c < 0x20 && c !== 9 && c !== 10 && c !== 13) || c === 0xFFFE || c === 0xFFFF;
    assert.equal(xmlSafe(ch) !== ch, bad, `U+${c.toString(16)}`);
  }
});

test("parseAttention: BigInts and objects that refer to themselves get the element's wording, not JSON.stringify's", async () => {
  const { parseAttention } = await import('../../web/lib/views/attention-data.js');
  const message = (data) => { try { parseAttention(data, 'data'); } catch (e) { return e.message; } return null; };
  assert.equal(message({ tokens: [1n], attention: [] }), 'data: tokens[0] is the BigInt 1n, not a string');
  const loop = {};
  loop.self = loop;
  assert.match(message({ tokens: ['a'], attention: loop }),
    /^data: "attention" is a value JSON cannot hold \(it refers to itself, or holds a BigInt\)/);
  assert.match(message({ tokens: ['a'], attention: [[[[1]]]], shape: [1n, 1, 1, 1] }),
    /^data: "shape" is a value JSON cannot hold \(it refers to itself, or holds a BigInt\) but "attention" is \[1,1,1,1\]$/);
  assert.match(message({ tokens: ['a'], attention: [[[[2n]]]] }), /the BigInt 2n: weights must be finite numbers/);
});

test("a checkpoint converted after picking a GPT-2 in the loader is named after it, not after its URL's path", () => {
  const gpt2 = GPT2_FAMILY.find((m) => m.id === 'gpt2'), medium = GPT2_FAMILY.find((m) => m.id === 'gpt2-medium');
  const hf = 'https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors';
  const mirror = 'https://mirror.example/ckpt/model.safetensors';
  // GPT-2 small's config.json, as Hugging Face has it
  const config = { n_layer: 12, n_head: 12, n_embd: 768, n_positions: 1024, n_ctx: 1024, vocab_size: 50257 };
  assert.equal(nameFromUrl(hf), 'gpt2');
  assert.equal(checkpointName(hf, gpt2, null), 'gpt2');
  assert.equal(checkpointName(mirror, gpt2, config), 'gpt2');
  // not when the mirror's shape is another model's, its config could not be read, or nothing was picked
  assert.equal(checkpointName(mirror, medium, config), 'ckpt/model.safetensors');
  assert.equal(checkpointName(mirror, gpt2, { ...config, n_embd: 96 }), 'ckpt/model.safetensors');
  assert.equal(checkpointName(mirror, gpt2, null), 'ckpt/model.safetensors');
  assert.equal(checkpointName(mirror, null, config), 'ckpt/model.safetensors');
  assert.equal(nameFromUrl('https://huggingface.co/someone/tiny-gpt2/resolve/main/model.safetensors'), 'someone/tiny-gpt2');
});
