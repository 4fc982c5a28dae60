// measure.mjs: one system's run of the issue-6 benchmark, the same code in Node 20 and in the browser page.
// Each run: load (bytes in memory -> ready), a warm-up, prefill over T = 8, 64, 256, 1024, decode, memory.
//   arcscope: forward(ids) without attention (last position's logits), once more at T = 64 with every head's
//             attention captured; decode = 64 append()s through the KV cache after a 64-token prompt.
//   ONNX Runtime Web: session.run over ids (1, T) -> last position's logits; its decode floor = the T = 1 run.

export const prefillLengths = [8, 64, 256, 1024];
export const decodePrompt = 64;
export const decodeTokens = 64;

const now = () => performance.now();

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

// diagnostics: the kernel diagnostics module (arcscope_diagnostics.js), for the streaming-read bandwidth.
// memory: optional async () => bytes, called while the model is still loaded (the browser page's measurement).
export async function measureArcscope(engine, diagnostics, modelBytes, memory = null) {
  const r = { prefillMs: {} };
  let t0 = now();
  const model = engine.loadModel(modelBytes);
  r.loadMs = now() - t0;
  r.dtype = model.config.dtype;
  model.forward(benchIds(8), { attention: false });  // warm-up: scratch and cache grow once
  for (const T of prefillLengths) {
    const ids = benchIds(T);
    t0 = now();
    model.forward(ids, { attention: false });
    r.prefillMs[T] = now() - t0;
  }
  // Attention capture: the same T = 64 forward without and with every head's probabilities, back to back.
  t0 = now();
  model.forward(benchIds(64), { attention: false });
  r.prefillPlain64Ms = now() - t0;
  t0 = now();
  model.forward(benchIds(64), { attention: true });
  r.prefillAttention64Ms = now() - t0;

  model.forward(benchIds(decodePrompt), { attention: false });
  const next = benchIds(decodeTokens, decodePrompt);
  t0 = now();
  for (const id of next) model.append(id, { attention: false });
  r.decodeMs = (now() - t0) / decodeTokens;

  r.wasmMemoryBytes = engine.core.HEAPU8.length;  // after a 1024-token KV cache and every scratch buffer
  if (r.dtype === 'q8') {
    r.q8BytesPerToken = q8BytesPerToken(model.config);
    r.streamGBs = diagnostics.benchStreamRead(r.q8BytesPerToken, 3);
    r.decodeFloorMs = r.q8BytesPerToken / (r.streamGBs * 1e6);
  }
  if (memory) r.pageMemoryBytes = await memory();
  model.free();
  return r;
}

export async function measureOrt(ort, modelBytes, memory = null) {
  const r = { prefillMs: {} };
  ort.env.wasm.numThreads = 1;
  let t0 = now();
  const session = await ort.InferenceSession.create(modelBytes, {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  r.loadMs = now() - t0;
  const run = (T) => session.run({
    ids: new ort.Tensor('int64', BigInt64Array.from(benchIds(T), BigInt), [1, T]) });
  await run(8);  // warm-up
  for (const T of prefillLengths) {
    t0 = now();
    await run(T);
    r.prefillMs[T] = now() - t0;
  }
  // Per-token floor: a forward over one token (ONNX Runtime Web has no KV cache in this graph).
  const reps = 5;
  t0 = now();
  for (let i = 0; i < reps; i++) await run(1);
  r.decodeMs = (now() - t0) / reps;
  if (memory) r.pageMemoryBytes = await memory();
  await session.release();
  return r;
}
