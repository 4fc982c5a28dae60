// measure.mjs: one system's run of the benchmark (bench.mjs), the same code in Node 20 and in the browser page, and the
// ways to run each system that accuracy.mjs shares. Each run: load (bytes in memory -> ready), a warm-up, prefill
// over T = 8, 64, 256, 1024, decode, memory. A lean run (the benchmarks per model size and per architecture) keeps
// load, prefill at T = 256 (or the lengths it names), decode and memory only.
//   arcscope: forward(ids) without attention (last position's logits), once more at T = 64 with every head's
//             attention captured; decode = 64 append()s through the KV cache after a 64-token prompt.
//   ONNX Runtime Web: session.run over ids (1, T) -> last position's logits (the last-position graph); decode = the
//             decoder graph with past key/values (a second session), 64 single-token runs after a 64-token prompt,
//             each feeding the presents back, as a generation loop (transformers.js) does.

export const prefillLengths = [8, 64, 256, 1024];
export const leanPrefillLengths = [256];
export const liveLengths = [256, 512, 1024];
export const decodePrompt = 64;
export const decodeTokens = 64;

const now = () => performance.now();
const streamReadCap = 256 * 2 ** 20;

// n deterministic token ids spread over the vocabulary (the content does not change the work done); below 50,000
// (GPT-2's ids as they always were) or the vocabulary's size where it is smaller (SmolLM2's 49,152).
export function benchIds(n, offset = 0, vocab = 50257) {
  return Array.from({ length: n }, (_, i) => ((i + offset) * 7919 + 13) % Math.min(vocab, 50000));
}

// Bytes of int8 weights (with their scales) that one decoded token reads: every layer's matrices (Q, K and V with
// the key/value heads' rows, the output projection, the MLP's two or, gated, three) and the tied LM head, in
// quant.h's packing (records of 8 rows x 32 cols = 288 bytes). config: model.config.
export function q8BytesPerToken({ n_layer, n_embd, n_vocab, n_head, n_kv_head = n_head, d_head = n_embd / n_head,
  d_mlp = 4 * n_embd, mlp }) {
  const packed = (rows, cols) => Math.ceil(rows / 8) * Math.ceil(cols / 32) * 288;
  const C = n_embd, F = d_mlp;
  const layer = packed((n_head + 2 * n_kv_head) * d_head, C) + packed(C, n_head * d_head) +
    (mlp === 'swiglu' ? 2 : 1) * packed(F, C) + packed(C, F);
  return n_layer * layer + packed(n_vocab, C);
}

// Bytes of the KV cache at T positions: keys and values of every layer's key/value heads, 4 bytes a value (f32)
// or 2 (f16). Computed from the config (the JS API has no accessor for the cache's size); ungrouped: as if every
// query head had its own key/value head.
export function kvCacheBytes({ n_layer, n_head, n_kv_head = n_head, d_head }, T, { ungrouped = false, bytes = 4 } = {}) {
  return 2 * n_layer * (ungrouped ? n_head : n_kv_head) * d_head * T * bytes;
}

// createEngine: the library's; engineOptions go to it as they are (a system's `engine` entry in bench.mjs, e.g.
// {threads: 2}, on top of what the caller needs to find the wasm), except kvCache, which goes to loadModel. diagnostics: the kernel diagnostics module
// (arcscope_diagnostics.js), for the streaming-read bandwidth. memory: optional async () => bytes, called while the
// model is still loaded (the browser page's measurement). peakRss: optional () => bytes, the process's high-water
// mark (Node), taken before the bandwidth measurement adds a buffer of its own. lean: load, prefill at T = 256,
// decode and memory only (the benchmark per size: on XL the live edits and sweeps alone would take minutes).
// prefillAt: a lean run's prefill lengths.
export async function measureArcscope({ createEngine, engineOptions = {}, diagnostics, modelBytes, memory = null,
  peakRss = null, lean = false, prefillAt = leanPrefillLengths }) {
  const { kvCache = 'f32', ...createOptions } = engineOptions;
  const engine = await createEngine(createOptions);
  // build: the module that ran ('SIMD128, one thread: ...' / 'relaxed SIMD, 2 threads ...'), named in the output
  const r = { prefillMs: {}, threads: engine.threads, kvCache, simd: engine.simd, build: engine.build.summary };
  let t0 = now();
  const model = engine.loadModel(modelBytes, { kvCache });
  r.loadMs = now() - t0;
  const { dtype, n_layer, n_head, n_embd, n_vocab } = model.config;
  const ids = (n, offset) => benchIds(n, offset, n_vocab);
  r.dtype = dtype;
  r.shape = `${n_layer} × ${n_head} × ${n_embd}`;
  r.kvBytes1024 = kvCacheBytes(model.config, 1024, { bytes: kvCache === 'f16' ? 2 : 4 });
  r.heads = { n_layer, n_head, n_kv_head: model.config.n_kv_head, d_head: model.config.d_head };
  model.forward(ids(8), { attention: false });  // warm-up: scratch and cache grow once
  for (const T of lean ? prefillAt : prefillLengths) {
    const input = ids(T);
    t0 = now();
    model.forward(input, { attention: false });
    r.prefillMs[T] = now() - t0;
  }
  if (!lean) {
    // Attention capture: the same T = 64 forward without and with every head's probabilities, back to back.
    t0 = now();
    model.forward(ids(64), { attention: false });
    r.prefillPlain64Ms = now() - t0;
    t0 = now();
    model.forward(ids(64), { attention: true });
    r.prefillAttention64Ms = now() - t0;
  }

  model.forward(ids(decodePrompt), { attention: false });
  const next = ids(decodeTokens, decodePrompt);
  t0 = now();
  for (const id of next) model.append(id, { attention: false });
  r.decodeMs = (now() - t0) / decodeTokens;

  if (!lean) {
    r.live = measureLive(model);
    r.sweeps = measureSweeps(model);
  }
  r.wasmMemoryBytes = engine.core.HEAPU8.length;  // it only grows: after the longest pass and every scratch buffer
  if (peakRss) r.peakRssBytes = peakRss();
  if (r.dtype === 'q8') {
    r.q8BytesPerToken = q8BytesPerToken(model.config);
    // Past a few hundred MB the rate no longer depends on the size; a bigger buffer would only add to the memory.
    r.streamGBs = diagnostics.benchStreamRead(Math.min(r.q8BytesPerToken, streamReadCap), 3);
    r.decodeFloorMs = r.q8BytesPerToken / (r.streamGBs * 1e6);
  }
  if (memory) r.pageMemoryBytes = await memory();
  model.free();
  return r;
}

// What an edit costs the analysis an element runs (every layer's queries and keys, the last position's logits) on a
// text of T tokens: the whole text; the text after its last four tokens were typed; the text after one token in its
// middle changed. The second two resume from the analysis of the text before the edit (runWithCache's reuse).
// -> {T: {fullMs, appendMs, middleMs}}
function measureLive(model) {
  const { n_layer, n_vocab, patternHooks } = model.config;  // hook_q/hook_k, or hook_rot_q/hook_rot_k with rotary positions
  const names = Array.from({ length: n_layer }, (_, l) => patternHooks.map((hook) => `blocks.${l}.${hook}`)).flat();
  const vocab = Math.min(n_vocab, 50000);
  const analyse = (ids, reuse = 0) => {
    const t0 = now();
    const { first } = model.runWithCache(ids, { names, allLogits: false, reuse });
    return { ms: now() - t0, first };
  };
  const live = {};
  for (const T of liveLengths.filter((n) => n <= model.config.n_ctx)) {
    const ids = benchIds(T, 0, n_vocab), edited = ids.map((id, i) => (i === T >> 1 ? (id + 1) % vocab : id));
    const full = analyse(ids);
    analyse(ids.slice(0, T - 4));
    const append = analyse(ids, T);
    const middle = analyse(edited, T);
    if (append.first !== T - 4 || middle.first !== T >> 1) throw new Error(`live T=${T}: resumed at ${append.first} and ${middle.first}`);
    live[T] = { fullMs: full.ms, appendMs: append.ms, middleMs: middle.ms };
  }
  return live;
}

// Both sweeps of a 14-token prompt (the indirect-object prompt's length), its corrupted copy differing at position 10
// (where the second name is), against a pass of that prompt. -> {passMs, patchingMs, ablationMs}
function measureSweeps(model) {
  const vocab = Math.min(model.config.n_vocab, 50000);
  const clean = benchIds(14, 0, vocab), corrupted = clean.map((id, i) => (i === 10 ? (id + 17) % vocab : id));
  const time = (f) => { const t0 = now(); f(); return now() - t0; };
  return {
    passMs: Math.min(...[0, 1, 2].map(() => time(() => model.forward(clean, { attention: false })))),
    patchingMs: time(() => model.patchingSweep({ clean, corrupted, answer: 1000, wrong: 2000 })),
    ablationMs: time(() => model.ablationSweep({ input: clean, answer: 1000, wrong: 2000 })),
  };
}

// ---- ONNX Runtime Web (the graphs scripts/bench/export_onnx.py and quantize_onnx.py write) ----

export function ortSession(ort, bytes) {
  return ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

const ortIds = (ort, ids) => new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]);

// The last-position graph: ids -> logits (n_vocab) of the last position.
export async function ortLogits(ort, session, ids) {
  return (await session.run({ ids: ortIds(ort, ids) })).logits.data;
}

// The decoder graph: prompt(ids) starts from an empty past (P = 0), step(id) runs one token on the presents of the
// previous run; each returns the last position's logits (n_vocab).
export function ortDecoder(ort, session) {
  const pastNames = session.inputNames.filter((n) => n.startsWith('past_'));
  const [, heads, , headDim] = session.inputMetadata.find((m) => m.name === pastNames[0]).shape;  // [1, H, 'P', hd]
  const empty = new ort.Tensor('float32', new Float32Array(0), [1, heads, 0, headDim]);
  let presents;
  const run = async (ids) => {
    const feeds = { ids: ortIds(ort, ids) };
    for (const name of pastNames) feeds[name] = presents ? presents[name.replace('past_', 'present_')] : empty;
    const out = await session.run(feeds);
    presents = out;
    return out.logits.data;
  };
  return {
    prompt(ids) { presents = null; return run(ids); },
    step: (id) => run([id]),
  };
}

// threads: ort.env.wasm.numThreads (2 needs a cross-origin-isolated page). Both graphs' bytes are in memory before
// the clock starts; load = creating the last-position session, kvLoadMs = creating the decoder's (after the first
// is released: a page runs one model at a time). lean, prefillAt: as measureArcscope's; vocab: the model's (the ids'
// range).
export async function measureOrt({ ort, modelBytes, kvModelBytes, threads = 1, memory = null, lean = false,
  prefillAt = leanPrefillLengths, vocab = 50257 }) {
  const r = { prefillMs: {} };
  const benchIdsOf = (n, offset) => benchIds(n, offset, vocab);
  ort.env.wasm.numThreads = threads;
  let t0 = now();
  let session = await ortSession(ort, modelBytes);
  r.loadMs = now() - t0;
  r.threads = ort.env.wasm.numThreads;  // ONNX Runtime drops to 1 where threads are unavailable
  await ortLogits(ort, session, benchIdsOf(8));  // warm-up
  for (const T of lean ? prefillAt : prefillLengths) {
    const ids = benchIdsOf(T);
    t0 = now();
    await ortLogits(ort, session, ids);
    r.prefillMs[T] = now() - t0;
  }
  await session.release();

  t0 = now();
  session = await ortSession(ort, kvModelBytes);
  r.kvLoadMs = now() - t0;
  const decoder = ortDecoder(ort, session);
  await decoder.prompt(benchIdsOf(8));  // warm-up: a short prompt and two steps
  for (const id of benchIdsOf(2, 8)) await decoder.step(id);
  await decoder.prompt(benchIdsOf(decodePrompt));
  const next = benchIdsOf(decodeTokens, decodePrompt);
  t0 = now();
  for (const id of next) await decoder.step(id);
  r.decodeMs = (now() - t0) / decodeTokens;
  if (memory) r.pageMemoryBytes = await memory();  // the wasm heap only grows: its high-water mark is in here
  await session.release();
  return r;
}

// ---- llama.cpp in wasm (@wllama/wllama, the GGUF scripts/bench/write_gguf.py writes) ----

// wllama serves llama.cpp's completion endpoint, which takes text: the text of ids in write_gguf.py's synthetic
// vocabulary, where token i is the one character U+20000 + i, tokenizes to exactly those ids (no BOS added).
const wllamaFirstCharacter = 0x20000;
export const wllamaText = (ids) => String.fromCodePoint(...ids.map((id) => wllamaFirstCharacter + id));

// -> the response, with timings {prompt_ms, predicted_per_token_ms, ...} as llama.cpp measures them.
export function wllamaComplete(wllama, ids, { maxTokens = 1, logprobs = 0 } = {}) {
  return wllama.createCompletion({ prompt: wllamaText(ids), max_tokens: maxTokens, temperature: 0,
    cache_prompt: false, ignore_eos: true, ...(logprobs ? { logprobs } : {}) });
}

// The k most likely tokens after ids, most likely first: [[id, logprob], ...].
export async function wllamaTopLogprobs(wllama, ids, k) {
  const r = await wllamaComplete(wllama, ids, { logprobs: k });
  return r.choices[0].logprobs.content[0].top_logprobs.map(({ id, logprob }) => [id, logprob]);
}

// Wllama: the class, pathConfig its AssetsPathConfig (where its wasm is). Load = loadModel of the GGUF's bytes (in
// memory before the clock starts) into a context of nCtx positions, one thread; prefill = a completion of one token
// after T ids, timed around the call (llama.cpp's own prompt_ms beside it); decode = 64 tokens generated after a
// 64-token prompt, llama.cpp's predicted_per_token_ms. lean, prefillAt, vocab: as measureOrt's.
export async function measureWllama({ Wllama, pathConfig, modelBytes, memory = null, lean = false,
  prefillAt = leanPrefillLengths, vocab = 50257, nCtx = 1024 }) {
  const r = { prefillMs: {}, prefillOwnMs: {} };
  const ids = (n, offset) => benchIds(n, offset, vocab);
  const wllama = new Wllama(pathConfig, { suppressNativeLog: true });
  let t0 = now();
  await wllama.loadModel([new Blob([modelBytes])], { n_ctx: nCtx, n_threads: 1, n_batch: nCtx, n_ubatch: 512 });
  r.loadMs = now() - t0;
  r.threads = wllama.getNumThreads();
  await wllamaComplete(wllama, ids(8));  // warm-up
  for (const T of lean ? prefillAt : prefillLengths.filter((n) => n < nCtx)) {
    t0 = now();
    const out = await wllamaComplete(wllama, ids(T));
    r.prefillMs[T] = now() - t0;
    r.prefillOwnMs[T] = out.timings?.prompt_ms;
  }
  const out = await wllamaComplete(wllama, ids(decodePrompt), { maxTokens: decodeTokens });
  r.decodeMs = out.timings.predicted_per_token_ms;
  r.topLogprobs = await wllamaTopLogprobs(wllama, ids(decodePrompt), 10);  // for the accuracy line, untimed
  if (memory) r.pageMemoryBytes = await memory();
  await wllama.exit();
  return r;
}

// ---- a long text analysed as the page does (bench.mjs --arch, Chromium) ----

// Load, then runWithCache of every layer's pattern hooks (hook_rot_q/hook_rot_k where positions rotate: what the page
// keeps) over T ids, last position's logits only, then one head's attentionPattern (layer 0, head 0, T x T) from
// them; the time of each step and the wasm memory after it (the module's memory only grows: its high-water mark).
export async function measureLongText({ createEngine, engineOptions = {}, modelBytes, T = 4096, memory = null }) {
  const engine = await createEngine(engineOptions);
  const wasmBytes = () => engine.core.HEAPU8.length;
  const r = { T, wasmBytes: {} };
  let t0 = now();
  const model = engine.loadModel(modelBytes);
  r.loadMs = now() - t0;
  r.wasmBytes.load = wasmBytes();
  r.dtype = model.config.dtype;
  const { n_layer, n_vocab, patternHooks } = model.config;
  const names = Array.from({ length: n_layer }, (_, l) => patternHooks.map((hook) => `blocks.${l}.${hook}`)).flat();
  const ids = benchIds(T, 0, n_vocab);
  t0 = now();
  const { cache } = model.runWithCache(ids, { names, allLogits: false });
  r.runWithCacheMs = now() - t0;
  r.wasmBytes.runWithCache = wasmBytes();
  r.cacheBytes = Object.values(cache).reduce((sum, { data }) => sum + data.byteLength, 0);
  t0 = now();
  const pattern = model.attentionPattern(cache[names[0]].data, cache[names[1]].data, 0);
  r.attentionPatternMs = now() - t0;
  r.wasmBytes.attentionPattern = wasmBytes();
  if (pattern.length !== T * T) throw new Error(`attentionPattern gave ${pattern.length} values, not ${T * T}`);
  if (memory) r.pageMemoryBytes = await memory();
  model.free();
  return r;
}
