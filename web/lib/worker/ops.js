// ops.js: the worker's operations, by name: what a request's op runs, in the engine's turns (turns.js) on the models
// it holds (residency.js). The analysis ops keep each analysed text's queries and keys in the engine (kept-queries.js),
// where the heads a view shows are computed from them.
import { plainLabel, tokenLabels } from '../shared/token-text.js';
import { setStallTimeout } from '../shared/downloads.js';
import { keptQueries, runKeepingQueries } from './kept-queries.js';
import { liveEngine, withEngine } from './turns.js';
import { describe, loadConverted, loadPicked, prefetch, residentBytes, residentModels, withModel } from './residency.js';

// The operations, by name. A page may add its own before it sends its first message (the tutorial's demos do,
// in web/tutorial/worker/tutorial-worker.js); each runs its wasm work through withEngine.
export const ops = {
  // -> {ok, build}: the engine's build (engine.js: SIMD128, and how many threads and why), for the page to say.
  async init() {
    return { ok: true, build: (await liveEngine()).build };
  },

  // Downloads give up after this many seconds without data (tests shorten it).
  async configure({ stallSeconds }) {
    if (stallSeconds !== undefined) setStallTimeout(stallSeconds);
    return { ok: true };
  },

  // Starts loading a model before anyone asks for it; a failure is reported to the loadModel that follows.
  async prefetch({ url }) {
    prefetch(url);
  },

  // text's ids (and labels) by model's tokenizer (a loaded model's key), or GPT-2's without one.
  async tokenize({ model: key, text, labels = true }, ctx) {
    const split = (tokenizer) => {
      const ids = [...tokenizer.tokenize(text).ids];
      return labels ? { ids, labels: tokenLabels(tokenizer, ids) } : { ids }; // (labels of 1,000 tokens take some 10 ms)
    };
    if (key === undefined) return withEngine('splitting the text into tokens', (e) => split(e.tokenizer));
    return withModel(key, ctx, () => 'splitting the text into tokens', ({ model }) => {
      if (!model.tokenizer) model.tokenize(text);  // throws: the model carries no tokenizer, and how to give it one
      return split(model.tokenizer);
    });
  },

  // Loads (or reuses) the model behind a URL: an .arcs file, or a model cached under that key.
  async loadModel({ url }, ctx) {
    return withModel(url, ctx, 'loading a model', () => describe(url));
  },

  // An .arcs file the user picked (a File or its bytes), loaded and cached under key (residency.js's loadPicked).
  async loadModelBytes({ bytes, key, name }, ctx) {
    return loadPicked({ bytes, key, name }, ctx);
  },

  // A Hugging Face checkpoint converted in the browser to dtype (default: the engine's for its config.json), cached
  // and loaded; its key says the format (residency.js's loadConverted).
  async convertModel({ source, key, name, dtype }, ctx) {
    return loadConverted({ source, key, name, dtype }, ctx);
  },

  // A forward pass over text (or ids): tokens, labels, the attention's shape [L, H, T, T], the next-token top-k, and
  // how many leading positions were not run again (reused: an edit of a kept analysis runs from its first change).
  // The token count goes out as progress {tokens} before the pass runs, so a page shows it (and, past the model's
  // context, why the text is refused) without a tokenize round trip of its own.
  // The attention itself stays in the engine, as every layer's queries and keys (kept-queries.js): the attention,
  // attentionTensor and attentionThumbnails ops compute the heads a view shows from them.
  async analyze({ model: key, text, ids, topk = 10 }, ctx) {
    let doing = 'splitting the text into tokens';
    return withModel(key, ctx, () => doing, ({ model }) => {
      if (!ids) ids = model.tokenize(text).ids;
      if (ids.length === 0) throw new Error('type some text first: there are no tokens to look at');
      ctx.progress?.({ tokens: ids.length });
      const { n_layer: L, n_head: H } = model.config;
      doing = `running the model on ${ids.length} tokens`;
      const { logits, first } = runKeepingQueries(model, key, ids);
      return { ids, labels: tokenLabels(model.tokenizer, ids), shape: [L, H, ids.length, ids.length], next: model.topk(logits, topk),
        reused: first };
    });
  },

  // One (T, T) attention matrix of analysed ids, the engine's own numbers: layer an index or 'mean' / 'max' over
  // layers, head an index or 'mean' / 'max' over heads (layers first, as attention-math.js's viewMatrix), computed in
  // the engine in one call.
  // -> {data: Float32Array (T * T), shape: [T, T]}
  async attention({ model: key, ids, layer, head }, ctx) {
    return withModel(key, ctx, `computing attention on ${ids.length} tokens`, ({ model }) => {
      const { n_layer: L, n_head: H } = model.config;
      checkChoice('layer', layer, L, ['mean', 'max']);
      checkChoice('head', head, H, ['mean', 'max']);
      const data = model.keptAttention(keptQueries(model, key, ids), layer, head);
      return { data, shape: [ids.length, ids.length] };
    });
  },

  // Every head of every layer of analysed ids, [L, H, T, T] flat, as forward({attention: true}) captures it: for
  // short texts only (GPT-2 small on 1,024 tokens would be 604 MB). -> {data, shape}
  async attentionTensor({ model: key, ids }, ctx) {
    return withModel(key, ctx, `computing attention on ${ids.length} tokens`, ({ model }) => {
      const { n_layer: L, n_head: H } = model.config, T = ids.length;
      const kept = keptQueries(model, key, ids), data = new Float32Array(L * H * T * T);
      for (let l = 0; l < L; l++) {
        for (let h = 0; h < H; h++) data.set(model.keptAttention(kept, l, h), (l * H + h) * T * T);
      }
      return { data, shape: [L, H, T, T] };
    });
  },

  // Every head's attention on analysed ids max-pooled to at most size x size, for thumbnails: one layer at a time as
  // progress {layer, size, data: Float32Array (H * size * size)}. Each head is one turn of the engine, so a view
  // asked for meanwhile waits for one head, not for all of them; a 'cancel' stops it. -> {shape: [L, H, size, size]}
  async attentionThumbnails({ model: key, ids, size = 64 }, ctx) {
    const T = ids.length, s = Math.min(size, T);
    const { n_layer: L, n_head: H } = await withModel(key, ctx, 'drawing thumbnails', ({ model }) => model.config);
    for (let l = 0; l < L; l++) {
      const data = new Float32Array(H * s * s);
      for (let h = 0; h < H; h++) {
        await nextMessage(); // the turns alone chain as microtasks: a request posted meanwhile would wait for them all
        await withModel(key, ctx, `drawing thumbnails of ${T} tokens`, ({ model }) => {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          data.set(model.keptThumbnail(keptQueries(model, key, ids), l, h, s), h * s * s);
        });
      }
      ctx.progress({ layer: l, size: s, data });
    }
    return { shape: [L, H, s, s] };
  },

  // model.runWithCache in the worker: the activations named (TransformerLens hook names, an array), for ids or for a
  // text tokenized as TransformerLens's to_tokens does (the model's BOS first, where its tokenizer has one: GPT-2's
  // <|endoftext|>, Llama 2's <s>; unless prependBos is false).
  // -> {ids, tokens (each token's text), logits (the last position's), cache: {name: {data, shape}}}
  async runWithCache({ model: key, ids, text, prependBos = true, names }, ctx) {
    return withModel(key, ctx, 'running the model with a cache', ({ model }) => {
      ids ??= model.toTokens(text, { prependBos });
      const { logits, cache } = model.runWithCache(ids, { names, allLogits: false });
      return { ids, tokens: model.toStrToks(ids), logits, cache };
    });
  },

  // The models in wasm memory, least recently used first: [{key, name, size, config, notes}].
  async models() {
    return residentModels();
  },

  // The engine's memory: {wasmBytes (it grows and never shrinks: the peak so far), modelBytes (the models in it)}.
  async memory() {
    const e = await liveEngine();
    return { wasmBytes: e.core.HEAP8.buffer.byteLength, modelBytes: residentBytes() };
  },

  async headScores({ model: key }, ctx) {
    return withModel(key, ctx, 'scoring the heads', ({ model }) => model.headScores());
  },

  // model.ablationSweep on a text (or ids): the metric logit(answer) - logit(wrong) at the last position with each
  // head ablated alone ('zero', or 'mean' over the positions); answer and wrong are one token each, as text or id.
  // A batch of variants at a time: progress {layersDone, layers} after each, and a 'cancel' stops it between two.
  // -> {ids, labels, baseline, heads: {data (L * H), shape: [L, H]}}
  async ablationSweep({ model: key, text, ids, answer, wrong, kind = 'zero' }, ctx) {
    return withModel(key, ctx, 'ablating heads', async ({ model }) => {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      ids ??= model.tokenize(text).ids;
      const { baseline, heads } = await model.ablationSweepInSteps({ input: ids, answer, wrong, kind }, betweenSteps(ctx));
      return { ids, labels: tokenLabels(model.tokenizer, ids), baseline, heads };
    });
  },

  // Generates token by token with the KV cache: each new token arrives as progress with its attention row for
  // every layer and head ([L, H, T]), so the page grows the arcs as it goes. A 'cancel' stops after the current token.
  // The whole generation is one turn: nothing else may touch the model's KV cache meanwhile.
  async generate({ model: key, ids, maxTokens = 20, temperature = 0, topK = 40, topP = 1, seed = 1 }, ctx) {
    if (ids.length === 0) throw new Error('generation needs at least one token of text');
    return withModel(key, ctx, 'generating text', async ({ model }) => {
      const all = [...ids];
      const result = await model.generate({
        ids, maxTokens, temperature, topK, topP, seed, attention: true,
        onToken: async ({ id, attention, attentionShape }) => {
          all.push(id);
          const labels = tokenLabels(model.tokenizer, all);
          ctx.progress({ id, text: model.tokenizer?.decode(all) ?? labels.map(plainLabel).join(''), labels, row: attention,
            rowShape: attentionShape });
          await nextTask(); // lets a 'cancel' message in
          return !ctx.signal.aborted;
        },
      });
      return { ids: all, stop: result.stop };
    });
  },
};

// A layer or head as the attention op takes it: an index below n or one of words.
function checkChoice(name, value, n, words) {
  if (words.includes(value) || (Number.isInteger(value) && value >= 0 && value < n)) return;
  throw new Error(`${name} must be an integer from 0 to ${n - 1}, ${words.map((w) => `'${w}'`).join(' or ')}; got ${JSON.stringify(value)}`);
}

const nextTask = () => new Promise((ok) => setTimeout(ok, 0));

// The onStep of a sweep in steps (model.js) in a request: reports how far it got, then lets a 'cancel' in.
export const betweenSteps = (ctx) => async (progress) => {
  ctx.progress?.(progress);
  await nextTask();
  if (ctx.signal?.aborted) throw ctx.signal.reason;
};

// Lets the messages already posted to the worker in first, without setTimeout's 4 ms clamp on chained timers.
function nextMessage() {
  const { port1, port2 } = new MessageChannel();
  return new Promise((ok) => { port1.onmessage = () => { port1.close(); ok(); }; port2.postMessage(0); });
}
