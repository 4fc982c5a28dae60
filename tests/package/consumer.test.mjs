// consumer.test.mjs: the packed tarball installed into a fresh project (consumer.mjs), used as a user would: Node
// imports `arcscope`, and tsc checks TypeScript files against the package's declarations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installedConsumer, repoRoot, tarball, version } from './consumer.mjs';

const consumer = installedConsumer();

test('the tarball holds the wasm, the tokenizer, the default model, the modules, the CSS, the types and the docs', () => {
  const listing = execFileSync('tar', ['-tzf', join(repoRoot, 'dist', `arcscope-${version}.tgz`)], { encoding: 'utf8' })
    .split('\n').filter(Boolean).map((p) => p.replace(/^package\//, ''));
  for (const file of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'lib/arcscope.js', 'lib/arc-scope.js',
    'lib/worker/worker.js', 'lib/wasm/arcscope_core.js', 'lib/wasm/arcscope_core.wasm', 'lib/wasm/arcscope_core_threads.js',
    'lib/wasm/arcscope_core_threads.wasm', 'lib/wasm/arcscope_core_threads.worker.js', 'lib/models/gpt2-tokenizer.bin',
    'lib/models/shakespeare-4l.q8.arcs', 'lib/css/views.css', 'lib/css/arc-scope.css', 'lib/types/engine.d.ts',
    'lib/types/element.d.ts', 'lib/types/worker-client.d.ts', 'lib/types/react.d.ts', 'lib/react.js', 'lib/version.js']) {
    assert.ok(listing.includes(file), `the tarball lacks ${file}`);
  }
  const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules', 'arcscope', 'package.json'), 'utf8'));
  assert.equal(manifest.version, version);
  assert.equal(manifest.private, undefined);
  assert.deepEqual(manifest.dependencies ?? {}, {});
  console.log(`tarball: ${listing.length} files`);
});

test("Node: import { createEngine } from 'arcscope' tokenizes and runs the default model", () => {
  writeFileSync(join(consumer, 'node-check.mjs'), `
    import { createEngine, defaultAssets, readBytes, version } from 'arcscope';
    const engine = await createEngine();
    const { ids } = engine.tokenize("The trophy didn't fit");
    const model = engine.loadModel(await readBytes(defaultAssets.model));
    const { attentionShape } = model.forward(ids);
    const [next] = model.topk(model.forward(ids, { attention: false }).logits, 1);
    console.log(JSON.stringify({ version, ids, attentionShape, next: next.token }));
  `);
  const out = JSON.parse(execFileSync(process.execPath, ['node-check.mjs'], { cwd: consumer, encoding: 'utf8' }));
  assert.equal(out.version, version);
  assert.deepEqual(out.ids, [464, 16383, 1422, 470, 4197]);
  assert.deepEqual(out.attentionShape, [4, 4, 5, 5]);
  assert.equal(typeof out.next, 'string');
});

test("Node (server-side rendering): import 'arcscope/element' does not throw and exports what it does in a browser", () => {
  // A site generator (Astro, VitePress, Next) imports the element's module in Node to render a page: no HTMLElement,
  // no customElements, no document there.
  writeFileSync(join(consumer, 'ssr-check.mjs'), `
    const element = await import('arcscope/element');
    const { ArcScopeElement, analysisCache } = element;
    console.log(JSON.stringify({ exports: Object.keys(element).sort(), element: typeof ArcScopeElement,
      attributes: ArcScopeElement.observedAttributes, cache: analysisCache(), defined: typeof customElements }));
  `);
  const run = spawnSync(process.execPath, ['ssr-check.mjs'], { cwd: consumer, encoding: 'utf8' });
  assert.equal(run.status, 0, `importing arcscope/element in Node failed:\n${run.stderr}`);
  const out = JSON.parse(run.stdout);
  // The exports a browser gets: every export statement of the module the package's "exports" map names.
  const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules', 'arcscope', 'package.json'), 'utf8'));
  const source = readFileSync(join(consumer, 'node_modules', 'arcscope', manifest.exports['./element'].default), 'utf8');
  const declared = [...source.matchAll(/^export (?:class|function|const|let) (\w+)/gm)].map((m) => m[1]).sort();
  assert.deepEqual(out.exports, declared);
  assert.deepEqual(declared, ['ArcScopeElement', 'analysisCache']);
  assert.equal(out.element, 'function');
  assert.ok(out.attributes.includes('text'));
  assert.equal(out.cache.entries, 0);
  assert.equal(out.defined, 'undefined');
});

test('TypeScript: a consumer file using the API and the element type-checks; wrong property types do not', () => {
  const types = join(repoRoot, 'tests', 'package', 'types');
  for (const f of readdirSync(types)) cpSync(join(types, f), join(consumer, f));
  const tsc = (config) => spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p', config], { cwd: consumer, encoding: 'utf8' });
  const good = tsc('tsconfig.json');
  assert.equal(good.status, 0, `uses-api.ts should type-check:\n${good.stdout}${good.stderr}`);
  const bad = tsc('tsconfig.wrong-attribute.json');
  assert.notEqual(bad.status, 0, 'wrong-attribute.ts should not type-check');
  assert.match(bad.stdout, /wrong-attribute\.ts\(\d+,\d+\): error TS2322: Type '"pie"' is not assignable/);
  assert.match(bad.stdout, /error TS2322: Type '"high"' is not assignable/);
  assert.match(bad.stdout, /error TS2339: Property 'count' does not exist on type 'ArcScopeRenderedDetail'/);
});

test("TypeScript + React: <arc-scope> in JSX type-checks after import 'arcscope/react'; wrong values do not", () => {
  // The consumer project above type-checks without React's types: no React, no @types/react needed.
  assert.ok(!existsSync(join(consumer, 'node_modules', '@types', 'react')), 'the consumer project has no @types/react');
  // A React app of its own: the tarball, and React's types beside it as `npm install @types/react` puts them (the
  // repository's copy: no network here).
  const app = join(repoRoot, 'build', 'consumer-react');
  rmSync(app, { recursive: true, force: true });
  mkdirSync(join(app, 'node_modules', '@types'), { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'react-app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: app, stdio: 'pipe' });
  cpSync(join(repoRoot, 'node_modules', '@types', 'react'), join(app, 'node_modules', '@types', 'react'), { recursive: true });
  cpSync(join(repoRoot, 'node_modules', 'csstype'), join(app, 'node_modules', 'csstype'), { recursive: true });
  const types = join(repoRoot, 'tests', 'package', 'types');
  for (const f of readdirSync(types)) cpSync(join(types, f), join(app, f));
  const tsc = (config) => spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p', config], { cwd: app, encoding: 'utf8' });
  // React 19's React.JSX, through the automatic runtime (Vite's React template) and the classic one, and the global
  // JSX namespace (older React types, other JSX libraries).
  for (const config of ['tsconfig.react.json', 'tsconfig.react-classic.json', 'tsconfig.global-jsx.json']) {
    const good = tsc(config);
    assert.equal(good.status, 0, `${config} should type-check:\n${good.stdout}${good.stderr}`);
  }
  const bad = tsc('tsconfig.wrong-react.json');
  console.log(bad.stdout.trim());
  assert.notEqual(bad.status, 0, 'wrong-react.tsx should not type-check');
  const errors = bad.stdout.trim().split('\n');
  assert.equal(errors.length, 2, bad.stdout);
  assert.match(errors[0], /wrong-react\.tsx\(9,\d+\): error TS2322: Type '"pie"' is not assignable to type 'ArcScopeMode/);
  assert.match(errors[1], /wrong-react\.tsx\(10,\d+\): error TS2322: Type '"high"' is not assignable to type 'ArcScopeNumber/);
});
