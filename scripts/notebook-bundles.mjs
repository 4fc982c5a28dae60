// notebook-bundles.mjs: the library as two single-file modules for notebook outputs (the Python package, jupyter/),
// written to build/notebook/:
//   element.js   <arc-scope> with everything it imports, exporting sharedEngine (the worker's client)
//   worker.js    the worker with the engine's glue
//   notebook.json  the files they reference and the element's attribute declarations, for the Python side
// A notebook output has no server behind it: the files travel inside the notebook and become blob: URLs in the page,
// and a blob: URL is no base for relative imports or for new URL('./x', import.meta.url). So the modules are bundled
// (no relative imports left), and each new URL('<relative>', import.meta.url) becomes __arcscopeFile('<path in lib/>'),
// which the output's loader (jupyter/arcscope/output.js) defines before the bundle's code: a blob: URL for the files
// the notebook carries, an arcscope-notebook:/lib/<path> URL for those it does not (the threaded build: output frames
// are not cross-origin isolated). The library's sources are not changed.
// Usage: node scripts/notebook-bundles.mjs   (after scripts/stage.mjs; scripts/package.mjs runs it)
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const lib = join(root, 'build', 'lib');
const out = join(root, 'build', 'notebook');
// The threaded modules (SIMD128 and relaxed SIMD) are imported only on cross-origin isolated pages: left out of the
// bundle, never reached. The relaxed-SIMD module's glue is bundled as the SIMD128 one is, since a notebook's engine
// may choose it: its dynamic import becomes a static one (a dynamic import would bring Vite's preload helper, which
// reads import.meta).
const THREADED_GLUE = ['./wasm/arcscope_core_threads.js', './wasm/arcscope_core_relaxed_threads.js'];
const RELAXED_GLUE = './wasm/arcscope_core_relaxed.js';

if (!existsSync(join(lib, 'element.js'))) throw new Error(`notebook-bundles: ${lib} is missing; run ./scripts/build.sh wasm`);

// Rewrites import.meta.url in every module of lib/, and records the files named that way.
function libFiles(referenced) {
  const libPath = (file) => relative(lib, file).split('\\').join('/');
  return {
    name: 'arcscope-notebook-files',
    enforce: 'pre',
    transform(code, id) {
      if (!id.startsWith(lib)) return null;
      const here = dirname(id);
      // The threaded glue stays a dynamic import, of a file the notebook does not carry (never reached there).
      for (const threaded of THREADED_GLUE) {
        const glue = libPath(resolve(here, threaded));
        if (code.includes(`import('${threaded}')`)) referenced.add(glue);
        code = code.replaceAll(`import('${threaded}')`, `import(__arcscopeFile(${JSON.stringify(glue)}))`);
      }
      if (code.includes(`import('${RELAXED_GLUE}')`)) {
        code = `import * as __arcscopeRelaxedGlue from '${RELAXED_GLUE}';\n` +
          code.replaceAll(`import('${RELAXED_GLUE}')`, 'Promise.resolve(__arcscopeRelaxedGlue)');
      }
      const named = code.replace(/new URL\(\s*(['"])([^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g, (_, _q, rel) => {
        const path = libPath(resolve(here, rel.split('?')[0]));
        referenced.add(path);
        return `new URL(__arcscopeFile(${JSON.stringify(path)}))`;
      });
      // Any other use (worker-client.js's origin check, Emscripten's script directory): the module's own place.
      return named.replace(/import\.meta\.url/g, `__arcscopeFile(${JSON.stringify(libPath(id))})`);
    },
  };
}

// entry: a module of lib/, or {code} for a module written here.
async function bundle(entry, name, referenced) {
  const virtual = `\0arcscope-notebook-${name}`;
  const input = typeof entry === 'string' ? join(lib, entry) : virtual;
  const result = await build({
    configFile: false,
    logLevel: 'warn',
    root: lib,
    plugins: [
      { name: 'entry', resolveId: (id) => (id === virtual ? id : null), load: (id) => (id === virtual ? entry.code : null) },
      libFiles(referenced),
    ],
    build: {
      write: false,
      minify: false,
      modulePreload: false, // its helper resolves against import.meta; the one dynamic import left is never reached
      target: 'es2022',
      rolldownOptions: {
        input,
        output: { format: 'es', codeSplitting: false },
        preserveEntrySignatures: 'strict',
        // package.json's sideEffects speaks for the package's importers: here every module runs as it would unbundled
        treeshake: { moduleSideEffects: true },
      },
    },
  });
  const chunks = [result].flat().flatMap((r) => r.output).filter((o) => o.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`notebook-bundles: ${name} became ${chunks.length} chunks, not one`);
  const { code } = chunks[0];
  if (/import\.meta/.test(code)) throw new Error(`notebook-bundles: ${name} still uses import.meta`);
  return code;
}

const at = (path) => JSON.stringify(join(lib, path));
const elementFiles = new Set(), workerFiles = new Set();
const element = await bundle({ code: `import ${at('element.js')};\nexport { sharedEngine } from ${at('worker-client.js')};\n` },
  'element', elementFiles);
const worker = await bundle('worker/worker.js', 'worker', workerFiles);

const { ATTRIBUTE_NAMES } = await import(pathToFileURL(join(lib, 'element', 'arc-scope-attributes.js')).href);
const words = await import(pathToFileURL(join(lib, 'element', 'view-options.js')).href);
const { version } = await import(pathToFileURL(join(lib, 'version.js')).href);
const referenced = [...new Set([...elementFiles, ...workerFiles])].sort();
const missing = referenced.filter((p) => !existsSync(join(lib, p)));
if (missing.length) throw new Error(`notebook-bundles: the modules name files lib/ lacks: ${missing.join(', ')}`);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'element.js'), element);
writeFileSync(join(out, 'worker.js'), worker);
writeFileSync(join(out, 'notebook.json'), `${JSON.stringify({
  version,
  // the lib/ files the library's payload carries beside the two bundles: every file they name but the modules
  // bundled here, the threaded builds (output frames are not cross-origin isolated) and the models (each .arcs file,
  // the default one too, travels in a payload of its own: jupyter/arcscope/payload.py)
  carry: referenced.filter((p) => !p.endsWith('.js') && !/^wasm\/arcscope_core(_relaxed)?_threads/.test(p) &&
    !p.endsWith('.arcs')),
  // <arc-scope>'s attributes (arc-scope-attributes.js) and the words its readers take (view-options.js)
  attributes: ATTRIBUTE_NAMES,
  words: { layer: words.LAYER_WORDS, head: words.HEAD_WORDS, mode: words.ELEMENT_MODES, theme: words.THEMES,
    loading: words.LOADINGS, ablate: words.ABLATIONS, sink: words.SINKS },
}, null, 2)}\n`);
console.log(`notebook-bundles: build/notebook/element.js (${(element.length / 1e3).toFixed(0)} kB), worker.js ` +
  `(${(worker.length / 1e3).toFixed(0)} kB), notebook.json`);
