// kept-queries.test.mjs: the worker's kept queries and keys (web/lib/worker/kept-queries.js), held in the engine
// (model.keepQueries), on the shipped model. An edit resumed from a kept analysis is written into that analysis's own
// holder, and every view of the result (a head, a mean or max over layers, heads or both, a thumbnail) is the bits
// the page's own functions give from a fresh pass's captured attention (attention-math.js's viewMatrix). A model's
// kept analyses are freed with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { repoRoot } from './support.mjs';
import { liveEngine } from '../../build/lib/worker/turns.js';
import { forgetModel, keptQueries, runKeepingQueries } from '../../build/lib/worker/kept-queries.js';
import { viewMatrix, headMatrix } from '../../build/lib/shared/attention-math.js';

const KEY = 'kept-queries-test';
const same = (a, b) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

test('an edit is kept in the holder of the analysis it resumed from, and its views are a fresh pass\'s bits', async () => {
  const model = (await liveEngine()).loadModel(new Uint8Array(readFileSync(`${repoRoot}models/shakespeare-4l.q8.arcs`)));
  const { n_layer: L, n_head: H } = model.config;
  // Every view of kept against viewMatrix over the attention a fresh pass over ids captures.
  const viewsAreFresh = (kept, ids) => {
    const T = ids.length, { attention } = model.forward(ids, { attention: true });
    const head = (l, h) => headMatrix(attention, [L, H, T, T], l, h);
    for (const layer of [L - 1, 'mean', 'max']) {
      for (const which of [1, 'mean', 'max']) {
        assert.ok(same(model.keptAttention(kept, layer, which), viewMatrix(head, [L, H], layer, which)),
          `layer ${layer}, head ${which}`);
      }
    }
    assert.ok(same(model.keptThumbnail(kept, 2, 3, 16), thumbnailOf(head(2, 3), T, 16)), 'a thumbnail');
  };

  const text = model.tokenize(' the quick brown fox jumps over the lazy dog.'.repeat(6)).ids;  // 60 tokens
  const a = runKeepingQueries(model, KEY, text.slice(0, 50));
  assert.equal(a.first, 0);
  assert.equal(a.kept.length, 50);
  // Rows for 128 positions, and the triangles of the sum and max over every head.
  const bytesFor = (rows) => (rows * L * 2 * model.config.n_embd + rows * (rows + 1)) * 4;
  assert.equal(a.kept.bytes, bytesFor(128));
  // Ten tokens typed at the end: run from 50, written into the same holder.
  const b = runKeepingQueries(model, KEY, text);
  assert.equal(b.first, 50);
  assert.equal(b.kept, a.kept);
  assert.equal(keptQueries(model, KEY, text), a.kept);
  viewsAreFresh(b.kept, text);
  // A token changed in the middle: run from there, in place again.
  const edited = text.map((id, i) => (i === 30 ? 13 : id));
  const c = runKeepingQueries(model, KEY, edited);
  assert.equal(c.first, 30);
  assert.equal(c.kept, a.kept);
  viewsAreFresh(c.kept, edited);
  // Past the room it has (128 rows): grown in place, the kept rows copied.
  const long = model.tokenize(' the quick brown fox jumps over the lazy dog.'.repeat(14)).ids;
  const d = runKeepingQueries(model, KEY, long);
  assert.equal(d.first, 30);  // the edited token differs from here on
  assert.equal(d.kept, a.kept);
  assert.equal(d.kept.bytes, bytesFor(256));
  viewsAreFresh(d.kept, long);
  // The analysis of another text is kept beside it; the model's are freed with it.
  const other = runKeepingQueries(model, KEY, model.tokenize('To be, or not to be').ids);
  assert.notEqual(other.kept, a.kept);
  forgetModel(KEY);
  assert.equal(a.kept.live, false);
  assert.equal(other.kept.live, false);
  assert.throws(() => model.keptAttention(a.kept, 0, 0), /these kept queries and keys have been freed/);
  assert.throws(() => model.keptAttention(other, 0, 0), /kept must be what model.keepQueries\(\) returned/);
  model.free();
});

// The page's max-pooling of a head's (T, T) to size x size, as Decoder::attention_thumbnail defines it.
function thumbnailOf(matrix, T, size) {
  const out = new Float32Array(size * size);
  for (let i = 0; i < T; i++) {
    for (let j = 0; j <= i; j++) {
      const cell = Math.floor(i * size / T) * size + Math.floor(j * size / T);
      out[cell] = Math.max(out[cell], matrix[i * T + j]);
    }
  }
  return out;
}
