// turns.js: the worker's engine and its turns. Requests run side by side and only their engine parts take turns
// (withEngine), so a slow or stalled download never holds up another request. An error that the crash policy
// (crash.js) says leaves the engine unusable replaces it with a fresh one.
import { createEngine } from '../engine.js';
import { explain, failureOf } from './crash.js';

let engine = createEngine();  // Promise of the live engine; replaced after a crash
const restartListeners = [];

// The live engine, a Promise (another one after a crash).
export const liveEngine = () => engine;

// Calls fn() whenever a crash drops the engine, before a fresh one starts: what lived in the old one is gone.
export function onEngineRestart(fn) {
  restartListeners.push(fn);
}

// The engine's turns: wasm runs for one request at a time, in arrival order (one engine holds one KV cache and one
// conversion at a time, and its threaded build still runs one call at a time: they must not be interleaved).
// Resolves with the function that ends the turn.
let lastTurn = Promise.resolve();
function turn() {
  let end;
  const held = new Promise((ok) => { end = ok; });
  const mine = lastTurn.then(() => end);
  lastTurn = lastTurn.then(() => held);
  return mine;
}

// Runs work(engine, pause) in a turn. `await pause(promise)` gives the turn away while promise settles (a
// download) and takes it back. `what` (text, or a function giving it) says what the engine was doing if it crashes.
export async function withEngine(what, work) {
  let end = await turn();
  const live = engine;
  const doing = () => (typeof what === 'function' ? what() : what);
  const pause = async (promise) => {
    end();
    const settled = await Promise.resolve(promise).then((value) => ({ value }), (error) => ({ error }));
    end = await turn();
    // A restart while we waited outranks the download's own outcome: this engine's state is gone.
    if (live !== engine) throw new Error(`the engine was restarted after a crash while ${doing()}: try again`);
    if ('error' in settled) throw settled.error;
    return settled.value;
  };
  try {
    return await work(await live, pause);
  } catch (error) {
    const { cause, restart } = failureOf(error);
    if (restart && live === engine) {
      for (const dropped of restartListeners) dropped();
      engine = createEngine();
    }
    throw explain(cause, doing(), restart);
  } finally {
    end();
  }
}
