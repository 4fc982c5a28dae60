// binding-errors.test.mjs: every C++ exception that reaches JavaScript is an Error with its message, from every binding
// (a method outside guarded() once threw the exception's address, a bare number), and a refused call frees its C++
// exception (thrown from inside the handler, each refusal left about 170 bytes of wasm memory behind).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { engine, repoRoot } from './support.mjs';

test('bindings outside the model runs refuse with Errors, not numbers', async () => {
  const e = await engine();
  const m = e.core.Model.fromBytes(new Uint8Array(readFileSync(`${repoRoot}/models/shakespeare-4l.q8.arcs`)));
  try {
    for (const [what, call, message] of [
      ['filePage(99)', () => m.filePage(99), /^no such page of the model file$/],
      ['filePage(-1)', () => m.filePage(-1), /^no such page of the model file$/],
      ['filePage(0.5)', () => m.filePage(0.5), /^no such page of the model file$/],
    ]) {
      assert.throws(call, (err) => {
        assert.ok(err instanceof Error, `${what} threw ${typeof err} ${String(err)}, not an Error`);
        assert.match(err.message, message, what);
        return true;
      });
    }
    assert.ok(m.hookNames().includes('blocks.0.attn.hook_pattern'));
    assert.equal(m.config().dtype, 'q8');
  } finally {
    m.delete();
  }
});

test('the kept queries\' bindings refuse with Errors that name what was wrong', async () => {
  const e = await engine();
  const bytes = new Uint8Array(readFileSync(`${repoRoot}/models/shakespeare-4l.q8.arcs`));
  const m = e.core.Model.fromBytes(bytes), kept = m.keepQueries();
  try {
    const ids = [464, 3797, 286];
    for (const [what, call, message] of [
      ['keptAttention before a pass', () => m.keptAttention(kept, 0, 0), /^no queries and keys are kept: analyse a text first$/],
      ['runKeepingQueries past the vocabulary', () => m.runKeepingQueries([1e6], kept, 0), /token id/],
    ]) {
      assert.throws(call, (err) => err instanceof Error && message.test(err.message), what);
    }
    m.runKeepingQueries(ids, kept, 0);
    for (const [what, call, message] of [
      ['layer past the model', () => m.keptAttention(kept, 4, 0), /^layer must be an integer in \[0, 3\], got 4$/],
      ['head as a word it does not take', () => m.keptAttention(kept, 0, 'all'), /^head must be an integer from 0 to \d+, 'mean' or 'max'; got the string "all"$/],
      ['a thumbnail larger than the text', () => m.keptThumbnail(kept, 0, 0, 4), /^size must be/],
      ['reuse past the context', () => m.runKeepingQueries(ids, kept, 1e9), /^reuse must be/],
    ]) {
      assert.throws(call, (err) => err instanceof Error && message.test(err.message), what);
    }
    assert.equal(kept.length(), 3);
  } finally {
    kept.delete();
    m.delete();
  }
});

test('a refused call frees its C++ exception: 5,000 refusals leave wasm\'s allocator where it was', async () => {
  const e = await engine();
  const refuse = () => {
    try { e.core.ModelConverter.create('{"n_layer": "x"}', 'q8', 100); } catch (err) { return err.message; }
    return 'accepted';
  };
  // Where a 4 KB block would go: the lowest free place, which leaked exceptions push upwards.
  const nextBlock = () => { const p = e.core._malloc(4096); e.core._free(p); return p; };
  assert.equal(refuse(), 'config.json: n_layer must be an integer');
  const before = nextBlock();
  for (let i = 0; i < 5000; i++) refuse();
  const moved = nextBlock() - before;
  console.log(`after 5,000 refusals the next 4 KB block moved ${moved} bytes`);
  assert.equal(moved, 0, `${moved} bytes left behind by 5,000 refusals`);
});
