// kept-queries.js: in the worker, each recent analysis's queries and keys, kept in the engine (model.keepQueries:
// every layer's, f32) where any head's attention, a mean or max over heads and layers, and a thumbnail are computed
// when a view asks (model.keptAttention, keptThumbnail), instead of every head's T x T being captured and sent, or
// the queries and keys being copied back in for each head: GPT-2 small on 1,024 tokens keeps 75 MB rather than
// 604 MB. They are the engine's memory but not the model's state, so any other operation may run on the model in
// between. Bounded by bytes, least recently used out (and freed); the newest is kept whatever its size. An analysis
// that is no longer here is run again (one forward pass) when a view needs it. A model's go when it is freed, and
// a crash drops them with the engine, unfreed.
import { LruMap } from '../shared/lru-map.js';
import { onEngineRestart } from './turns.js';
import { tooLongFor } from '../shared/model-memory.js';

const BUDGET = 80 << 20;

// `${model key}\n${ids}` -> {ids, kept: KeptQueries}, least recently used first; the newest stays whatever its size
const store = new LruMap({ budget: BUDGET, onEvict: ({ kept }) => kept.free() });
onEngineRestart(() => store.clear());

const keyOf = (modelKey, ids) => `${modelKey}\n${Array.prototype.join.call(ids, ',')}`;

// One pass over ids that keeps every layer's queries and keys. An edit of a kept analysis resumes from it: the
// positions before the first changed token are taken from the model's KV cache where it still holds them and from
// that analysis's rows, and the new rows are written over its own from there (the earlier text is no longer kept),
// so typing at the end of a long text runs and keeps only the new tokens. The same bits as a pass over the whole
// text. -> {logits (the last position's), kept, first (the positions not run again)}
export function runKeepingQueries(model, modelKey, ids) {
  const tooLong = tooLongFor(model.config, ids.length);
  if (tooLong) throw new Error(tooLong);
  const earlier = closestKept(modelKey, ids);
  if (earlier) store.delete(earlier.key);
  const kept = earlier?.kept ?? model.keepQueries();
  try {
    const { logits, first } = model.runKeepingQueries(ids, kept, { reuse: earlier?.shared ?? 0 });
    store.set(keyOf(modelKey, ids), { ids: Array.from(ids), kept }, kept.bytes);
    return { logits, kept, first };
  } catch (error) {
    kept.free();  // its rows are part this text's, part the earlier one's
    throw error;
  }
}

// The queries and keys of analysed ids: kept (marked most recently used), or computed again (they were evicted, or
// the model was freed, or the engine restarted).
export const keptQueries = (model, modelKey, ids) =>
  store.get(keyOf(modelKey, ids))?.kept ?? runKeepingQueries(model, modelKey, ids).kept;

// Frees what was kept for a model that is being freed.
export function forgetModel(modelKey) {
  for (const [key, { kept }] of [...store.entries()]) {
    if (!key.startsWith(`${modelKey}\n`)) continue;
    store.delete(key);
    kept.free();
  }
}

// Of the analyses kept for this model, the one whose ids share the longest prefix with ids: {key, kept, shared}
// (shared leading ids, at least one), or undefined.
function closestKept(modelKey, ids) {
  let best;
  for (const [key, entry] of store.entries()) {
    if (!key.startsWith(`${modelKey}\n`)) continue;
    const n = Math.min(entry.ids.length, ids.length);
    let shared = 0;
    while (shared < n && entry.ids[shared] === ids[shared]) shared++;
    if (shared > 0 && shared > (best?.shared ?? 0)) best = { key, kept: entry.kept, shared };
  }
  return best;
}
