// state.js: the explorer's whole view state, mirrored in the URL hash so a copied link reopens the same view.
//   #text=The%20trophy...&model=models/x.arcs&layer=3&head=all&topk=3&threshold=0.02&sink=0&mode=arcs&token=9
// (topk: a count, 0 for every arc, or 'auto', the default: every arc of a short text, the strongest few of a long one)
import { word, index, topK, fraction, LAYER_WORDS, HEAD_WORDS, MODES } from '../lib/element/view-options.js';

export const DEFAULT_TEXT = "The trophy didn't fit in the bag because it was too big";
export const DEFAULT_MODEL = 'models/shakespeare-4l.q8.arcs';

export const defaults = () => ({
  text: DEFAULT_TEXT, model: DEFAULT_MODEL, layer: null, head: null,
  topk: 'auto', threshold: 0.02, sink: true, mode: 'arcs', token: null,
});

// -> {state, errors}: each setting the hash gives is read by the same strict readers as <arc-scope>'s attributes; a bad
// one keeps its default and its message goes in errors, for the page to show. Layers and heads are checked against
// the model when it has loaded (Explorer), so here any index is allowed.
export function parseHash(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const state = defaults(), errors = [];
  const take = (key, read, ...extra) => {
    if (!p.has(key)) return;
    try { state[key] = read(key, p.get(key), ...extra); } catch (e) { errors.push(e.message); }
  };
  if (p.has('text')) state.text = p.get('text');
  if (p.get('model')) state.model = p.get('model');
  take('layer', index, Infinity, LAYER_WORDS);
  take('head', index, Infinity, HEAD_WORDS);
  take('topk', topK);
  take('threshold', fraction);
  take('mode', word, MODES);
  take('token', index, Infinity, []);
  take('sink', word, ['0', '1']);
  state.sink = state.sink !== '0';
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
  if (!state.sink) p.set('sink', '0');
  p.set('mode', state.mode);
  if (state.token !== null) p.set('token', String(state.token));
  return `#${p.toString().replace(/\+/g, '%20')}`;
}
