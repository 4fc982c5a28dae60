// view-options.js: the one reader of view settings written as text, shared by <arc-scope>'s attributes and the
// tutorial's URL hash. Each reader returns the value or throws an Error whose message says what to write instead.
const invalid = (name, value, expected) => new Error(`${name} "${value}" is not valid: use ${expected}`);
const either = (items) => (items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : items[0]);
const isCount = (value) => /^\d+$/.test(value);

// One of words.
export function word(name, value, words) {
  if (words.includes(value)) return value;
  throw invalid(name, value, either(words.map((w) => `"${w}"`)));
}

// An index below n (decimal digits only, so "1.5", "-1", "0x2" and "" are refused) or one of words.
export function index(name, value, n, words) {
  if (words.includes(value)) return value;
  if (isCount(value) && Number(value) < n) return Number(value);
  const range = Number.isFinite(n) ? `an integer from 0 to ${n - 1}` : 'an integer from 0 up';
  throw invalid(name, value, either([range, ...words.map((w) => `"${w}"`)]));
}

// Arcs per query token: an integer from 0 up (0 draws them all) or "auto": all of them on a short text, each
// query's strongest few on a long one (attention-math.js's topKFor).
export function topK(name, value) {
  if (value === 'auto') return value;
  if (isCount(value)) return Number(value);
  throw invalid(name, value, 'an integer from 0 up (0 draws every arc) or "auto"');
}

export function fraction(name, value) {
  const n = /^(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(value) ? Number(value) : NaN;
  if (n >= 0 && n <= 1) return n;
  throw invalid(name, value, 'a number from 0 to 1');
}

// A URL resolved against base; expected says what it should point at.
export function url(name, value, base, expected) {
  try {
    if (value !== '') return new URL(value, base).href;
  } catch { /* reported below */ }
  throw invalid(name, value, expected);
}

export const LAYER_WORDS = ['mean', 'max'];
export const HEAD_WORDS = ['all', 'mean', 'max'];
export const MODES = ['arcs', 'matrix'];
// <arc-scope>'s modes: the attention views, and the head-effect heatmap of an ablation sweep (mode="ablation").
export const ELEMENT_MODES = [...MODES, 'ablation'];
export const ABLATIONS = ['zero', 'mean'];
export const THEMES = ['auto', 'light', 'dark'];
export const LOADINGS = ['eager', 'lazy'];
export const SINKS = ['auto', 'shown', 'hidden'];
