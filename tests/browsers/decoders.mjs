// decoders.mjs: the decoders beyond GPT-2, bit for bit, in one browser engine. Tiny random checkpoints of GPT-NeoX
// (Pythia's partial rotary and parallel residual), Llama with grouped-query attention (4 heads over 2) and Qwen3
// (q/k norms), converted natively to q8, q16 (16-bit weights since .arcs version 4) and f32, run in the page on every
// build it can run (SIMD128, and relaxed SIMD where the probe says it computes right): every position's logits and
// attention, then one KV-cache step, the float bits hashed in the page (FNV-1a, as builds.mjs). The same function
// runs in Node on the same SIMD128 module; each page build's hash must be Node's.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../package/consumer.mjs';

const VOCAB = 300;
const IDS = Array.from({ length: 24 }, (_, i) => (i * 7919 + 13) % VOCAB);
const NEXT = 42;
const WEIGHT_BITS = { q8: 8, q16: 16, f32: 32 }; // q16 of every decoder but GPT-2 holds 16-bit weights

// Each checkpoint's shape (2 layers, width 64) and the formats it is converted to.
const CHECKPOINTS = [
  { arch: 'gpt_neox', dtypes: ['q16', 'q8'], args: ['--n-head', '4', '--ffn', '256', '--rotary-pct', '0.25'] },
  { arch: 'llama', dtypes: ['q16', 'f32'], args: ['--n-head', '4', '--n-kv-head', '2', '--ffn', '96'] },
  { arch: 'qwen3', dtypes: ['q16'], args: ['--n-head', '4', '--n-kv-head', '2', '--head-dim', '32', '--ffn', '96'] },
];

// Writes the checkpoints and their .arcs files into a fresh folder under build/browsers/.
// -> {models: [{arch, dtype, path (served at), bytes}], close()}
export function makeDecoderModels() {
  mkdirSync(join(repoRoot, 'build', 'browsers'), { recursive: true });
  const dir = mkdtempSync(join(repoRoot, 'build', 'browsers', 'decoders-'));
  const models = [];
  for (const { arch, dtypes, args } of CHECKPOINTS) {
    const hf = join(dir, arch);
    execFileSync('/usr/bin/python3', [join(repoRoot, 'scripts', 'make_checkpoint.py'), '--out', hf, '--arch', arch,
      '--seed', '17', '--n-layer', '2', '--n-embd', '64', '--n-ctx', '64', '--vocab', String(VOCAB),
      '--qk-scale', '4', ...args], { stdio: 'ignore' });
    for (const dtype of dtypes) {
      const file = join(dir, `${arch}.${dtype}.arcs`);
      execFileSync(join(repoRoot, 'build', 'native', 'arcscope'), ['convert', '--in', hf, '--out', file, '--dtype', dtype],
        { stdio: 'ignore' });
      models.push({ arch, dtype, path: `/decoders/${arch}.${dtype}.arcs`, file, bytes: readFileSync(file) });
    }
  }
  return { models, close: () => rmSync(dir, { recursive: true, force: true }) };
}

// In the page, or in Node with lib, hashModule (float-hash.mjs) and each model's url as file URLs: every model through each build this engine
// can run. -> [{arch, dtype, weightBits, builds: {simd128: {count, hash}, relaxed?}}]
export async function runDecoders({ lib, hashModule, models, ids, next }) {
  const { createEngine, readBytes } = await import(lib);
  const { probeRelaxedSimd } = await import(new URL('./engine/relaxed-simd.js', lib).href);
  const { floatHash: hash } = await import(hashModule);
  const engines = { simd128: await createEngine({ simd: 'simd128', threads: 1 }) };
  if (probeRelaxedSimd().runs) engines.relaxed = await createEngine({ simd: 'relaxed', threads: 1 });
  const out = [];
  for (const { url, arch, dtype } of models) {
    const bytes = await readBytes(url);
    const result = { arch, dtype, builds: {} };
    for (const [simd, engine] of Object.entries(engines)) {
      const model = await engine.loadModel(bytes.slice());
      result.config = { architecture: model.config.architecture, dtype: model.config.dtype };
      result.weightBits = model.config.weightBits;
      const all = model.forward(ids, { attention: true, allLogits: true });
      const step = model.append(next, { attention: true });
      result.builds[simd] = hash([all.logits, all.attention, step.logits, step.attention]);
      model.free();
    }
    out.push(result);
  }
  return out;
}

const LIB = pathToFileURL(join(repoRoot, 'build', 'lib', 'engine.js')).href;

// -> [{arch, dtype, weightBits, builds, node: {count, hash}}], each page build's hash asserted equal to Node's.
export async function checkDecoders(browser, { repo }, models) {
  const served = (url) => models.map(({ arch, dtype, path, file }) => ({ arch, dtype, url: url(path, file) }));
  const node = await runDecoders({ lib: LIB, hashModule: new URL('./float-hash.mjs', import.meta.url).href,
    models: served((_, file) => pathToFileURL(file).href), ids: IDS, next: NEXT });
  await browser.open(`${repo}embed.html`);
  const page = await browser.run(runDecoders,
    { lib: new URL('/lib/engine.js', repo).href, hashModule: new URL('/float-hash.mjs', repo).href,
      models: served((path) => new URL(path, repo).href), ids: IDS, next: NEXT });
  assert.deepEqual(Object.keys(page[0].builds), browser.relaxedSimd ? ['simd128', 'relaxed'] : ['simd128'],
    `${browser.name}: the builds run`);
  return page.map((p, i) => {
    const { arch, dtype } = models[i];
    const n = node[i].builds.simd128;
    assert.deepEqual(p.config, { architecture: arch, dtype }, `${browser.name}: the page loaded ${arch} ${dtype}`);
    assert.equal(p.weightBits, WEIGHT_BITS[dtype], `${browser.name}: ${arch} ${dtype}'s weight bits`);
    for (const [simd, b] of Object.entries(p.builds)) {
      assert.deepEqual(b, n, `${browser.name}, ${arch} ${dtype} (${p.weightBits}-bit weights), ${simd}: ` +
        `${b.count} floats hashed ${b.hash}, Node's ${n.count} hashed ${n.hash}`);
    }
    return { ...p, node: n };
  });
}
