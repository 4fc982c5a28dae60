// kept-queries.js: in the worker, each recent analysis's queries and keys (every layer's hook_q and hook_k, f32),
// so that any head's attention can be computed exactly when a view asks for it (model.attentionPattern) instead of
// every head's T x T being captured and sent: GPT-2 small on 1,024 tokens keeps 75 MB here rather than 604 MB.
// They are copies in JS, not the engine's state, so any other operation may run on the model in between.
// Bounded by bytes, least recently used out; the newest is kept whatever its size. An analysis that is no longer
// here is run again (one forward pass) when a view needs it.
import { LruMap } from '../shared/lru-map.js';

const BUDGET = 80 << 20;

// `${model key}\n${ids}` -> {ids, layers: [{q, k}] per layer}, least recently used first; the newest stays whatever its
// size
const store = new LruMap({ budget: BUDGET });

// The hook names one pass records: every layer's queries and keys.
export const queryKeyHooks = (n_layer) => Array.from({ length: n_layer },
  (_, l) => [`blocks.${l}.attn.hook_q`, `blocks.${l}.attn.hook_k`]).flat();

const keyOf = (modelKey, ids) => `${modelKey}\n${Array.prototype.join.call(ids, ',')}`;

// Rows a kept layer has room for: T rounded up, so typing at the end fills the room it has before it grows.
const ROOM = 128;
const roomFor = (T) => Math.ceil(T / ROOM) * ROOM;

// Keeps a runWithCache cache of queryKeyHooks for (model, ids) -> [{q, k}] per layer ([T, H, d_head] each). A cache
// that starts at position first (runWithCache's reuse) is completed with the first rows of `earlier` ({key, layers}:
// the kept analysis it resumed from). Its arrays are written in place when they have room: the edit's rows replace
// that analysis's from `first` on, and the earlier text is no longer kept (its first rows now belong to this one), so
// an edit costs its new rows, not a copy of every layer.
export function keepQueries(modelKey, ids, cache, n_layer, { first = 0, earlier = null } = {}) {
  const T = ids.length;
  let inPlace = false;
  const whole = (name, before) => {
    const rows = cache[name].data, width = rows.length / (T - first);
    let out;
    if (first && before.buffer.byteLength >= T * width * 4) {
      out = new Float32Array(before.buffer, 0, T * width);
      inPlace = true;
    } else {
      out = new Float32Array(new ArrayBuffer(roomFor(T) * width * 4), 0, T * width);
      if (first) out.set(before.subarray(0, first * width));
    }
    out.set(rows, first * width);
    return out;
  };
  const layers = Array.from({ length: n_layer }, (_, l) => ({
    q: whole(`blocks.${l}.attn.hook_q`, earlier?.layers[l].q), k: whole(`blocks.${l}.attn.hook_k`, earlier?.layers[l].k) }));
  if (inPlace) store.delete(earlier.key);
  const bytes = layers.reduce((n, { q, k }) => n + q.buffer.byteLength + k.buffer.byteLength, 0);
  store.set(keyOf(modelKey, ids), { ids: Array.from(ids), layers }, bytes);
  return layers;
}

// The layers kept for (model, ids), marked most recently used, or undefined.
export const keptLayers = (modelKey, ids) => store.get(keyOf(modelKey, ids))?.layers;

// Of the analyses kept for this model, the one whose ids share the longest prefix with ids: {key, layers, shared}
// (shared leading ids, at least one), or undefined. An edit resumes from it: only the positions after `shared` run.
export function closestKept(modelKey, ids) {
  let best;
  for (const [key, entry] of store.entries()) {
    if (!key.startsWith(`${modelKey}\n`)) continue;
    const n = Math.min(entry.ids.length, ids.length);
    let shared = 0;
    while (shared < n && entry.ids[shared] === ids[shared]) shared++;
    if (shared > 0 && shared > (best?.shared ?? 0)) best = { key, layers: entry.layers, shared };
  }
  return best;
}
