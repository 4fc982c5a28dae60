// Section 7's part of the URL hash (web/tutorial/page/heads-state.js), in Node: what is written for each state, that
// reading it back gives the same state, and that bad values keep their defaults with a message (view-options.js's
// readers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRESETS, headsDefaults, parseHeadsHash, formatHeadsHash, presetOf } from '../../web/tutorial/page/heads-state.js';
import { formatHash, defaults } from '../../web/tutorial/page/state.js';

test('the default writes nothing; a preset writes its name; edited fields write everything', () => {
  assert.equal(formatHeadsHash(headsDefaults()), '');
  assert.equal(formatHeadsHash({ ...headsDefaults(), ...PRESETS.ioi }), '&hm=ioi');
  const custom = { ...headsDefaults(), answer: ' fox', kind: 'mean', layer: 1, head: 0 };
  const written = formatHeadsHash(custom);
  assert.match(written, /^&hm=custom&hm-prompt=%20the%20quick/);
  assert.ok(written.endsWith('&hm-answer=%20fox&hm-wrong=%20cat&hm-ablate=mean&hm-layer=1&hm-head=0'), written);
  // Read back after section 5's part, as main.js writes them.
  const { state, errors, given } = parseHeadsHash(formatHash(defaults()) + written);
  assert.deepEqual(errors, []);
  assert.equal(given, true);
  assert.deepEqual(state, { ...custom, preset: 'custom' });
});

test('a hash without the section gives its defaults, not given', () => {
  for (const hash of ['', '#cost', formatHash(defaults())]) {
    const { state, errors, given } = parseHeadsHash(hash);
    assert.deepEqual([state, errors, given], [headsDefaults(), [], false]);
  }
  assert.equal(presetOf(headsDefaults()), 'induction');
});

test('fields given with a preset override it, and the preset becomes custom', () => {
  const { state } = parseHeadsHash('#hm=ioi&hm-answer=%20John&hm-wrong=%20Mary');
  assert.equal(state.prompt, PRESETS.ioi.prompt);
  assert.deepEqual([state.answer, state.wrong, state.preset], [' John', ' Mary', 'custom']);
  assert.equal(parseHeadsHash('#hm=custom').state.preset, 'induction'); // custom without fields: the default's fields
});

test('bad values keep their defaults and say what to write', () => {
  const { state, errors } = parseHeadsHash('#hm=gpt3&hm-ablate=Zero&hm-layer=-1&hm-head=0');
  assert.deepEqual(errors, ['hm "gpt3" is not valid: use "induction", "ioi" or "custom"',
    'hm-ablate "Zero" is not valid: use "zero" or "mean"', 'hm-layer "-1" is not valid: use an integer from 0 up']);
  assert.deepEqual(state, headsDefaults());
  assert.deepEqual(parseHeadsHash('#hm-head=2').errors, ['hm-head needs hm-layer: a head is picked by both']);
  assert.deepEqual(parseHeadsHash('#hm-layer=&hm-head=1').errors, ['hm-layer "" is not valid: use an integer from 0 up']);
});
