// calls.js: the guards around every call into the engine, which the model, the article's blocks, the loaders and
// the converter share: a wasm trap becomes an Error naming what the engine was doing, and a number argument is
// checked before Embind's conversion could change it.

// Ids go to the engine as they are, never through Int32Array (which would turn 2**32 + 464 into 464) and never
// checked here: the bindings check each one (a number, an integer, inside the vocabulary) and say which is wrong.
// A wasm trap (a bug, or memory damaged by one) arrives as a bare RuntimeError such as "memory access out of
// bounds". It becomes a sentence naming what the engine was doing; `cause` keeps the original so callers (the
// worker) can tell a crash from a refused input and start a fresh engine.
export function engineCall(doing, fn) {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof WebAssembly.RuntimeError)) throw error;
    throw new Error(`the engine crashed while ${doing} (${error.message}); its memory may be damaged, so start a ` +
      'new engine (reload the page) before going on', { cause: error });
  }
}

// A value as the engine's own refusals show it ('null', 'the string "5"', 'a boolean (true)', 'an array of length 1',
// 'a value of type object'): the words of js_description in the bindings, so a refusal reads the same whether this
// file or the engine makes it.
export function described(v) {
  if (typeof v === 'string') return `the string "${v.length > 40 ? `${v.slice(0, 37)}...` : v}"`;
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'boolean') return `a boolean (${v})`;
  if (typeof v === 'number') return `the number ${v}`;
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  if (ArrayBuffer.isView(v) && typeof v.length === 'number') return `a ${v.constructor.name} of length ${v.length}`;
  return `a value of type ${typeof v}`;
}

// A numeric argument as it is, or an Error naming it and what it got. The bindings take most numbers as C++
// doubles, and Embind converts those with JavaScript's ToNumber: null, false and [] would arrive as 0, true as 1,
// '5' and [7] as 5 and 7, and an object's valueOf() would be called. The engine then checks the range (an integer
// in [lo, hi]) in its own words, as it does for append() and attentionPattern(), which take the value unconverted.
export function numberArg(value, what, expected = 'a number') {
  if (typeof value !== 'number') throw new TypeError(`${what} must be ${expected}, got ${described(value)}`);
  return value;
}

// An integer argument in [lo, hi], as numberArg's and then in the words of the bindings' int_arg ("k must be an
// integer in [1, 100], got 0"), for the counts and sizes the engine never sees (a stream's chunk size) or reads with
// a meaning of its own (headScores' length 0). 0, NaN or a fraction where a size belongs would otherwise loop or
// round silently.
export function integerArg(value, what, lo, hi) {
  numberArg(value, what, 'an integer');
  if (!(Number.isInteger(value) && value >= lo && value <= hi)) {
    throw new RangeError(`${what} must be an integer in [${lo}, ${hi}], got ${value}`);
  }
  return value;
}
