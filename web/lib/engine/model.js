// model.js: a loaded model (.arcs file) as plain JavaScript values: the Model class, and loadModel for a file's bytes.
// load-stream.js loads a file as it arrives, convert.js converts a checkpoint; both hand back a Model made here.
//
//   const model = loadModel(core, bytes, tokenizer);     // engine.loadModel(bytes) calls this
//   model.config                                       // {architecture, n_layer, n_head, n_kv_head, ..., dtype, kvCache}
//   const r = model.forward(model.tokenize('The trophy').ids, {attention: true});
//   r.attention[((l * H + h) * T + i) * T + j]         // layer l, head h: how much token i looks at token j
//   model.topk(r.logits, 5)                            // [{id, token, prob}]
//   await model.generate({ids, maxTokens: 20, temperature: 0.8, topK: 40, seed: 1, onToken})
//
// The model's bytes are copied once into wasm memory and used there in place (or converted there, and used where
// the converter put them: convertToModel). Results are fresh typed arrays
// owned by JavaScript; C++ errors arrive as Errors with the same message.
import { engineCall, numberArg, integerArg } from './calls.js';
import { wrapHfTokenizer } from './tokenizer.js';

const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle) => { if (!handle.isDeleted()) handle.delete(); })
  : null;

// A hooks array as the engine must read it, checked before it goes in. The engine reads an array's length as a 32-bit
// integer, so a sparse array of length 2^31 or more would apply no hook at all: any hole is refused, which covers
// every such array (none that long can be dense). An empty heads or positions list is refused too: to the engine it
// would mean every head or position; leaving the list out is the way to say that. The rest (each hook's name, its
// lists' numbers, ablate or values) the engine checks and names.
function checkHooks(hooks) {
  if (!Array.isArray(hooks)) return;
  for (let i = 0; i < hooks.length; i++) {
    if (!(i in hooks)) {
      throw new Error(`hooks[${i}] is missing: hooks must be an array without holes, got a sparse array of length ` +
        `${hooks.length}`);
    }
    const spec = hooks[i];
    if (spec === null || typeof spec !== 'object') continue;
    for (const [key, all] of [['heads', 'every head'], ['positions', 'every position']]) {
      const list = spec[key];
      if ((Array.isArray(list) || ArrayBuffer.isView(list)) && list.length === 0) {
        throw new Error(`hooks[${i}].${key} is empty, which selects nothing: leave ${key} out to change ${all}, or ` +
          'list at least one');
      }
    }
  }
}

// An analysis's queries and keys in the engine (Model.keepQueries): length (positions held), bytes (what they take
// in wasm memory), live, and free().
export class KeptQueries {
  constructor(handle) {
    this.handle = handle;
    registry?.register(this, handle, this);
  }

  get live() { return !this.handle.isDeleted(); }
  get length() { return keptHandle(this).length(); }
  get bytes() { return keptHandle(this).bytes(); }
  free() {
    if (this.handle.isDeleted()) return;
    registry?.unregister(this);
    this.handle.delete();
  }
}

// kept's handle in the engine, or an Error saying why there is none.
function keptHandle(kept) {
  if (!(kept instanceof KeptQueries)) throw new Error(`kept must be what model.keepQueries() returned, got ${typeof kept}`);
  if (kept.handle.isDeleted()) throw new Error('these kept queries and keys have been freed');
  return kept.handle;
}

export class Model {
  // Use loadModel(); `handle` is the core's Model, `tokenizer` the engine's GPT-2 one (tokenize, tokenText).
  constructor(core, handle, tokenizer) {
    this.core = core;
    this.handle = handle;
    const { fileBytes, ...config } = handle.config();
    this.config = config;
    this.fileBytes = fileBytes;
    // GPT-2's tokenizer serves GPT-2 models only (config.tokenizer 'gpt2'): its ids would be other tokens in other
    // vocabularies. The others read text with the tokenizer their file carries ('carried'), or take ids ('none').
    this.#gpt2Tokenizer = config.tokenizer === 'gpt2' ? tokenizer : null;
    registry?.register(this, handle, this);
  }

  #gpt2Tokenizer = null;
  #carriedTokenizer = null;

  // The tokenizer the model's text goes through, or null (ids only). The one a file carries is read on first use.
  get tokenizer() {
    if (this.config.tokenizer === 'carried' && !this.#carriedTokenizer && this.live) {
      this.#carriedTokenizer = wrapHfTokenizer(
        engineCall('reading the tokenizer the model carries', () => this.handle.carriedTokenizer()));
    }
    return this.#gpt2Tokenizer ?? this.#carriedTokenizer;
  }

  // The method under way that awaits between its steps (generate, a sweep in steps), or null: the model's KV cache
  // and sampler are its own until it returns.
  #busy = null;

  get live() { return !this.handle.isDeleted(); }
  #check() { if (this.handle.isDeleted()) throw new Error('this model has been freed'); }
  // Before a method that runs the model or changes it (its KV cache, the generation under way, its memory): inside
  // generate()'s onToken such a call would change the generated text, so it is refused and the generation goes on.
  #idle(method) {
    this.#check();
    if (this.#busy === 'generate') {
      throw new Error(`model.${method}: the model is generating; call it after generate() returns (or return false ` +
        'from onToken to stop the generation)');
    }
    if (this.#busy) {
      throw new Error(`model.${method}: the model is running ${this.#busy}(); call it after that returns (or return ` +
        'false from onStep to stop the sweep)');
    }
  }

  // text -> {ids, tokens} with the model's tokenizer, without special tokens (as Hugging Face's
  // add_special_tokens=False; toTokens prepends the BOS)
  tokenize(text) {
    return this.#tokenizer().tokenize(text);
  }

  // The tokenizer text goes through, or an Error saying why there is none.
  #tokenizer() {
    this.#check();
    const tokenizer = this.tokenizer;
    if (tokenizer) return tokenizer;
    if (this.config.tokenizer === 'none') {
      throw new Error(`this ${this.config.architecture} model carries no tokenizer: give token ids, or convert it ` +
        "again with its tokenizer's files (convertCheckpoint's tokenizerFiles; tokenizer.json beside the checkpoint " +
        'for arcscope convert)');
    }
    throw new Error('no tokenizer: load the model through engine.loadModel()');
  }

  // ids -> {logits: Float32Array, logitsShape: [rows, n_vocab], attention: Float32Array|null,
  //         attentionShape: [n_layer, n_head, T, T]|null}. rows = 1 (last position) unless allLogits.
  // Restarts the KV cache with these ids, so append() continues after them.
  forward(ids, { attention = true, allLogits = false } = {}) {
    this.#idle('forward');
    return engineCall(`running the model on ${ids?.length} tokens`,
      () => this.handle.forward(ids, !!attention, !!allLogits));
  }

  // -- TransformerLens names (include/arcscope/model/hooks.h) --
  // Every hook name of this model, in the order the pass reaches them: blocks.{l}.hook_resid_pre, .attn.hook_q, ...
  get hookNames() {
    this.#check();
    return this.handle.hookNames();
  }

  // As TransformerLens's run_with_cache: one pass that records the activations named (an array of hook names, or a
  // filter name => boolean; default: every one). -> {logits (T x n_vocab, or the last row without allLogits),
  // logitsShape, cache: {name: {data: Float32Array, shape}}, first}, shapes as TransformerLens's without the batch:
  // hook_pattern [H, T, T], hook_q/hook_rot_q/hook_z [T, H, d_head], hook_k/hook_v/hook_rot_k [T, n_kv_head, d_head],
  // resid/attn_out/mlp_out/ln_final [T, C], mlp.hook_post [T, d_mlp]. Only the names asked for cost anything.
  // Restarts the KV cache.
  // With reuse: n, up to n leading positions are kept from the KV cache where the model's last passes left these
  // very tokens (an edit near the end of a long text then costs only what follows it), and first says how many
  // were: the logits and the cache then hold positions first..T only ([T - first, ...], the pattern
  // [H, T - first, T]), the same bits as a full pass gives at those positions. first is 0 without reuse.
  runWithCache(ids, { names = null, allLogits = true, reuse = 0 } = {}) {
    this.#idle('runWithCache');
    const wanted = names === null ? this.hookNames
      : typeof names === 'function' ? this.hookNames.filter((n) => names(n)) : names;
    const r = engineCall(`running the model on ${ids?.length} tokens`,
      () => this.handle.runWithCache(ids, wanted, !!allLogits, reuse));
    return { logits: r.logits, logitsShape: r.logitsShape, cache: r.cache, first: r.first };
  }

  // One layer's attention probabilities from its cached queries and keys (that layer's hooks named by
  // config.patternHooks: hook_q and hook_k, or hook_rot_q and hook_rot_k where positions rotate; Float32Arrays of
  // T x n_head d_head and T x n_kv_head d_head) -> Float32Array of head's [T, T] (query rows, zeros above the
  // diagonal), or with head omitted every head's [H, T, T]. The same bits as forward(ids, {attention: true}) for that
  // layer: a viewer can keep q and k rather than every head's T x T, and compute the heads it shows.
  attentionPattern(q, k, head = null) {
    this.#check();
    return engineCall('computing an attention pattern', () => this.handle.attentionPattern(q, k, head));
  }

  // One head of the same max-pooled to size x size (1 <= size <= T): cell (r, c) the largest probability of the
  // query rows i and keys j with floor(i * size / T) = r and floor(j * size / T) = c. The T x T is never held.
  attentionThumbnail(q, k, head, size) {
    this.#check();
    return engineCall('computing an attention thumbnail', () => this.handle.attentionThumbnail(q, k, head, size));
  }

  // -- kept queries and keys (include/arcscope/model/kept_queries.h): a viewer's analyses, kept in the engine --
  // An empty holder of this model's queries and keys, for runKeepingQueries; free it (kept.free()) when done.
  // Every layer's queries and keys of a text are 2 T (n_head + n_kv_head) d_head floats a layer, 75 MB for GPT-2
  // small at 1,024 tokens, rather than every head's T x T (604 MB).
  keepQueries() {
    this.#check();
    return new KeptQueries(engineCall('keeping queries and keys', () => this.handle.keepQueries()));
  }

  // One pass over ids that writes every layer's queries and keys (the hooks of config.patternHooks) into kept, in
  // place, and records nothing else. With reuse: n, up to n leading positions are kept from the KV cache where the
  // model's last passes left these very tokens and from kept's own rows, which must then be those of these ids'
  // first n (kept held a text that shares them: an edit of it). -> {logits (the last position's), logitsShape,
  // first (the positions not run again)}. Restarts the KV cache.
  runKeepingQueries(ids, kept, { reuse = 0 } = {}) {
    this.#idle('runKeepingQueries');
    const handle = keptHandle(kept);
    const r = engineCall(`running the model on ${ids?.length} tokens`,
      () => this.handle.runKeepingQueries(ids, handle, reuse));
    return { logits: r.logits, logitsShape: r.logitsShape, first: r.first };
  }

  // The (T, T) attention of kept's text at layer and head, each an index or 'mean' / 'max' over all of them
  // (layers first, then heads; the same aggregate over both takes every head at once: attention-math.js's
  // viewMatrix, the same bits), computed in the engine in one call.
  // -> Float32Array (query rows, zeros above the diagonal)
  keptAttention(kept, layer, head) {
    this.#check();
    const handle = keptHandle(kept);
    return engineCall('computing attention', () => this.handle.keptAttention(handle, layer, head));
  }

  // One head of kept's layer max-pooled to size x size, as attentionThumbnail. -> Float32Array
  keptThumbnail(kept, layer, head, size) {
    this.#check();
    const handle = keptHandle(kept);
    return engineCall('computing an attention thumbnail', () => this.handle.keptThumbnail(handle, layer, head, size));
  }

  // As TransformerLens's to_tokens: the model's tokens of text, with its BOS first when prependBos and its tokenizer
  // has one (GPT-2's <|endoftext|>, Llama's <s> or <|begin_of_text|>; Qwen's has none). TransformerLens prepends it
  // by default; engine.tokenize and the page do not, as Hugging Face's tokenizer does not.
  toTokens(text, { prependBos = true } = {}) {
    const { ids } = this.tokenize(text);
    const bos = this.tokenizer.bosId;
    return prependBos && bos >= 0 ? [bos, ...ids] : ids;
  }

  // As TransformerLens's to_str_tokens: each token's text, for ids or for a text (tokenized as toTokens does).
  toStrToks(input, { prependBos = true } = {}) {
    const ids = typeof input === 'string' ? this.toTokens(input, { prependBos }) : input;
    return Array.from(ids, (id) => this.#tokenText(id));
  }
  // -- end TransformerLens names --

  // -- interventions (include/arcscope/analysis/interventions.h), inside the engine's pass --
  // ids through the model with hooks that change it: [{hook: 'blocks.1.attn.hook_z', heads: [0], positions: [3],
  // ablate: 'zero' | 'mean'}, or {..., values} (the activation to put in, in the hook's full shape)]; mean ablation
  // takes each column's mean over the positions of a clean run of the same ids. -> {logits, logitsShape} as forward's.
  runWithHooks(ids, hooks, { allLogits = false } = {}) {
    this.#idle('runWithHooks');
    checkHooks(hooks);
    return engineCall(`running the model with hooks on ${ids?.length} tokens`,
      () => this.core.runWithHooks(this.handle, ids, hooks, !!allLogits));
  }

  // Activation patching from clean into corrupted (texts or ids of the same length), the metric being
  // logit(answer) - logit(wrong) at the last position (answer, wrong: one token each, as text or id).
  // -> {clean, corrupted, firstDifference, heads: {data (L * H), shape}, resid: {data (L * T), shape}}, each effect
  // normalised so that the clean prompt scores 1 and the corrupted 0.
  patchingSweep({ clean, corrupted, answer, wrong, prependBos = true } = {}) {
    this.#idle('patchingSweep');
    return engineCall('patching activations', () => this.core.patchingSweep(this.handle, this.#ids(clean, prependBos),
      this.#ids(corrupted, prependBos), this.#token(answer, 'answer'), this.#token(wrong, 'wrong')));
  }

  // The metric with each head ablated alone at hook_z ('zero', or 'mean' over the positions). -> {baseline,
  // heads: {data (L * H), shape}}
  ablationSweep({ input, answer, wrong, kind = 'zero', prependBos = true } = {}) {
    this.#idle('ablationSweep');
    return engineCall('ablating heads', () => this.core.ablationSweep(this.handle, this.#ids(input, prependBos),
      this.#token(answer, 'answer'), this.#token(wrong, 'wrong'), kind));
  }

  // The same two sweeps a step at a time (a batch of one layer's variants), for a page that shows progress or lets a
  // user cancel: after each step, `await onStep({layersDone, layers})`; returning false stops the sweep (-> null), and
  // an error thrown there stops it with that error. Like generate(), the model is the sweep's until it returns.
  // -> the result as above.
  // Both are async functions, so every refusal (a busy or freed model, a bad argument) rejects, as generate()'s do,
  // and never throws before a promise exists.
  async patchingSweepInSteps({ clean, corrupted, answer, wrong, prependBos = true } = {}, onStep = null) {
    this.#idle('patchingSweepInSteps');
    return this.#inSteps('patchingSweepInSteps', 'patching activations', () => this.core.SweepSteps.patching(
      this.handle, this.#ids(clean, prependBos), this.#ids(corrupted, prependBos), this.#token(answer, 'answer'),
      this.#token(wrong, 'wrong')),
    onStep);
  }

  async ablationSweepInSteps({ input, answer, wrong, kind = 'zero', prependBos = true } = {}, onStep = null) {
    this.#idle('ablationSweepInSteps');
    return this.#inSteps('ablationSweepInSteps', 'ablating heads', () => this.core.SweepSteps.ablation(this.handle,
      this.#ids(input, prependBos), this.#token(answer, 'answer'), this.#token(wrong, 'wrong'), kind), onStep);
  }

  async #inSteps(method, doing, start, onStep) {
    const steps = engineCall(doing, start);
    this.#busy = method;
    try {
      while (!steps.done()) {
        engineCall(doing, () => steps.next());
        const progress = { layersDone: steps.layersDone(), layers: this.config.n_layer };
        if (onStep && (await onStep(progress)) === false) return null;
      }
      return engineCall(doing, () => steps.result());
    } finally {
      this.#busy = null;
      steps.delete();
    }
  }

  // Each layer's residual stream through ln_final and the unembedding. -> {shape: [L, T, k], topIds, topProbs
  // (flat in that shape), top: [l][t] = [{id, token, prob}], target: Float32Array (L * T) | null}. k: 1 to 100;
  // target: a token (id or text), or null for none (the engine reads a negative id as none, so one is refused here).
  logitLens(input, { k = 5, target = null, prependBos = true } = {}) {
    this.#idle('logitLens');
    numberArg(k, 'k');
    const targetId = target === null ? -1 : this.#token(target, 'target');
    if (target !== null && targetId < 0) {
      throw new Error(`target must be an integer in [0, ${this.config.n_vocab - 1}] (or null for none), got ${target}`);
    }
    const r = engineCall('reading the logit lens', () => this.core.logitLens(this.handle, this.#ids(input, prependBos),
      k, targetId));
    const [L, T, K] = r.shape;
    r.top = Array.from({ length: L }, (_, l) => Array.from({ length: T }, (_, t) => Array.from({ length: K }, (_, i) => {
      const at = (l * T + t) * K + i;
      return { id: r.topIds[at], token: this.#tokenText(r.topIds[at]), prob: r.topProbs[at] };
    })));
    return r;
  }

  // The token's logit at the position (default: the last) split into the embedding's, each head's, each attention
  // bias's, each MLP's and ln_final's bias's share, as TransformerLens's apply_ln_to_stack reads them.
  // -> {logit, parts: [{name, value}]}; the values add up to the logit (in q8 and q16 to within their rounding).
  directLogitAttribution(input, { token, position = -1, prependBos = true } = {}) {
    this.#idle('directLogitAttribution');
    numberArg(position, 'position');
    return engineCall('attributing the logit', () => this.core.directLogitAttribution(this.handle,
      this.#ids(input, prependBos), this.#token(token, 'token'), position));
  }

  // A text's ids as toTokens gives them (<|endoftext|> first unless prependBos is false, TransformerLens's
  // prepend_bos), or ids as they are.
  #ids(input, prependBos) { return typeof input === 'string' ? this.toTokens(input, { prependBos }) : input; }

  // One token, as text (' Mary') or id (the engine checks it is in the vocabulary).
  #token(value, what) {
    if (typeof value !== 'string') return numberArg(value, what, "a token id or one token's text");
    return this.#tokenizer().singleToken(value, what);
  }
  // -- end interventions --

  // One more token through the KV cache: {logits (n_vocab), attention: one row per layer and head
  // (n_layer * n_head * length), attentionShape: [n_layer, n_head, length]}.
  append(id, { attention = true } = {}) {
    this.#idle('append');
    return engineCall('appending a token', () => this.handle.append(id, !!attention));
  }

  reset() { this.#idle('reset'); this.handle.reset(); }
  get length() { this.#check(); return this.handle.length(); }

  // logits (n_vocab, or the last row of a forward result) -> [{id, token, prob}], most likely first
  topk(logits, k = 10) {
    numberArg(k, 'k');
    const n = this.config.n_vocab;
    const last = logits.length > n ? logits.subarray(logits.length - n) : logits;
    return this.core.topK(last, k).map(({ id, prob }) => ({ id, token: this.#tokenText(id), prob }));
  }

  // Samples up to maxTokens tokens after ids through the KV cache. onToken({id, token, index, attention,
  // attentionShape}) sees each one (attention rows only if `attention`); returning false stops (it may be async).
  // Stops early at the end of a text (the tokenizer's eosId: GPT-2's <|endoftext|>; none for a model without a
  // tokenizer, whose end is not known) or when the context (n_ctx) is full.
  // -> {ids: the new ids, text, stop: 'max_tokens' | 'end_of_text' | 'context_full' | 'callback'}
  async generate({ ids, maxTokens = 20, temperature = 1, topK = 0, topP = 1, seed = 0, attention = false,
    onToken = null } = {}) {
    this.#idle('generate');
    for (const [what, value] of Object.entries({ maxTokens, temperature, topK, topP, seed })) numberArg(value, what);
    engineCall(`running the model on ${ids?.length} tokens`,
      () => this.handle.startGeneration(ids, maxTokens, temperature, topK, topP, seed, this.tokenizer?.eosId ?? -1));
    const made = [];
    this.#busy = 'generate';
    try {
      for (;;) {
        // One step of the engine's generation loop (sampling.h): sample, then feed the token through the KV cache,
        // so its attention row is ready for onToken and its logits for the next step.
        const step = engineCall('generating a token', () => this.handle.generationStep(!!attention));
        if (step.id === null) return this.#generated(made, step.stop);
        made.push(step.id);
        if (onToken) {
          const keep = await onToken({ id: step.id, token: this.#tokenText(step.id), index: made.length - 1,
            attention: step.attention, attentionShape: step.attentionShape });
          if (keep === false) return this.#generated(made, 'callback');
        }
      }
    } finally {
      this.#busy = null;
    }
  }

  #generated(made, stop) {
    return { ids: made, text: this.tokenizer ? this.tokenizer.decode(made) : null, stop };
  }

  // -- head analysis (include/arcscope/analysis/heads.h, perplexity.h) --
  // Scores every head on `length` random tokens repeated twice (drawn, seeded, from `candidates` ids, default every
  // id but end-of-text): -> {previousToken, firstToken, induction: Float32Array (n_layer * n_head), shape: [L, H],
  // length}. Index [l * H + h]. Restarts the KV cache.
  headScores({ seed = 0, length = 0, candidates = null } = {}) {
    this.#idle('headScores');
    integerArg(seed, 'headScores: seed', 0, Number.MAX_SAFE_INTEGER);
    // 0 is the default length; the engine would read a negative one as 0 too, so the rest are refused here.
    if (length !== 0) integerArg(length, 'headScores: length', 2, Math.floor(this.config.n_ctx / 2));
    return engineCall('scoring the heads', () => this.core.headScores(this.handle,
      candidates ?? null, length, seed));
  }

  // ids -> {nll (nats per predicted token), perplexity, predicted}, scored in windows of n_ctx (or `window`).
  perplexity(ids, { window = 0 } = {}) {
    this.#idle('perplexity');
    numberArg(window, 'window');
    return engineCall(`measuring perplexity over ${ids?.length} tokens`,
      () => this.core.perplexity(this.handle, ids, window));
  }
  // -- end head analysis --

  // The KV cache's format from now on: 'f32', or 'f16' (half the memory; results move about as much as q8 weights
  // already move them). The cached positions are cleared.
  setKVCache(format) {
    this.#idle('setKVCache');
    engineCall('changing the KV cache', () => this.handle.setKVCache(format));
    this.config.kvCache = this.handle.config().kvCache;
  }

  // The model's .arcs file as a ReadableStream of copies of at most chunkBytes each (an integer from 1 byte to 1 GB),
  // read from the engine's memory as they are pulled (for Cache Storage: new Response(model.fileStream())), so no
  // whole copy is ever made. It errors if the model is freed before the end.
  fileStream({ chunkBytes = 4 << 20 } = {}) {
    this.#check();
    integerArg(chunkBytes, 'fileStream: chunkBytes', 1, MAX_CHUNK_BYTES);
    const handle = this.handle, pages = handle.filePageCount();
    let page = 0, at = 0;
    return new ReadableStream({
      pull(controller) {
        if (handle.isDeleted()) throw new Error('the model was freed while its file was being read');
        if (page >= pages) { controller.close(); return; }
        const view = handle.filePage(page);
        const end = Math.min(view.length, at + chunkBytes);
        controller.enqueue(view.slice(at, end));  // a copy: the view dies when wasm memory grows
        if (end === view.length) page++, at = 0;
        else at = end;
      },
    }, { highWaterMark: 0 });
  }

  free() {
    if (this.#busy) this.#idle('free');
    if (!this.handle.isDeleted()) this.handle.delete();
    this.#carriedTokenizer?.free();
    this.#carriedTokenizer = null;
    registry?.unregister(this);
  }

  #tokenText(id) {
    return this.tokenizer && id < this.tokenizer.vocabSize ? this.tokenizer.tokenText(id) : `<${id}>`;
  }
}

// The largest chunk fileStream hands out: each is a copy in JavaScript.
const MAX_CHUNK_BYTES = 1 << 30;

// bytes (Uint8Array of an .arcs file) -> Model. The bytes are validated (every field, size and the checksum)
// before anything trusts them.
// options.kvCache: 'f32' (default) or 'f16', half the KV cache's memory (38 MB less for GPT-2 small at 1,024
// tokens) for results that move about as much as q8 weights already move them (include/arcscope/model/kv_cache.h).
export function loadModel(core, bytes, tokenizer = null, { kvCache = 'f32' } = {}) {
  if (!(bytes instanceof Uint8Array)) {
    if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
    else throw new TypeError('loadModel expects the model file as a Uint8Array or ArrayBuffer');
  }
  return modelFromHandle(core, engineCall('loading a model', () => core.Model.fromBytes(bytes)), tokenizer, kvCache);
}

// A core Model handle as a Model, with its KV cache in kvCache's format.
export function modelFromHandle(core, handle, tokenizer, kvCache) {
  try {
    if (kvCache !== 'f32') handle.setKVCache(kvCache);
  } catch (error) {
    handle.delete();
    throw error;
  }
  return new Model(core, handle, tokenizer);
}
