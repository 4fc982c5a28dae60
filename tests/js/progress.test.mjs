// throttledProgress, the one throttle of byte progress (downloads, loads, conversions): a report per `every` bytes of
// a stage, a new stage's first report, and the last byte's, once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { throttledProgress } from '../../web/lib/shared/progress.js';

test('a report per `every` bytes, a new stage at once, the last byte once', () => {
  const told = [];
  const report = throttledProgress((p) => told.push(`${p.stage} ${p.loaded}`), 100);
  for (let loaded = 0; loaded <= 250; loaded += 30) report({ stage: 'a', loaded, total: 250 });
  report({ stage: 'a', loaded: 250, total: 250 });  // the end told again: not repeated
  report({ stage: 'b', loaded: 0, total: 10 });
  report({ stage: 'b', loaded: 5, total: 10 });
  report({ stage: 'b', loaded: 10, total: 10 });
  assert.deepEqual(told, ['a 0', 'a 120', 'a 240', 'a 250', 'b 0', 'b 10']);
});

test('without a total, only the bytes count; nobody listening is fine', () => {
  const told = [];
  const report = throttledProgress((p) => told.push(p.loaded));
  for (let loaded = 0; loaded <= 3 << 20; loaded += 1 << 19) report({ stage: 's', loaded });
  assert.deepEqual(told, [0, 1 << 20, 2 << 20, 3 << 20]);
  assert.doesNotThrow(() => throttledProgress(undefined)({ stage: 's', loaded: 1 }));
});
