// worker.js: the Web Worker that hosts the wasm engine, so the page never freezes while a model loads, converts,
// runs or generates. This file is the transport; the operations are ops.js's. Protocol (see worker-client.js and
// web/README.md):
//   page -> worker  {id, op, args}
//   worker -> page  {id, progress}            zero or more, while the operation runs
//                   {id, result} | {id, error}  exactly one, at the end
// Typed arrays in results are transferred, not copied.
//
// Requests run side by side and only their engine parts take turns (turns.js), so a slow or stalled download never
// holds up another request. A wasm trap throws the engine away (crash.js): a fresh one starts, and each model loads
// again from its URL or its Cache Storage copy when it is next used (residency.js).
import { ops } from './ops.js';

// A page's own worker imports this file and adds its operations to ops before its page sends the first message (the
// tutorial's does, in web/tutorial/worker/tutorial-worker.js), running their wasm work as the library's do.
export { ops, betweenSteps } from './ops.js';
export { withEngine } from './turns.js';
export { withModel } from './residency.js';

// Every typed array inside a result travels by transfer.
// (Only arrays that own their whole buffer: a view into wasm memory must never be detached.)
function transferables(value, out = []) {
  if (ArrayBuffer.isView(value)) {
    if (value.byteOffset === 0 && value.byteLength === value.buffer.byteLength && value.buffer instanceof ArrayBuffer) out.push(value.buffer);
  }
  else if (Array.isArray(value)) for (const v of value) transferables(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) transferables(v, out);
  return [...new Set(out)];
}

// A crashed engine's objects are dropped unfreed; if a finalizer still tries on the broken memory and traps, that is
// expected and must not reach the page as a failure of the worker.
self.addEventListener('error', (e) => {
  if (e.error instanceof WebAssembly.RuntimeError) e.preventDefault();
});

// Every request starts at once; 'cancel' aborts a running one (its downloads, its wait for a model, a generation
// or the cost experiment after the current step).
const running = new Map(); // id -> AbortController
self.onmessage = async ({ data: { id, op, args } }) => {
  if (op === 'cancel') { running.get(args.target)?.abort(new Error('cancelled')); return; }
  const controller = new AbortController();
  running.set(id, controller);
  const progress = (p) => self.postMessage({ id, progress: p }, transferables(p));
  progress.cancelled = () => controller.signal.aborted;
  try {
    if (!Object.hasOwn(ops, op)) throw new Error(`unknown operation ${op}`);
    const result = await ops[op](args || {}, { progress, signal: controller.signal });
    self.postMessage({ id, result }, transferables(result));
  } catch (error) {
    self.postMessage({ id, error: String(error?.message || error) });
  } finally {
    if (running.get(id) === controller) running.delete(id);
  }
};

// The script and its imports have loaded: the page stops waiting for the worker to start (worker-client.js).
self.postMessage({ id: 0, started: true });
