// ESLint (pinned in package-lock.json), run in check mode by scripts/lint.sh: `npx eslint .`
// Besides the code's form it checks the web side's boundaries, as tests/cpp/layering.cmake does the C++ side's:
// each folder sees only the globals of where it runs, and imports that point up or sideways are errors
// (tests/js/lint-boundaries.test.mjs makes each rule fail on a probe file).
import js from '@eslint/js';
import globals from 'globals';

// Where code runs. Code that both the page and a worker load may use only what both have (no document, no
// importScripts); the engine also runs in Node, so it may use only what all three have. ESLint merges the globals of
// every config a file matches, so each set turns the others' off: the last match says where a file runs.
const common = (...environments) => Object.fromEntries(Object.entries(environments[0])
  .filter(([name]) => environments.every((environment) => name in environment)));
const NONE = Object.fromEntries(Object.keys({ ...globals.browser, ...globals.worker, ...globals.node })
  .map((name) => [name, 'off']));
const runsIn = (...environments) => ({ ...NONE, ...common(...environments) });
const NODE = runsIn(globals.node);
const PAGE = runsIn(globals.browser);
const WORKER = runsIn(globals.worker);
const PAGE_AND_WORKER = runsIn(globals.browser, globals.worker);
const ANYWHERE = runsIn(globals.browser, globals.worker, globals.node);
const NODE_DRIVING_PAGE = { ...NONE, ...globals.node, ...globals.browser };

// Imports that point the wrong way: a regex over the import's path as written, which names the folder it reaches
// whichever way it gets there ('../views/x.js', '../../lib/views/x.js').
export const BOUNDARIES = {
  libToTutorial: {
    regex: '(^|/)tutorial/',
    message: 'web/lib is the library: it must not import the tutorial page (web/tutorial), which is built on it.',
  },
  engineToViews: {
    regex: '(^|/)views/',
    message: 'the engine (engine.js, engine/) runs in workers and Node: it must not import views, which draw.',
  },
  engineToWorker: {
    regex: '(^|/)worker(/|-client\\.js$)',
    message: 'the engine must not import the worker or its client: the worker drives the engine, not the reverse.',
  },
  engineToElement: {
    regex: '(^|/)(element/|element\\.js$|arc-scope\\.js$|react\\.js$)',
    message: 'the engine must not import the <arc-scope> element or its options: the element is built on the engine.',
  },
  viewsToWorker: {
    regex: '(^|/)worker(/|-client\\.js$)',
    message: 'views draw what they are given: they must not import the worker or its client (code both need goes ' +
      'in shared/).',
  },
  workerToPage: {
    regex: '(^|/)(views/|element/|page/|element\\.js$|arc-scope\\.js$|react\\.js$)',
    message: 'a worker has no DOM: it must not import views, the element or the page (code both run goes in shared/).',
  },
  tutorialViewsToPage: {
    regex: '(^|/)page/',
    message: 'tutorial/views draw what the page gives them: they must not import tutorial/page (what both need ' +
      'goes in tutorial/shared/).',
  },
};

// Each folder's boundaries; a file under several of these globs gets the last one's, so each list is whole.
const ENGINE = ['web/lib/engine.js', 'web/lib/arcscope.js', 'web/lib/engine/**'];
const FOLDER_BOUNDARIES = [
  { files: ['web/lib/**'], names: ['libToTutorial'] },
  { files: ENGINE, names: ['libToTutorial', 'engineToViews', 'engineToWorker', 'engineToElement'] },
  { files: ['web/lib/views/**'], names: ['libToTutorial', 'viewsToWorker'] },
  { files: ['web/lib/worker/**'], names: ['libToTutorial', 'workerToPage'] },
  { files: ['web/tutorial/views/**'], names: ['viewsToWorker', 'tutorialViewsToPage'] },
  { files: ['web/tutorial/worker/**'], names: ['workerToPage'] },
];

// A boundary is checked on static imports and re-exports (no-restricted-imports) and on import() with a literal path
// (no-restricted-syntax), so a lazy import cannot cross one either.
function boundaryRules(names) {
  const chosen = names.map((name) => BOUNDARIES[name]);
  return {
    'no-restricted-imports': ['error', { patterns: chosen.map(({ regex, message }) => ({ regex, message })) }],
    'no-restricted-syntax': ['error', ...chosen.map(({ regex, message }) => ({
      selector: `ImportExpression > Literal.source[value=/${regex.replaceAll('/', '\\/')}/]`,
      message,
    }))],
  };
}

export default [
  { ignores: ['build/', 'dist/', 'node_modules/'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: NODE },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'none', argsIgnorePattern: '^_' }],
      'prefer-const': ['error', { destructuring: 'all' }],
      'no-var': 'error',
      eqeqeq: ['error', 'smart'],
      'no-implicit-globals': 'error',
      'no-shadow-restricted-names': 'error',
    },
  },
  // Node: scripts/, the tests and the configs (the default above). Playwright and WebDriver specs, and the benchmarks
  // that drive a browser, run in Node and hand functions to the page (page.evaluate), which run there.
  {
    files: ['tests/e2e/**', 'tests/jupyter/**', 'tests/browsers/**', 'tests/package/package.spec.mjs',
      'scripts/bench_page.mjs', 'scripts/bench/{bench,long_text,patching,relaxed_simd,section7}.mjs'],
    languageOptions: { globals: NODE_DRIVING_PAGE },
  },
  // The page's code, in the page (a page script among the specs above is the page's alone):
  {
    files: ['web/**', 'jupyter/**/*.js', 'tests/browsers/page-watch.js', 'scripts/bench/page.mjs'],
    languageOptions: { globals: PAGE },
  },
  // Code that the page and the workers both load.
  {
    files: ['web/lib/shared/**', 'web/lib/assets.js', 'web/tutorial/shared/**'],
    languageOptions: { globals: PAGE_AND_WORKER },
  },
  // The engine: the page, workers and Node.
  { files: ENGINE, languageOptions: { globals: ANYWHERE } },
  // Emscripten's --pre-js, inside the engine's module (it declares Module, the module object, itself).
  { files: ['src/bindings/**/*.js'], languageOptions: { globals: ANYWHERE } },
  // The workers: the library's (worker/) and the tutorial's, which imports it.
  { files: ['web/lib/worker/**', 'web/tutorial/worker/**'], languageOptions: { globals: WORKER } },
  ...FOLDER_BOUNDARIES.map(({ files, names }) => ({ files, rules: boundaryRules(names) })),
];
