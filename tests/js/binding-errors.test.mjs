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
