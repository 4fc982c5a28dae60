// lint-boundaries.test.mjs: the web side's boundaries, checked by ESLint (eslint.config.mjs) as the build checks the
// C++ side's (tests/cpp/layering.cmake). Each probe is a file in a folder, linted with the repository's config through
// ESLint's API (lintText with the probe's path: no file is written), that imports a real file across a boundary or
// uses a global its folder does not run with, and must get exactly that error; the same import or global where it
// is allowed must lint clean, so that each probe fails for the right reason. The real tree must lint clean too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ESLint } from 'eslint';
import { BOUNDARIES } from '../../eslint.config.mjs';
import { repoRoot } from './support.mjs';

const eslint = new ESLint({ cwd: repoRoot });

async function messagesOf(code, filePath) {
  const [result] = await eslint.lintText(code, { filePath: join(repoRoot, filePath) });
  return result.messages.map(({ ruleId, message }) => ({ ruleId, message }));
}

// [boundary, probe file, a real file it imports across that boundary]
const CROSSINGS = [
  ['libToTutorial', 'web/lib/probe.js', '../tutorial/shared/experiment.js'],
  ['libToTutorial', 'web/lib/views/probe.js', '../../tutorial/page/state.js'],
  ['libToTutorial', 'web/lib/shared/probe.js', '../../tutorial/shared/default-model.js'],
  ['engineToViews', 'web/lib/engine/probe.js', '../views/arcs.js'],
  ['engineToViews', 'web/lib/engine.js', './views/heatmap.js'],
  ['engineToViews', 'web/lib/arcscope.js', './views/heatmap.js'],
  ['engineToWorker', 'web/lib/engine/probe.js', '../worker/worker.js'],
  ['engineToWorker', 'web/lib/engine/probe.js', '../worker-client.js'],
  ['engineToElement', 'web/lib/engine/probe.js', '../element/view-options.js'],
  ['engineToElement', 'web/lib/engine.js', './element.js'],
  ['engineToElement', 'web/lib/arcscope.js', './arc-scope.js'],
  ['viewsToWorker', 'web/lib/views/probe.js', '../worker/worker.js'],
  ['viewsToWorker', 'web/lib/views/probe.js', '../worker-client.js'],
  ['viewsToWorker', 'web/tutorial/views/probe.js', '../worker/demos.js'],
  ['workerToPage', 'web/lib/worker/probe.js', '../views/arcs.js'],
  ['workerToPage', 'web/lib/worker/probe.js', '../element/view-options.js'],
  ['workerToPage', 'web/lib/worker/probe.js', '../element.js'],
  ['workerToPage', 'web/tutorial/worker/probe.js', '../page/state.js'],
  ['workerToPage', 'web/tutorial/worker/probe.js', '../../lib/views/heatmap.js'],
  ['tutorialViewsToPage', 'web/tutorial/views/probe.js', '../page/state.js'],
];

// [probe file, a real file it may import]: the folders above, importing what they do today.
const ALLOWED = [
  ['web/lib/probe.js', './views/arcs.js'],
  ['web/lib/engine/probe.js', '../shared/lru-map.js'],
  ['web/lib/engine.js', './engine/tokenizer.js'],
  ['web/lib/views/probe.js', '../shared/attention-math.js'],
  ['web/lib/worker/probe.js', '../shared/token-text.js'],
  ['web/tutorial/views/probe.js', '../../lib/views/arcs.js'],
  ['web/tutorial/views/probe.js', '../shared/default-model.js'],
  ['web/tutorial/worker/probe.js', '../../lib/worker/worker.js'],
  ['web/tutorial/page/probe.js', '../views/heads-scores.js'],
];

// The three ways a module reaches another: an import, a re-export, and import() with a literal path.
const FORMS = [
  { name: 'import', code: (target) => `import '${target}';\n`, ruleId: 'no-restricted-imports' },
  { name: 're-export', code: (target) => `export * from '${target}';\n`, ruleId: 'no-restricted-imports' },
  {
    name: 'import()', code: (target) => `export const load = () => import('${target}');\n`,
    ruleId: 'no-restricted-syntax',
  },
];

test('every probe imports a file that exists', () => {
  for (const [file, target] of [...CROSSINGS.map(([, ...probe]) => probe), ...ALLOWED]) {
    assert.ok(existsSync(join(repoRoot, dirname(file), target)), `${file} -> ${target}`);
  }
});

test('every boundary has a probe', () => {
  assert.deepEqual(new Set(CROSSINGS.map(([name]) => name)), new Set(Object.keys(BOUNDARIES)));
});

for (const [name, file, target] of CROSSINGS) {
  test(`${name}: ${file} importing ${target} is refused`, async () => {
    for (const form of FORMS) {
      const messages = await messagesOf(form.code(target), file);
      assert.equal(messages.length, 1, `${form.name}: ${JSON.stringify(messages)}`);
      assert.equal(messages[0].ruleId, form.ruleId, form.name);
      assert.ok(messages[0].message.endsWith(BOUNDARIES[name].message), `${form.name}: ${messages[0].message}`);
    }
  });
}

test('the same folders importing what they may lint clean', async () => {
  for (const [file, target] of ALLOWED) {
    for (const form of FORMS) assert.deepEqual(await messagesOf(form.code(target), file), [], `${file} -> ${target}`);
  }
});

// [probe file, a global, whether the code there runs where that global exists]
const GLOBALS = [
  ['web/lib/views/probe.js', 'document', true],
  ['web/lib/views/probe.js', 'importScripts', false],
  ['web/lib/views/probe.js', 'process', false],
  ['web/tutorial/page/probe.js', 'document', true],
  ['web/tutorial/page/probe.js', 'process', false],
  ['web/lib/worker/probe.js', 'importScripts', true],
  ['web/lib/worker/probe.js', 'document', false],
  ['web/tutorial/worker/probe.js', 'postMessage', true],
  ['web/tutorial/worker/probe.js', 'window', false],
  ['web/lib/shared/probe.js', 'indexedDB', true],
  ['web/lib/shared/probe.js', 'document', false],
  ['web/lib/shared/probe.js', 'importScripts', false],
  ['web/tutorial/shared/probe.js', 'document', false],
  ['web/lib/engine/probe.js', 'WebAssembly', true],
  ['web/lib/engine/probe.js', 'fetch', true],
  ['web/lib/engine/probe.js', 'self', false],
  ['web/lib/engine/probe.js', 'process', false],
  ['web/lib/engine.js', 'document', false],
  ['web/lib/arcscope.js', 'document', false],
  ['scripts/probe.mjs', 'process', true],
  ['scripts/probe.mjs', 'document', false],
  ['tests/js/probe.test.mjs', 'window', false],
  ['tests/e2e/probe.spec.mjs', 'process', true],
  ['tests/e2e/probe.spec.mjs', 'document', true],
];

for (const [file, name, defined] of GLOBALS) {
  test(`${file} ${defined ? 'has' : 'has no'} ${name}`, async () => {
    const messages = await messagesOf(`export const probe = () => ${name};\n`, file);
    assert.deepEqual(messages, defined ? [] : [{ ruleId: 'no-undef', message: `'${name}' is not defined.` }]);
  });
}

test('the web side as it stands lints clean', async () => {
  const results = await eslint.lintFiles(['web']);
  const errors = results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(repoRoot.length)}:${m.line} ` +
    `${m.message}`));
  assert.ok(results.length > 40, `${results.length} files linted`);
  assert.deepEqual(errors, []);
});
