// kept-queries.test.mjs: the worker's kept queries and keys (web/lib/worker/kept-queries.js) on the shipped model. An
// edit resumed from a kept analysis is completed in that analysis's own arrays when they have room, and the result
// is every layer's hook_q and hook_k of a fresh pass over the edited text, bit for bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { engine, repoRoot } from './support.mjs';
import { closestKept, keepQueries, keptLayers, queryKeyHooks } from '../../web/lib/worker/kept-queries.js';

const KEY = 'kept-queries-test';

test('an edit is kept in the arrays of the analysis it resumed from, with a fresh pass\'s bits', async () => {
  const model = (await engine()).loadModel(new Uint8Array(readFileSync(`${repoRoot}models/shakespeare-4l.q8.arcs`)));
  const L = model.config.n_layer, names = queryKeyHooks(L);
  const fresh = (ids) => model.runWithCache(ids, { names, allLogits: false }).cache;
  // What the worker does for each text (runKeepingQueries): resume from the closest kept analysis, keep the result.
  const analyse = (ids) => {
    const earlier = closestKept(KEY, ids);
    const { cache, first } = model.runWithCache(ids, { names, allLogits: false, reuse: earlier?.shared ?? 0 });
    return { first, layers: keepQueries(KEY, ids, cache, L, { first, earlier }) };
  };
  const same = (layers, ids) => {
    const want = fresh(ids);
    layers.forEach(({ q, k }, l) => {
      assert.deepEqual(q, want[`blocks.${l}.attn.hook_q`].data, `layer ${l} q`);
      assert.deepEqual(k, want[`blocks.${l}.attn.hook_k`].data, `layer ${l} k`);
    });
  };

  const text = model.tokenize(' the quick brown fox jumps over the lazy dog.'.repeat(6)).ids;  // 60 tokens
  const a = analyse(text.slice(0, 50));
  assert.equal(a.first, 0);
  const buffer = a.layers[0].q.buffer;
  // Ten tokens typed at the end: run from 50, written into the same arrays, and the shorter text no longer kept.
  const b = analyse(text);
  assert.equal(b.first, 50);
  assert.equal(b.layers[0].q.buffer, buffer);
  assert.equal(keptLayers(KEY, text.slice(0, 50)), undefined);
  same(b.layers, text);
  // A token changed in the middle: run from there, in place again.
  const edited = text.map((id, i) => (i === 30 ? 13 : id));
  const c = analyse(edited);
  assert.equal(c.first, 30);
  assert.equal(c.layers[0].q.buffer, buffer);
  same(c.layers, edited);
  // Past the room the arrays have (128 rows): new arrays, the kept rows copied in.
  const long = model.tokenize(' the quick brown fox jumps over the lazy dog.'.repeat(14)).ids;
  const d = analyse(long);
  assert.equal(d.first, 30);  // the edited token differs from here on
  assert.notEqual(d.layers[0].q.buffer, buffer);
  same(d.layers, long);
  model.free();
});
