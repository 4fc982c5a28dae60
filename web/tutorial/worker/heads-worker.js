// heads-worker.js: section 7's operations in the tutorial's worker, beside the library's ablationSweep and analyze
// (lib/worker/ops.js). Each is one call into the engine's interventions (lib/engine/model.js), run in the engine's turn on the
// page's model; the page runs them one after another, so each is a step of its progress and a cancel stops the run
// between them, and inside a sweep between two of its batches. An operation cancelled while it waited for its turn
// does not start.
import { betweenSteps, withModel } from '../../lib/worker/worker.js';
import { tokenLabels } from '../../lib/shared/token-text.js';

// Runs work(model, engine) on the model behind key unless the request was cancelled before its turn came.
function step(key, ctx, what, work) {
  return withModel(key, ctx, what, ({ model }, e) => {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return work(model, e);
  });
}

export const headsOps = {
  // model.patchingSweep, with both prompts' ids and labels, a step at a time (progress after each; a cancel stops it
  // between two).
  // -> {ids, corruptedIds, labels, clean, corrupted, firstDifference, heads: {data, shape}, resid: {data, shape}}
  patchingSweep: ({ model: key, clean, corrupted, answer, wrong }, ctx) =>
    step(key, ctx, 'patching activations', async (model) => {
      const ids = model.tokenize(clean).ids, corruptedIds = model.tokenize(corrupted).ids;
      const r = await model.patchingSweepInSteps({ clean: ids, corrupted: corruptedIds, answer, wrong }, betweenSteps(ctx));
      return { ids, corruptedIds, labels: tokenLabels(model.tokenizer, ids), ...r };
    }),

  // model.logitLens: -> {shape [L, T, k], top [l][t] = [{id, token, prob}], target (L * T) | null, targetId}
  logitLens: ({ model: key, ids, k = 3, target = null }, ctx) =>
    step(key, ctx, 'reading the logit lens', (model) => {
      const { shape, top, target: probs } = model.logitLens(ids, { k, target });
      const targetId = target === null || typeof target === 'number' ? target : model.tokenize(target).ids[0];
      return { shape, top, target: probs, targetId };
    }),

  // model.directLogitAttribution: -> {logit, parts: [{name, value}], token (its id), position}
  directLogitAttribution: ({ model: key, ids, token, position = -1 }, ctx) =>
    step(key, ctx, 'attributing the logit', (model) => {
      const id = typeof token === 'number' ? token : model.tokenize(token).ids[0];
      return { ...model.directLogitAttribution(ids, { token, position }), token: id, position };
    }),

  // What the model predicts with one head ablated, against the plain run: at each position the probability of the
  // token that comes next in ids (and of answer after the last), and the top 5 after the last position.
  // -> {next: ids of those tokens, intact, ablated: Float32Array (T), topIntact, topAblated: [{id, token, prob}]}
  headKnockout: ({ model: key, ids, layer, head, kind = 'zero', answer }, ctx) =>
    step(key, ctx, `ablating layer ${layer} head ${head}`, (model) => {
      const V = model.config.n_vocab, T = ids.length;
      const next = [...ids.slice(1), model.tokenize(answer).ids[0]];
      const plain = model.forward(ids, { attention: false, allLogits: true }).logits;
      const hooks = [{ hook: `blocks.${layer}.attn.hook_z`, heads: [head], ablate: kind }];
      const ablated = model.runWithHooks(ids, hooks, { allLogits: true }).logits;
      const probs = (logits) => Float32Array.from({ length: T }, (_, t) => softmaxAt(logits.subarray(t * V, (t + 1) * V), next[t]));
      const last = (logits) => logits.subarray((T - 1) * V);
      return { next, intact: probs(plain), ablated: probs(ablated), topIntact: model.topk(last(plain), 5),
        topAblated: model.topk(last(ablated), 5) };
    }),
};

function softmaxAt(row, id) {
  let max = -Infinity, sum = 0;
  for (const v of row) if (v > max) max = v;
  for (const v of row) sum += Math.exp(v - max);
  return Math.exp(row[id] - max) / sum;
}
