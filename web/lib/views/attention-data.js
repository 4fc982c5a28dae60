// attention-data.js: attention computed elsewhere (arcscope run --out, TransformerLens, Hugging Face), as
// <arc-scope src="..."> and its data property take it. One shape, read strictly:
//   {"tokens": [" The", " cat", ...],                    the text of each token, as the tokenizer split it
//    "attention": [layer][head][query][key],            nested arrays, or
//    "attention": [flat numbers], "shape": [L, H, T, T]  the same numbers row-major (an array or a typed array)
//    "model": "a name for the caption", "ids": [token ids]   both optional}
// Other fields (arcscope run's logits_last) are ignored. Weights must be finite numbers from 0 to 1; rows need not
// sum to 1 and need not be causal.

// Float32 rounding in a softmax can overshoot 1 by an ulp or so.
const MAX_WEIGHT = 1 + 1e-5;
const LEVELS = ['layers', 'heads', 'query rows', 'keys'];

// data (an object) -> {tokens, ids, attention: Float32Array [L, H, T, T], shape, model}, or an Error whose message
// begins with `where` and says what is wrong and at which index.
export function parseAttention(data, where) {
  try {
    return parse(data);
  } catch (e) {
    throw new Error(`${where}: ${e.message}`, { cause: e });
  }
}

function parse(data) {
  if (data === null || typeof data !== 'object' || Array.isArray(data) || ArrayBuffer.isView(data)) {
    throw new Error('it is not an object like {"tokens": [...], "attention": [...]}');
  }
  const { tokens, ids = null, model = null, attention, shape = null } = data;
  if (tokens === undefined) throw new Error('"tokens" is missing: give the text of each token, e.g. [" The", " cat"]');
  if (!Array.isArray(tokens) || tokens.length === 0) throw new Error('"tokens" must be a non-empty array of strings');
  const bad = tokens.findIndex((t) => typeof t !== 'string');
  if (bad >= 0) throw new Error(`tokens[${bad}] is ${describe(tokens[bad])}, not a string`);
  const T = tokens.length;
  if (ids !== null && !(Array.isArray(ids) && ids.length === T && ids.every((id) => Number.isInteger(id) && id >= 0))) {
    throw new Error(`"ids" must be ${T} non-negative integers, one per token (or leave it out)`);
  }
  if (model !== null && typeof model !== 'string') throw new Error('"model" must be a string (or leave it out)');
  if (attention === undefined) throw new Error('"attention" is missing: give [layer][head][query][key] arrays');
  const read = Array.isArray(attention) && Array.isArray(attention[0]) ? nested(attention) : flat(attention, shape);
  if (shape !== null && !sameShape(shape, read.shape)) {
    throw new Error(`"shape" is ${describe(shape)} but "attention" is ${describe(read.shape)}`);
  }
  const [, , rows, keys] = read.shape;
  if (rows !== T || keys !== T) {
    throw new Error(`"attention" is [${read.shape.join(', ')}] ([layer, head, query, key]) but "tokens" has ${T} ` +
      `tokens: each head needs ${T} rows of ${T} weights`);
  }
  return { tokens, ids, attention: read.values, shape: read.shape, model };
}

// [layer][head][query][key] arrays, each level as long as its first element says (anything else is ragged).
function nested(attention) {
  const dims = [];
  for (let a = attention, d = 0; d < 4; d++, a = a[0]) {
    if (!Array.isArray(a) || a.length === 0) {
      throw new Error(`"attention" must nest four levels of non-empty arrays, [layer][head][query][key]; ` +
        `attention${'[0]'.repeat(d)} is ${describe(a)}`);
    }
    dims.push(a.length);
  }
  const values = new Float32Array(dims.reduce((n, d) => n * d, 1));
  let n = 0;
  const walk = (a, d, path) => {
    if (!Array.isArray(a)) throw new Error(`attention${path} is ${describe(a)} where an array of ${LEVELS[d]} belongs`);
    if (a.length !== dims[d]) {
      throw new Error(`"attention" is ragged: attention${path} has ${a.length} ${LEVELS[d]}, ` +
        `attention${'[0]'.repeat(d)} has ${dims[d]}`);
    }
    if (d === 3) {
      for (let k = 0; k < a.length; k++) values[n++] = weight(a[k], () => `attention${path}[${k}]`);
    } else {
      for (let k = 0; k < a.length; k++) walk(a[k], d + 1, `${path}[${k}]`);
    }
  };
  walk(attention, 0, '');
  return { values, shape: dims };
}

// Numbers in [L, H, T, T] order with their shape.
function flat(attention, shape) {
  if (!Array.isArray(attention) && !(ArrayBuffer.isView(attention) && !(attention instanceof DataView))) {
    throw new Error(`"attention" is ${describe(attention)}: give [layer][head][query][key] arrays, or flat numbers ` +
      'with "shape": [L, H, T, T]');
  }
  if (shape === null) throw new Error('"attention" is a flat list of numbers, so "shape": [L, H, T, T] is needed');
  if (!Array.isArray(shape) || shape.length !== 4 || !shape.every((s) => Number.isInteger(s) && s > 0)) {
    throw new Error(`"shape" must be four positive integers [L, H, T, T], not ${describe(shape)}`);
  }
  const [, H, T] = shape;
  const size = shape.reduce((n, d) => n * d, 1);
  if (attention.length !== size) {
    throw new Error(`"attention" has ${attention.length} numbers but "shape" [${shape.join(', ')}] needs ${size}`);
  }
  const values = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    values[i] = weight(attention[i], () => {
      const key = i % T, query = Math.floor(i / T) % T, head = Math.floor(i / (T * T)) % H;
      return `attention[${i}] (layer ${Math.floor(i / (T * T * H))}, head ${head}, query ${query}, key ${key})`;
    });
  }
  return { values, shape: [...shape] };
}

function weight(v, where) {
  if (typeof v === 'number' && v >= 0 && v <= MAX_WEIGHT) return v; // NaN fails both comparisons
  const why = v === null ? ' (JSON writers save NaN and infinities as null)' : '';
  throw new Error(`${where()} is ${describe(v)}: weights must be finite numbers from 0 to 1${why}`);
}

const sameShape = (a, b) => Array.isArray(a) && a.length === b.length && a.every((d, i) => d === b[i]);

// A value as it would be written in the JSON, shortened.
// Never throws: a BigInt, or an object that refers to itself, is named instead of stringified.
function describe(v) {
  if (typeof v === 'number') return String(v);
  if (typeof v === 'bigint') return `the BigInt ${v}n`;
  if (v === undefined) return 'missing';
  let text;
  try {
    text = ArrayBuffer.isView(v) ? `a ${v.constructor.name}` : JSON.stringify(v) ?? String(v);
  } catch {
    text = 'a value JSON cannot hold (it refers to itself, or holds a BigInt)';
  }
  return text.length > 40 && !text.startsWith('a value JSON') ? `${text.slice(0, 37)}...` : text;
}
