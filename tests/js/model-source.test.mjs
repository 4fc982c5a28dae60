// Model sources in Node: model names that never throw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nameOf } from '../../web/lib/model-source.js';

test('a model name never throws: a "%" that is not an escape stays as written', () => {
  assert.equal(nameOf('https://example.com/models/100%ZZ.arcs'), '100%ZZ.arcs');
  assert.equal(nameOf('https://example.com/models/a%20b.arcs?v=1#x'), 'a b.arcs');
  assert.equal(nameOf('https://example.com/%E0%A4%A.arcs'), '%E0%A4%A.arcs');
  assert.equal(nameOf('local:my.arcs:123'), 'local:my.arcs:123');
  assert.equal(nameOf('https://example.com/'), 'https://example.com/');
});
