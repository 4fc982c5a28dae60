// stage.mjs: assembles build/lib/, the library as it is served and packed: web/lib's modules and CSS, the wasm
// modules (plain and threaded, each in its SIMD128 and relaxed-SIMD build), GPT-2's tokenizer file and the default model, each where web/lib/assets.js looks for it (beside itself), and
// version.js, the package's version from package.json (engine.js exports it).
// build.sh runs it after the wasm build; the page's server overlays web/lib/ on it, so edits show without restaging.
// Usage: node scripts/stage.mjs [OUT]   (default build/lib)
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const out = resolve(process.argv[2] || join(root, 'build', 'lib'));
const wasmBuild = join(root, 'build', 'wasm');
const threadsBuild = join(root, 'build', 'wasm-threads');

// [from, to inside OUT]
const assets = [
  [join(wasmBuild, 'arcscope_core.js'), 'wasm/arcscope_core.js'],
  [join(wasmBuild, 'arcscope_core.wasm'), 'wasm/arcscope_core.wasm'],
  // the threaded module, which engine.js picks on cross-origin isolated pages
  ...['.js', '.wasm', '.worker.js'].map((ext) =>
    [join(threadsBuild, `arcscope_core_threads${ext}`), `wasm/arcscope_core_threads${ext}`]),
  // both with the relaxed-SIMD q8 kernel, which engine.js picks where the browser fuses its dot product
  ...['.js', '.wasm'].map((ext) => [join(wasmBuild, `arcscope_core_relaxed${ext}`), `wasm/arcscope_core_relaxed${ext}`]),
  ...['.js', '.wasm', '.worker.js'].map((ext) =>
    [join(threadsBuild, `arcscope_core_relaxed_threads${ext}`), `wasm/arcscope_core_relaxed_threads${ext}`]),
  [join(wasmBuild, 'gpt2-tokenizer.bin'), 'models/gpt2-tokenizer.bin'],
  [join(root, 'models', 'shakespeare-4l.q8.arcs'), 'models/shakespeare-4l.q8.arcs'],
];
const missing = assets.filter(([from]) => !existsSync(from)).map(([from]) => from);
if (missing.length) {
  console.error(`stage: missing ${missing.join(', ')}; run ./scripts/build.sh wasm first`);
  process.exit(1);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
cpSync(join(root, 'web', 'lib'), out, { recursive: true });
for (const [from, to] of assets) {
  mkdirSync(join(out, to, '..'), { recursive: true });
  cpSync(from, join(out, to));
}
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
writeFileSync(join(out, 'version.js'), `// Written by scripts/stage.mjs from package.json.\nexport const version = '${version}';\n`);
