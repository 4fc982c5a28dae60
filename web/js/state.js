// state.js: the explorer's whole view state, mirrored in the URL hash so a copied link reopens the same view.
//   #text=The%20trophy...&model=models/x.arcs&layer=3&head=all&topk=3&threshold=0.02&sink=0&mode=arcs&token=9
export const DEFAULT_TEXT = "The trophy didn't fit in the bag because it was too big";
export const DEFAULT_MODEL = 'models/shakespeare-4l.q8.arcs';

export const defaults = () => ({
  text: DEFAULT_TEXT, model: DEFAULT_MODEL, layer: null, head: null,
  topk: 0, threshold: 0.02, sink: true, mode: 'arcs', token: null,
});

// 'mean' | 'max' | integer >= 0; anything else falls back.
const pick = (value, words, fallback) => {
  if (value === null || value === undefined || value === '') return fallback;
  if (words.includes(value)) return value;
  const n = Number(value);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
};

export function parseHash(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const d = defaults();
  const threshold = Number(p.get('threshold'));
  const topk = Number(p.get('topk'));
  return {
    text: p.has('text') ? p.get('text') : d.text,
    model: p.get('model') || d.model,
    layer: pick(p.get('layer'), ['mean', 'max'], d.layer),
    head: pick(p.get('head'), ['all', 'mean', 'max'], d.head),
    topk: Number.isInteger(topk) && topk >= 0 ? topk : d.topk,
    threshold: p.has('threshold') && threshold >= 0 && threshold <= 1 ? threshold : d.threshold,
    sink: p.get('sink') !== '0',
    mode: p.get('mode') === 'matrix' ? 'matrix' : 'arcs',
    token: pick(p.get('token'), [], d.token),
  };
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
