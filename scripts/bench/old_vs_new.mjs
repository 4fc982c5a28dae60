// old_vs_new.mjs: two builds of the wasm engine side by side in one Node process, alternating, so that a change
// that may cost speed is measured against the same machine noise. Prints prefill (T tokens, attention kept, LM head on
// the last position) and decode (ms per appended token) for each build and model, best and median of the rounds.
//   node scripts/bench/old_vs_new.mjs --old OLD/build/wasm --new build/wasm --model a.arcs[,b.arcs] [--T 256] [--rounds 5]
// A model file a build cannot read (e.g. q16 for a build before it) is skipped for that build.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const arg = (name, fallback) => (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : fallback);
const T = Number(arg('T', 256)), rounds = Number(arg('rounds', 5)), decodeSteps = 32;
const builds = { old: arg('old'), new: arg('new', 'build/wasm') };
const models = arg('model').split(',');

async function core(dir) {
  const { default: create } = await import(pathToFileURL(path.resolve(dir, 'arcscope_core.js')).href);
  return create({ wasmBinary: fs.readFileSync(path.resolve(dir, 'arcscope_core.wasm')) });
}

const handles = [];
for (const [build, dir] of Object.entries(builds)) {
  if (!dir) continue;
  const c = await core(dir);
  for (const file of models) {
    try {
      const handle = c.Model.fromBytes(new Uint8Array(fs.readFileSync(file)));
      handles.push({ name: `${build} ${path.basename(file)}`, core: c, handle, prefill: [], decode: [], pass: [], patching: [], ablation: [] });
    } catch (e) {
      console.log(`${build} ${path.basename(file)}: skipped (${e.message ?? e})`);
    }
  }
}
// Ids every model can read: below the smallest vocabulary among them (GPT-2's 50257 unless another is smaller).
const vocab = Math.min(...handles.map((h) => h.handle.config().n_vocab));
const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % vocab);
const prompt = ids.slice(0, 14), corrupted = prompt.map((id, i) => (i === 10 ? (id + 17) % vocab : id));
for (const h of handles) h.handle.forward(ids, true, false);  // warm-up: scratch grows, pages are touched
for (let r = 0; r < rounds; r++) {
  for (const h of handles) {  // alternate: each round runs every build and model once
    let t0 = performance.now();
    h.handle.forward(ids, true, false);
    h.prefill.push(performance.now() - t0);
    t0 = performance.now();
    for (let i = 0; i < decodeSteps; i++) h.handle.append((i * 31 + 7) % vocab, false);
    h.decode.push((performance.now() - t0) / decodeSteps);
    t0 = performance.now();
    h.handle.forward(prompt, false, false);
    h.pass.push(performance.now() - t0);
    t0 = performance.now();
    h.core.patchingSweep(h.handle, prompt, corrupted, 1000, 2000);
    h.patching.push(performance.now() - t0);
    t0 = performance.now();
    h.core.ablationSweep(h.handle, prompt, 1000, 2000, 'zero');
    h.ablation.push(performance.now() - t0);
  }
}
const best = (a) => Math.min(...a), median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const sweep = (h, which) => `${best(h[which]).toFixed(0)} / ${median(h[which]).toFixed(0)} ms = ` +
  `${(best(h[which]) / best(h.pass)).toFixed(1)} / ${(median(h[which]) / median(h.pass)).toFixed(1)} passes`;
console.log(`| build, model | prefill T=${T} best / median ms | decode best / median ms per token | ` +
  `pass of the 14-token prompt | patching sweep | ablation sweep |\n|---|---|---|---|---|---|`);
for (const h of handles) {
  console.log(`| ${h.name} | ${best(h.prefill).toFixed(0)} / ${median(h.prefill).toFixed(0)} | ` +
    `${best(h.decode).toFixed(2)} / ${median(h.decode).toFixed(2)} | ${best(h.pass).toFixed(1)} / ` +
    `${median(h.pass).toFixed(1)} ms | ${sweep(h, 'patching')} | ${sweep(h, 'ablation')} |`);
}
