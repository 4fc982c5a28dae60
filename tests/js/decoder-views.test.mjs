// The views' logic for the newer decoders, in Node: which query heads share a key/value head (the engine's rule,
// h / (H / KV)), in the legend, the head grid and the head picker's groups; and the first token hidden by default
// only where the rows drawn put most of their mass on it; what was written for GPT-2 small kept to GPT-2 small. (Drawing them is tested in Chromium:
// decoder-views.spec.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kvGroups, kvHeadOf, groupOf, groupLabel, headColumnLabel } from '../../web/lib/shared/head-groups.js';
import { sinkShare, sinkChoice, SINK_DOMINANT } from '../../web/lib/shared/attention-math.js';
import { isGpt2SmallShaped, notGpt2Small } from '../../web/tutorial/page/gpt2-small.js';
import { PRESETS } from '../../web/tutorial/page/heads-state.js';

test('grouped-query heads: SmolLM2\'s 9 over 3, Llama\'s 32 over 8; none for GPT-2', () => {
  assert.deepEqual(kvGroups(9, 3).map(groupLabel), ['KV 0: heads 0-2', 'KV 1: heads 3-5', 'KV 2: heads 6-8']);
  assert.deepEqual(kvGroups(32, 8)[7], { kv: 7, first: 28, last: 31 });
  // Every query head lies in the group of the key/value head it reads, as the engine reads it (h / (H / KV)).
  for (const [H, KV] of [[9, 3], [8, 2], [32, 8], [14, 2], [16, 1]]) {
    const groups = kvGroups(H, KV);
    for (let h = 0; h < H; h++) {
      const kv = Math.floor(h / (H / KV));
      assert.equal(kvHeadOf(h, H, KV), kv);
      assert.ok(groups[kv].first <= h && h <= groups[kv].last, `${H}/${KV}: head ${h}`);
      assert.deepEqual(groupOf(h, H, KV), groups[kv]);
    }
  }
  // Nothing to show where every query head has its own key/value head (GPT-2, Pythia) or the count is not known.
  assert.equal(kvGroups(12, 12), null);
  assert.equal(kvGroups(12), null);
  assert.equal(kvGroups(12, undefined), null);
  assert.equal(groupOf(5, 12, 12), null);
  assert.throws(() => kvGroups(9, 2), /9 query heads cannot share 2 key\/value heads evenly/);
});

// A causal (T, T) matrix whose rows after the first give `first` to token 0 and the rest evenly to the others.
function sinkMatrix(T, first) {
  const m = new Float32Array(T * T);
  m[0] = 1;
  for (let i = 1; i < T; i++) {
    m[i * T] = first;
    for (let j = 1; j <= i; j++) m[i * T + j] = (1 - first) / i;
  }
  return m;
}

test('the first token is hidden by default only where it takes most of the rows drawn', () => {
  const T = 40;
  // Row 0 can only see token 0: it does not count.
  assert.ok(Math.abs(sinkShare(sinkMatrix(T, 0.9), T) - 0.9) < 1e-6);
  assert.ok(Math.abs(sinkShare(sinkMatrix(T, 0.1), T) - 0.1) < 1e-6);
  assert.equal(sinkShare(new Float32Array([1]), 1), 0);
  const heavy = sinkMatrix(T, 0.85), light = sinkMatrix(T, 0.2);
  assert.equal(sinkChoice('auto', [heavy], T).show, false);
  assert.equal(sinkChoice('auto', [light], T).show, true);
  // The heads drawn together are measured together (their mean share).
  assert.equal(sinkChoice('auto', [heavy, sinkMatrix(T, 0.1)], T).show, true);   // 0.475
  assert.equal(sinkChoice('auto', [heavy, sinkMatrix(T, 0.3)], T).show, false);
  // Just past half is dominated, half is not.
  assert.equal(sinkChoice('auto', [sinkMatrix(T, SINK_DOMINANT)], T).show, true);
  // The reader's choice wins either way, and the share is still reported.
  assert.equal(sinkChoice(true, [heavy], T).show, true);
  assert.equal(sinkChoice(false, [light], T).show, false);
  assert.ok(Math.abs(sinkChoice(true, [heavy], T).share - 0.85) < 1e-6);
});

test('what was written for GPT-2 small is GPT-2 small\'s: a 12 x 12 model of another architecture is not taken for it', () => {
  const gpt2 = { architecture: 'gpt2', n_layer: 12, n_head: 12 };
  assert.equal(isGpt2SmallShaped(gpt2), true);
  assert.equal(isGpt2SmallShaped({ n_layer: 12, n_head: 12 }), true); // a config from before architectures
  assert.equal(isGpt2SmallShaped({ ...gpt2, n_layer: 48, n_head: 25 }), false);
  // Pythia-160m: 12 layers of 12 heads, GPT-NeoX's: the article's layer 8, head 5 and the indirect-object preset are
  // not about it.
  const pythia = { architecture: 'gpt_neox', n_layer: 12, n_head: 12 };
  assert.equal(isGpt2SmallShaped(pythia), false);
  assert.equal(notGpt2Small('This preset is for', { name: 'Pythia-160m', config: pythia }),
    'This preset is for GPT-2 small (12 layers × 12 heads); Pythia-160m is a gpt_neox model of 12 layers × 12 heads');
  assert.equal(notGpt2Small('This preset is for', { name: 'GPT-2 XL', config: { ...gpt2, n_layer: 48, n_head: 25 } }),
    'This preset is for GPT-2 small (12 layers × 12 heads); GPT-2 XL has 48 layers × 25 heads');
  assert.equal(notGpt2Small('This preset is for', null), 'This preset is for GPT-2 small (12 layers × 12 heads); no model is loaded');
  // The presets say whose heads their claim is about.
  assert.match(PRESETS.ioi.label, /\(GPT-2 small\)$/);
  assert.equal(PRESETS.ioi.gpt2Small, true);
  assert.match(PRESETS.induction.label, /\(the default model\)$/);
});

test('a grid\'s column labels name the key/value head in a grouped-query model only', () => {
  assert.equal(headColumnLabel(4, 9, 3), 'head 4\u00B7KV 1');
  assert.equal(headColumnLabel(31, 32, 8), 'head 31\u00B7KV 7');
  assert.ok(headColumnLabel(31, 32, 8).length <= 12); // a heatmap clips labels past 12 characters
  assert.equal(headColumnLabel(4, 12, 12), 'head 4');
  assert.equal(headColumnLabel(4, 12), 'head 4');
  assert.equal(headColumnLabel(4, 9, 3, true), 'h4');
});
