/* global Module */
// boundary.js (linked with --pre-js into the engine's module): the JavaScript side of the bindings' boundary. A
// JavaScript exception thrown while C++ frames are on the stack (a throwing getter, a Proxy, a BigInt where a number
// belongs) unwinds them without their destructors, leaking whatever they hold; and Embind's string conversion writes
// to address 0 when wasm's malloc fails. So the bindings read every JavaScript value through these functions, which
// never throw: each returns its result, or {error: message} for the C++ side to raise as a C++ exception.
// (Written for the old JavaScript parser Emscripten 3.1.6 runs over the glue: no ?. and no ??.)

// A copy of v made of plain data only (primitives, arrays, plain objects, typed arrays other than BigInt ones), so
// that reading it again cannot run user code. depth bounds nesting (hooks arrays and nested attention arrays).
Module['arcscopePlain'] = function (v, what) {
  class Refused extends Error {}  // what this function itself refuses; anything else was thrown by user code
  const copy = (x, path, depth) => {
    if (x === null || typeof x !== 'object') {
      if (typeof x === 'bigint') throw new Refused(`${path} is the BigInt ${x}n, not a number`);
      return typeof x === 'function' || typeof x === 'symbol' ? undefined : x;
    }
    if (depth > 8) throw new Refused(`${path} is nested too deeply`);
    if (ArrayBuffer.isView(x)) {
      if (x instanceof BigInt64Array || x instanceof BigUint64Array) {
        throw new Refused(`${path} is a ${x.constructor.name}: give numbers (an array, a Float32Array or an ` +
          'Int32Array), not BigInts');
      }
      return x instanceof DataView ? {} : x;  // indices of a typed array run no user code
    }
    if (Array.isArray(x)) {
      const n = x.length, out = new Array(n);
      for (let i = 0; i < n; i++) out[i] = copy(x[i], `${path}[${i}]`, depth + 1);
      return out;
    }
    const out = {};
    for (const key of Object.keys(x)) out[key] = copy(x[key], `${path}.${key}`, depth + 1);
    return out;
  };
  try {
    return { value: copy(v, what, 0) };
  } catch (e) {
    return { error: e instanceof Refused ? e.message : `${what} could not be read: ${e && e.message || e}` };
  }
};

// A string's UTF-8 bytes (the C++ side allocates their copy, so a full memory is a C++ exception).
Module['arcscopeUtf8'] = function (s) {
  try {
    return typeof s === 'string' ? new TextEncoder().encode(s) : { error: 'is not a string' };
  } catch (e) {
    return { error: 'could not be read: ' + (e && e.message || e) };
  }
};

// Bytes in wasm memory as a string (Embind's own conversion would malloc without checking).
Module['arcscopeText'] = function (view) {
  try {
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(view.slice());  // keeps a leading U+FEFF
  } catch (e) {
    return '';
  }
};

// A value as a message shows it: 'the string "7"', 'null', 'a boolean (true)', 'the number 7', 'an array of length
// 2', 'a Int32Array of length 3', 'a value of type object' (reading a Proxy's length could throw: it is not read).
Module['arcscopeDescribe'] = function (v) {
  try {
    if (typeof v === 'string') return `the string "${v}"`;
    if (v === null || v === undefined) return String(v);
    if (typeof v === 'boolean') return `a boolean (${v})`;
    if (typeof v === 'number') return `the number ${v}`;
    if (typeof v === 'bigint') return `the BigInt ${v}n`;
    if (Array.isArray(v)) return `an array of length ${v.length}`;
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return `a ${v.constructor.name} of length ${v.length}`;
    return `a value of type ${typeof v}`;
  } catch (e) {
    return 'a value that could not be read (' + (e && e.message || e) + ')';
  }
};
