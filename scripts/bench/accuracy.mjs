// accuracy.mjs: how close each system's logits are, printed before bench.mjs's tables (Node; the same wasm runs
// in the browser). Two checks:
//   1. the last position's logits over benchIds(64) against the PyTorch reference
//      (python/arcscope_reference/gpt2_reference.py on the same checkpoint, written by reference_logits.py): cosine similarity and the largest absolute difference;
//   2. the KV cache: 8 tokens decoded one by one after that 64-token prompt (ORT: the decoder graph fed its own
//      presents; arcscope: append) against a pass over the whole prefix without a cache (ORT: the last-position
//      graph; arcscope: forward), worst step. For int8 ORT this cannot be exact: DynamicQuantizeLinear takes one scale
//      per tensor, i.e. over all the rows a pass holds, so one new row is quantized differently from the same row
//      among 65 others.
//   node scripts/bench/accuracy.mjs --systems '[{"label": ..., "kind": "ort", "model": ..., "kvModel": ...}, ...]'
//     [--reference build/bench/smollm2-135m.reference-logits-64.bin --vocab 49152]  (another model's reference and
//     vocabulary: the ids' range, benchIds's)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchIds, decodePrompt, ortDecoder, ortLogits, ortSession } from './measure.mjs';

const root = path.resolve(fileURLToPath(new URL('../../', import.meta.url)));
const argv = process.argv.slice(2);
const systems = JSON.parse(argv[argv.indexOf('--systems') + 1]);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const referenceFile = path.join(root, option('--reference', `build/bench/reference-logits-${decodePrompt}.bin`));
const vocab = Number(option('--vocab', 50257));
const steps = 8;
const ids = benchIds(decodePrompt, 0, vocab);
const later = benchIds(steps, decodePrompt, vocab);
const read = (file) => new Uint8Array(fs.readFileSync(path.join(root, file)));

function compare(a, b) {
  if (a.length !== b.length) throw new Error(`logits of ${a.length} vs ${b.length} values`);
  let dot = 0, aa = 0, bb = 0, maxAbs = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i]; aa += a[i] * a[i]; bb += b[i] * b[i];
    maxAbs = Math.max(maxAbs, Math.abs(a[i] - b[i]));
  }
  return { cosine: dot / Math.sqrt(aa * bb), maxAbs };
}
const worst = (list) => ({ cosine: Math.min(...list.map((c) => c.cosine)), maxAbs: Math.max(...list.map((c) => c.maxAbs)) });

// -> {logits (of ids), cached: logits of each later token through the cache, full: the same without a cache}
async function runOrt(ort, system) {
  let session = await ortSession(ort, read(system.model));
  const logits = await ortLogits(ort, session, ids);
  const full = [];
  for (let t = 1; t <= steps; t++) full.push(await ortLogits(ort, session, [...ids, ...later.slice(0, t)]));
  await session.release();
  session = await ortSession(ort, read(system.kvModel));
  const decoder = ortDecoder(ort, session);
  const cached = [await decoder.prompt(ids)];  // the prompt itself through the decoder graph, P = 0
  for (const id of later) cached.push(await decoder.step(id));
  await session.release();
  return { logits, cached, full: [logits, ...full] };
}

async function runArcscope(createEngine, system) {
  const engine = await createEngine(system.engine ?? {});
  const model = engine.loadModel(read(system.model));
  const logits = model.forward(ids, { attention: false }).logits.slice();
  const cached = [logits];
  for (const id of later) cached.push(model.append(id, { attention: false }).logits.slice());
  const full = [logits];
  for (let t = 1; t <= steps; t++) full.push(model.forward([...ids, ...later.slice(0, t)], { attention: false }).logits.slice());
  model.free();
  return { logits, cached, full };
}

const reference = new Float32Array(fs.readFileSync(referenceFile).buffer.slice(0));
let ortModule = null, arcscope = null;
const rows = [];
for (const system of systems) {
  let r;
  if (system.kind === 'ort') {
    ortModule ??= await import('onnxruntime-web').then((m) => m.default ?? m);
    ortModule.env.wasm.numThreads = 1;
    r = await runOrt(ortModule, system);
  } else {
    arcscope ??= await import('../../build/lib/engine.js');
    r = await runArcscope(arcscope.createEngine, system);
  }
  const kv = worst(r.cached.map((c, i) => compare(c, r.full[i])));
  rows.push({ label: system.label, reference: compare(r.logits, reference), kv });
}

const maxRef = reference.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
const fmtCos = (c) => `${c.toFixed(6)} | ${(1 - c).toExponential(1)}`;
const fmtAbs = (x) => x.toPrecision(3);
console.log([
  `Accuracy: last position's logits over benchIds(${decodePrompt}) against the PyTorch reference ` +
    `(python/arcscope_reference, fp32; largest |logit| ${maxRef.toFixed(2)})`, '',
  '| system | cosine similarity | 1 − cosine | largest absolute difference |', '|---|---|---|---|',
  ...rows.map((r) => `| ${r.label} | ${fmtCos(r.reference.cosine)} | ${fmtAbs(r.reference.maxAbs)} |`), '',
  `KV cache: the prompt and ${steps} tokens decoded one at a time (ORT: decoder graph; arcscope: append) against ` +
    'a pass over the same prefix without a cache (ORT: last-position graph; arcscope: forward), worst of the steps', '',
  '| system | cosine similarity | 1 − cosine | largest absolute difference |', '|---|---|---|---|',
  ...rows.map((r) => `| ${r.label} | ${fmtCos(r.kv.cosine)} | ${fmtAbs(r.kv.maxAbs)} |`),
].join('\n'));
fs.writeFileSync(argv.includes('--reference') ? referenceFile.replace(/(\.bin)?$/, '.accuracy.json') :
  path.join(root, 'build/bench/accuracy.json'), JSON.stringify({ maxRef, rows }, null, 1));
