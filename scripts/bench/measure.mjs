// measure.mjs: one system's run of the benchmark (bench.mjs), the same code in Node 20 and in the browser page, and the
// ways to run each system that accuracy.mjs shares. Each run: load (bytes in memory -> ready), a warm-up, prefill
// over T = 8, 64, 256, 1024, decode, memory. A lean run (the benchmark per model size) keeps load, prefill at T = 256,
// decode and memory only.
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

// n deterministic token ids spread over the vocabulary (the content does not change the work done).
export function benchIds(n, offset = 0) {
  return Array.from({ length: n }, (_, i) => ((i + offset) * 7919 + 13) % 50000);
}

// Bytes of int8 weights (with their scales) that one decoded token reads: every layer's four matrices and the
// tied LM head, in quant.h's packing (records of 8 rows x 32 cols = 288 bytes).
export function q8BytesPerToken({ n_layer, n_embd, n_vocab }) {
  const packed = (rows, cols) => Math.ceil(rows / 8) * Math.ceil(cols / 32) * 288;
  const C = n_embd;
  const layer = packed(3 * C, C) + packed(C, C) + packed(4 * C, C) + packed(C, 4 * C);
  return n_layer * layer + packed(n_vocab, C);
}

// createEngine: the library's; engineOptions go to it as they are (a system's `engine` entry in bench.mjs, e.g.
// {threads: 2}, on top of what the caller needs to find the wasm), except kvCache, which goes to loadModel. diagnostics: the kernel diagnostics module
// (arcscope_diagnostics.js), for the streaming-read bandwidth. memory: optional async () => bytes, called while the
// model is still loaded (the browser page's measurement). peakRss: optional () => bytes, the process's high-water
// mark (Node), taken before the bandwidth measurement adds a buffer of its own. lean: load, prefill at T = 256,
// decode and memory only (the benchmark per size: on XL the live edits and sweeps alone would take minutes).
export async function measureArcscope({ createEngine, engineOptions = {}, diagnostics, modelBytes, memory = null,
  peakRss = null, lean = false }) {
  const { kvCache = 'f32', ...createOptions } = engineOptions;
  const engine = await createEngine(createOptions);
  const r = { prefillMs: {}, threads: engine.threads, kvCache };
  let t0 = now();
  const model = engine.loadModel(modelBytes, { kvCache });
  r.loadMs = now() - t0;
  const { dtype, n_layer, n_head, n_embd } = model.config;
  r.dtype = dtype;
  r.shape = `${n_layer} × ${n_head} × ${n_embd}`;
  model.forward(benchIds(8), { attention: false });  // warm-up: scratch and cache grow once
  for (const T of lean ? leanPrefillLengths : prefillLengths) {
    const ids = benchIds(T);
    t0 = now();
    model.forward(ids, { attention: false });
    r.prefillMs[T] = now() - t0;
  }
  if (!lean) {
    // Attention capture: the same T = 64 forward without and with every head's probabilities, back to back.
    t0 = now();
    model.forward(benchIds(64), { attention: false });
    r.prefillPlain64Ms = now() - t0;
    t0 = now();
    model.forward(benchIds(64), { attention: true });
    r.prefillAttention64Ms = now() - t0;
  }

  model.forward(benchIds(decodePrompt), { attention: false });
  const next = benchIds(decodeTokens, decodePrompt);
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
  const names = Array.from({ length: model.config.n_layer }, (_, l) => [`blocks.${l}.attn.hook_q`, `blocks.${l}.attn.hook_k`]).flat();
  const analyse = (ids, reuse = 0) => {
    const t0 = now();
    const { first } = model.runWithCache(ids, { names, allLogits: false, reuse });
    return { ms: now() - t0, first };
  };
  const live = {};
  for (const T of liveLengths.filter((n) => n <= model.config.n_ctx)) {
    const ids = benchIds(T), edited = ids.map((id, i) => (i === T >> 1 ? (id + 1) % 50000 : id));
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
  const clean = benchIds(14), corrupted = clean.map((id, i) => (i === 10 ? (id + 17) % 50000 : id));
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
// is released: a page runs one model at a time). lean: as measureArcscope's.
export async function measureOrt({ ort, modelBytes, kvModelBytes, threads = 1, memory = null, lean = false }) {
  const r = { prefillMs: {} };
  ort.env.wasm.numThreads = threads;
  let t0 = now();
  let session = await ortSession(ort, modelBytes);
  r.loadMs = now() - t0;
  r.threads = ort.env.wasm.numThreads;  // ONNX Runtime drops to 1 where threads are unavailable
  await ortLogits(ort, session, benchIds(8));  // warm-up
  for (const T of lean ? leanPrefillLengths : prefillLengths) {
    const ids = benchIds(T);
    t0 = now();
    await ortLogits(ort, session, ids);
    r.prefillMs[T] = now() - t0;
  }
  await session.release();

  t0 = now();
  session = await ortSession(ort, kvModelBytes);
  r.kvLoadMs = now() - t0;
  const decoder = ortDecoder(ort, session);
  await decoder.prompt(benchIds(8));  // warm-up: a short prompt and two steps
  for (const id of benchIds(2, 8)) await decoder.step(id);
  await decoder.prompt(benchIds(decodePrompt));
  const next = benchIds(decodeTokens, decodePrompt);
  t0 = now();
  for (const id of next) await decoder.step(id);
  r.decodeMs = (now() - t0) / decodeTokens;
  if (memory) r.pageMemoryBytes = await memory();  // the wasm heap only grows: its high-water mark is in here
  await session.release();
  return r;
}
