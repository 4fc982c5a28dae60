// docs-paths.test.mjs: every repository path the docs name exists, so that a moved or deleted file cannot leave a
// map, a table or a link pointing at nothing. The docs: README.md, CONTRIBUTING.md, web/README.md, models/README.md
// and docs/*.md.
//
// What counts as a repository path:
// - a markdown link's target that is not a URL (no scheme) nor an anchor, resolved from the doc's folder;
// - a word anywhere in the doc (prose, code spans, code blocks) that starts with a folder the repository tracks at
//   its top (`src/`, `web/`, `tests/`, ...; `./` before it allowed) or, for a doc in a subfolder, with a folder
//   beside the doc (web/README.md's `lib/`, `tutorial/`, `js/`), resolved from there. A word inside a URL or a
//   longer path does not start one. Outputs git ignores (`build/...`, `dist/...`) are not repository paths;
// - in a map (a code block without a language), a line's first word where the line starts at column 0 (from the
//   doc's folder) or at column 2 (under the last column-0 folder above it), if it has a `/` or a file extension;
// - a code span that is a source file's bare name (`boundary.js`, `support.py`, `quant_layout.h`): some file of the
//   repository has that name. Another project's file is named by its path there (`transformers/models/...`).
// A pattern (`cmd_<name>.cpp`, `test_*.py`, `...`) is checked up to its last `/` before the placeholder: that
// folder must exist. Trailing punctuation and a `:line` suffix are not part of the path.
// And web/README.md's map is whole: it names every file under web/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const docs = ['README.md', 'CONTRIBUTING.md', 'web/README.md', 'models/README.md',
  ...readdirSync(join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

// The repository's files: those git tracks, and new ones it would (not ignored as build/, dist/, node_modules/ are).
const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot,
  encoding: 'utf8' }).split('\n').filter(Boolean);
const fileNames = new Set(tracked.map((f) => posix.basename(f)));

// The folders directly under a folder of the repository ('' for the root).
function trackedFolders(folder) {
  const prefix = folder ? `${folder}/` : '';
  const names = tracked.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length).split('/'));
  return [...new Set(names.filter((parts) => parts.length > 1).map((parts) => parts[0]))];
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The part of a path that must exist: up to a placeholder's folder, without trailing punctuation or `:line`.
function checkedPart(path) {
  let p = path.replace(/:\d+$/, '').replace(/[.,;:)'"`]+$/, '');
  const placeholder = p.search(/[<*{]|\.\.\./);
  if (placeholder >= 0) p = p.slice(0, p.lastIndexOf('/', placeholder) + 1);
  return p.replace(/^\.\//, '');
}

// The repository paths `text`, as the doc at `doc` (relative to the root), names: [{path, from, line}], each path
// relative to the root, or [{name, from, line}] for a bare file name; `from` is what named it.
export function namedPaths(doc, text) {
  const folder = posix.dirname(doc) === '.' ? '' : posix.dirname(doc);
  const lineOf = (index) => text.slice(0, index).split('\n').length;
  const found = [];
  const add = (path, base, from, index) => {
    const part = checkedPart(path);
    if (part) found.push({ path: posix.join(base, part), from, line: lineOf(index) });
  };

  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1].replace(/#.*$/, '');
    if (target && !/^[a-z][a-z0-9+.-]*:/i.test(target)) add(target, folder, `link ${m[1]}`, m.index);
  }

  const bases = [['', trackedFolders('')], ...(folder ? [[folder, trackedFolders(folder)]] : [])];
  for (const [base, names] of bases.filter(([, names]) => names.length)) {
    const word = new RegExp(`(?<![\\w./:@-])(?:\\./)?(?:${names.map(escape).join('|')})/[^\\s\`'"()\\[\\]|,;]*`, 'g');
    for (const m of text.matchAll(word)) add(m[0], base, m[0], m.index);
  }

  const sourceName = /`([\w.-]+\.(?:m?js|cpp|h|py|sh|cmake|css|html|tsx?|ipynb))`/g;
  for (const m of text.matchAll(sourceName)) found.push({ name: m[1], from: m[0], line: lineOf(m.index) });

  let block = null;  // in a fenced block: its language, and the folder its map's column-2 entries are under
  let index = 0;
  for (const line of text.split('\n')) {
    const fence = line.match(/^```(\S*)/);
    if (fence) block = block ? null : { lang: fence[1], under: null };
    else if (block && !block.lang) {
      const top = line.match(/^([^\s|]+)/);
      const name = (top ?? line.match(/^ {2}([^\s|]+)/))?.[1];
      if (name && (name.includes('/') || /\.\w+$/.test(name))) {
        if (top) block.under = name.endsWith('/') ? name : null;
        if (top || block.under) add(name, top ? folder : posix.join(folder, block.under), `map entry ${name}`, index);
      }
    }
    index += line.length + 1;
  }
  return found;
}

// The named paths of `text` that do not exist.
export function missingPaths(doc, text) {
  const exists = ({ path, name }) => (path ? existsSync(join(repoRoot, path)) : fileNames.has(name));
  return namedPaths(doc, text).filter((named) => !exists(named));
}

for (const doc of docs) {
  test(`${doc}: every repository path it names exists`, () => {
    const missing = missingPaths(doc, readFileSync(join(repoRoot, doc), 'utf8'));
    assert.deepEqual(missing.map(({ path, name, from, line }) => `${doc}:${line}: ${path ?? name} (${from})`), []);
  });
}

// The files under web/ (of `files`) that web/README.md's map, in `text`, does not name: each is an entry of its own,
// or lies in a folder entry with no entries under it (lib/types/).
function unmapped(text, files) {
  const entries = namedPaths('web/README.md', text).filter(({ from }) => from.startsWith('map entry'))
    .map(({ path }) => path);
  const leaves = entries.filter((e) => e.endsWith('/') && !entries.some((o) => o !== e && o.startsWith(e)));
  return files.filter((f) => f.startsWith('web/') && f !== 'web/README.md' && !entries.includes(f) &&
    !leaves.some((folder) => f.startsWith(folder)));
}

test("web/README.md's map names every file under web/", () => {
  const map = readFileSync(join(repoRoot, 'web/README.md'), 'utf8');
  assert.deepEqual(unmapped(map, tracked), [], 'add each to the map, with a line on what it holds');
  const probe = ['```', 'lib/types/    declarations', 'lib/views/', '  arcs.js     the arcs', '```'].join('\n');
  assert.deepEqual(unmapped(probe, ['web/lib/types/a.d.ts', 'web/lib/views/arcs.js', 'web/lib/views/new.js']),
    ['web/lib/views/new.js']);
});

test('the check finds paths in every form it reads, and reports the missing ones', () => {
  const probe = [
    'Prose names web/lib/no-such-file.js and `./scripts/no-such-script.sh`, in code spans or not.',
    'A [link](../tests/no-such-test.mjs) and a [good one](lib/arc-scope.js), https://example.com/src/x and build/x.',
    '```',
    'lib/               a folder that exists',
    '  no-such-part.js  under it, missing',
    'no-such-page.html  at the top, missing',
    '                   engine/ a continuation line, not an entry',
    '```',
    'A pattern: `src/cli/cmd_<name>.cpp`, `tests/no-such-folder/test_*.py`. Bare: `boundary.js`, `no-such-module.mjs`.',
  ].join('\n');
  const named = namedPaths('web/README.md', probe).map(({ path, name }) => path ?? name);
  for (const path of ['web/lib/arc-scope.js', 'src/cli/', 'web/lib/', 'boundary.js']) {
    assert.ok(named.includes(path), `${path} not read`);
  }
  const notPaths = named.filter((p) => p.startsWith('build') || p.includes('example.com') || p.includes('engine'));
  assert.deepEqual(notPaths, []);
  assert.deepEqual(missingPaths('web/README.md', probe).map(({ path, name }) => path ?? name).sort(), [
    'no-such-module.mjs', 'scripts/no-such-script.sh', 'tests/no-such-folder/', 'tests/no-such-test.mjs',
    'web/lib/no-such-file.js', 'web/lib/no-such-part.js', 'web/no-such-page.html',
  ]);
});

test('the docs name enough paths for the check to mean something', () => {
  const named = docs.flatMap((doc) => namedPaths(doc, readFileSync(join(repoRoot, doc), 'utf8')));
  console.log(`${named.length} paths named in ${docs.length} docs`);
  assert.ok(named.length > 200, `only ${named.length} paths found`);
});
