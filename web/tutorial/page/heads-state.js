// heads-state.js: section 7's state (its preset, prompts, answers, ablation kind and picked head) and its part of the
// URL hash, read by the same strict readers as the rest of the hash (lib/element/view-options.js):
//   #text=...&model=...&hm=custom&hm-prompt=...&hm-corrupted=...&hm-answer=%20dog&hm-wrong=%20cat&hm-ablate=mean
//     &hm-layer=1&hm-head=0
// The section's default (the repeated-line preset, zero ablation, no head picked) writes nothing, so a link to
// section 5 alone stays as it was. A preset writes its name only; edited fields make the preset "custom" and are
// written out.
import { word, index, ABLATIONS } from '../../lib/element/view-options.js';

// Each preset: its fields, who it is written for, and the heads its text is about.
export const PRESETS = {
  induction: {
    label: 'Repeated line (the default model)',
    prompt: ' the quick brown fox jumps over the lazy dog. the quick brown fox jumps over the lazy',
    corrupted: ' the quick brown fox jumps over the lazy cat. the quick brown fox jumps over the lazy',
    answer: ' dog', wrong: ' cat',
    gpt2Small: false,
    // On the default model: its induction head (taught, see section 5). Other models: the largest drops.
    focus: { layer: 1, head: 0, defaultModelOnly: true },
  },
  ioi: {
    label: 'Indirect object (GPT-2 small)',
    prompt: 'When Mary and John went to the store, John gave a drink to',
    corrupted: 'When Mary and John went to the store, Mary gave a drink to',
    answer: ' Mary', wrong: ' John',
    gpt2Small: true,
    focus: null,
  },
};
export const PRESET_NAMES = [...Object.keys(PRESETS), 'custom'];
const FIELDS = ['prompt', 'corrupted', 'answer', 'wrong'];
const KEYS = ['hm', ...FIELDS.map((f) => `hm-${f}`), 'hm-ablate', 'hm-layer', 'hm-head'];

export const headsDefaults = () => ({ preset: 'induction', ...fields(PRESETS.induction), kind: 'zero', layer: null, head: null });

export function fields(preset) {
  return Object.fromEntries(FIELDS.map((f) => [f, preset[f]]));
}

// The preset whose fields these are, or 'custom'.
export function presetOf(state) {
  for (const [name, p] of Object.entries(PRESETS)) if (FIELDS.every((f) => p[f] === state[f])) return name;
  return 'custom';
}

// -> {state, errors, given}: given is false when the hash says nothing about the section (its defaults then). A bad
// value keeps its default and its message goes in errors, for the section to show.
export function parseHeadsHash(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const state = headsDefaults(), errors = [];
  const given = KEYS.some((k) => p.has(k));
  const read = (key, parse, ...extra) => {
    try { return parse(key, p.get(key), ...extra); } catch (e) { errors.push(e.message); return null; }
  };
  if (p.has('hm')) {
    const name = read('hm', word, PRESET_NAMES);
    if (name && name !== 'custom') Object.assign(state, fields(PRESETS[name]));
  }
  for (const f of FIELDS) if (p.has(`hm-${f}`)) state[f] = p.get(`hm-${f}`);
  state.preset = presetOf(state);
  if (p.has('hm-ablate')) state.kind = read('hm-ablate', word, ABLATIONS) ?? state.kind;
  // A picked head needs both; their range is checked against the model when it has loaded.
  if (p.has('hm-layer') !== p.has('hm-head')) {
    errors.push(`${p.has('hm-layer') ? 'hm-layer' : 'hm-head'} needs ${p.has('hm-layer') ? 'hm-head' : 'hm-layer'}: a head is picked by both`);
  } else if (p.has('hm-layer')) {
    const layer = read('hm-layer', index, Infinity, []), head = read('hm-head', index, Infinity, []);
    if (layer !== null && head !== null) Object.assign(state, { layer, head });
  }
  return { state, errors, given };
}

// The section's part of the hash, '&hm=...' (empty for its defaults), to append to the explorer's.
export function formatHeadsHash(state) {
  const p = new URLSearchParams();
  const preset = presetOf(state);
  if (preset !== 'induction') p.set('hm', preset);
  if (preset === 'custom') for (const f of FIELDS) p.set(`hm-${f}`, state[f]);
  if (state.kind !== 'zero') p.set('hm-ablate', state.kind);
  if (state.layer !== null && state.head !== null) {
    p.set('hm-layer', String(state.layer));
    p.set('hm-head', String(state.head));
  }
  const s = p.toString().replace(/\+/g, '%20');
  return s ? `&${s}` : '';
}
