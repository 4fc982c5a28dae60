// crash.js: the worker's crash policy. A trap (WebAssembly.RuntimeError) leaves wasm memory in an unknown state: that
// engine is dropped, models and all (nothing in it can be trusted, not even to free), and a fresh one starts. So does
// a full memory (wasm memory never shrinks, and the models in it are what filled it): the next request starts from an
// empty engine. The engine API names a trap itself and keeps the RuntimeError as the cause; the worker says it in its
// own words.

// What an error thrown in the engine's turn means: {cause: the trap, or the error itself; restart: whether the engine
// must be dropped for a fresh one}.
export function failureOf(error) {
  const isTrap = (e) => e instanceof WebAssembly.RuntimeError || e?.name === 'RuntimeError';
  const trap = isTrap(error) ? error : isTrap(error?.cause) ? error.cause : null;
  const full = !trap && /^the engine's memory is full/.test(error?.message ?? '');
  return { cause: trap ?? error, restart: !!(trap || full) };
}

// Engine messages are kept; a crash or an allocation failure gets words a reader can act on.
export function explain(error, what, restarted) {
  const message = String(error?.message || error).replace(/\. Build with -s ASSERTIONS=1 for more info\.$/, '');
  const oom = /bad_alloc|out of memory|Cannot enlarge memory|Aborted\(OOM\)/i.test(message);
  if (!oom && !restarted) return error;
  if (/^the engine's memory is full/.test(message)) {  // wasm's 4 GB, filled by the models in it
    return new Error(`the engine's memory was full while ${what}: it has been restarted with no model in it, and ` +
      `your models load again when next used (${message})`);
  }
  const after = restarted ? '; it has been restarted, and your models load again when next used' : '';
  return new Error(oom
    ? `out of memory while ${what}: the browser could not give the engine enough memory (${message})${after}; ` +
      'close other tabs or load a smaller model'
    : `the engine crashed while ${what} (${message})${after}`);
}
