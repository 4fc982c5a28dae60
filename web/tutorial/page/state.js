// state.js: the explorer's whole view state, mirrored in the URL hash so a copied link reopens the same view.
//   #text=The%20trophy...&model=models/x.arcs&layer=3&head=all&topk=3&threshold=0.02&sink=0&mode=arcs&token=9
// (topk: a count, 0 for every arc, or 'auto', the default: every arc of a short text, the strongest few of a long one;
// sink: 1 shows attention to the first token, 0 hides it, and absent is 'auto': hidden where it takes most of the
// rows drawn, attention-math.js's sinkChoice)
import { word, index, MODES } from '../../lib/element/view-options.js';
import { ATTRIBUTES } from '../../lib/element/arc-scope-attributes.js';
import { DEFAULT_MODEL } from '../shared/default-model.js';

export const DEFAULT_TEXT = "The trophy didn't fit in the bag because it was too big";

export const defaults = () => ({
  text: DEFAULT_TEXT, model: DEFAULT_MODEL, layer: null, head: null,
  topk: ATTRIBUTES.topk.default, threshold: ATTRIBUTES.threshold.default, sink: 'auto', mode: ATTRIBUTES.mode.default,
  token: null,
});

// -> {state, errors}: the settings the hash shares with <arc-scope>'s attributes (layer, head, topk, threshold, mode)
// are read by their declarations (arc-scope-attributes.js), the page's own (token, sink) by the same strict readers;
// a bad one keeps its default and its message goes in errors, for the page to show. Layers and heads are checked
// against the model when it has loaded (Explorer), so here any index is allowed; the explorer has no ablation mode.
export function parseHash(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const state = defaults(), errors = [];
  const take = (key, read) => {
    if (!p.has(key)) return;
    try { state[key] = read(p.get(key)); } catch (e) { errors.push(e.message); }
  };
  if (p.has('text')) state.text = p.get('text');
  if (p.get('model')) state.model = p.get('model');
  for (const key of ['layer', 'head', 'topk', 'threshold']) take(key, ATTRIBUTES[key].parse);
  take('mode', (value) => ATTRIBUTES.mode.parse(value, { modes: MODES }));
  take('token', (value) => index('token', value, Infinity, []));
  take('sink', (value) => ({ 0: false, 1: true }[word('sink', value, ['0', '1'])]));
  return { state, errors };
}

export function formatHash(state) {
  const p = new URLSearchParams();
  p.set('text', state.text);
  p.set('model', state.model);
  if (state.layer !== null) p.set('layer', String(state.layer));
  if (state.head !== null) p.set('head', String(state.head));
  p.set('topk', String(state.topk));
  p.set('threshold', String(state.threshold));
  if (state.sink !== 'auto') p.set('sink', state.sink ? '1' : '0');
  p.set('mode', state.mode);
  if (state.token !== null) p.set('token', String(state.token));
  return `#${p.toString().replace(/\+/g, '%20')}`;
}
