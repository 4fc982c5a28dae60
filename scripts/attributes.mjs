// attributes.mjs: writes what is said of each <arc-scope> attribute elsewhere from its declaration
// (web/lib/element/arc-scope-attributes.js): the attribute table of docs/embedding.md and of web/embed.html, and the
// element's accessors and its attributes' value types (ArcScopeAttributes, what JSX takes) in
// web/lib/types/element.d.ts, each between its two marker lines.
// Usage: node scripts/attributes.mjs           rewrite them
//        node scripts/attributes.mjs --check   exit 1, naming the files, when one is not what the declaration says
// tests/js/attributes.test.mjs runs the check.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ATTRIBUTES, defaultDoc } from '../web/lib/element/arc-scope-attributes.js';

const root = new URL('..', import.meta.url);
const WHERE = 'written by scripts/attributes.mjs from web/lib/element/arc-scope-attributes.js';

const entries = Object.entries(ATTRIBUTES);
const unlinked = (md) => md.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1');
const escapeHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
// ' (default: ...)' after a doc line, or nothing when there is none
const withDefault = (name, write) => (defaultDoc(name) === 'none' ? '' : ` (default: ${write(defaultDoc(name))})`);
const html = (md) => escapeHtml(unlinked(md)).replace(/`([^`]+)`/g, '<code>$1</code>');

// A doc comment of text, indented, wrapped to 120 columns.
function docComment(text, indent) {
  const one = `${indent}/** ${text} */`;
  if (one.length <= 120) return [one];
  const lines = [];
  let line = `${indent} *`;
  for (const w of text.split(' ')) {
    if (`${line} ${w}`.length > 120) { lines.push(line); line = `${indent} *`; }
    line += ` ${w}`;
  }
  return [`${indent}/**`, ...lines, line, `${indent} */`];
}

// Each file's part: [file, first marker, last marker, lines between them].
export const parts = () => [
  ['docs/embedding.md', `<!-- attributes: ${WHERE} -->`, '<!-- /attributes -->', [
    '| attribute | values | default |',
    '| --- | --- | --- |',
    ...entries.map(([name, a]) => `| \`${name}\` | ${a.doc} | ${defaultDoc(name)} |`),
  ]],
  ['web/embed.html', `<!-- attributes: ${WHERE} -->`, '<!-- /attributes -->', entries.map(([name, a]) =>
    `        <tr><td><code>${name}</code></td><td>${html(a.doc)}${withDefault(name, html)}</td></tr>`)],
  ['web/lib/types/element.d.ts', `  // attributes: ${WHERE}`, '  // /attributes', entries.flatMap(([name, a]) => [
    ...docComment(`${unlinked(a.doc)}${withDefault(name, unlinked)}`, '  '),
    `  get ${name}(): string | null;`,
    `  set ${name}(value: ${a.type} | null | undefined);`,
  ])],
  ['web/lib/types/element.d.ts', `  // attribute values: ${WHERE}`, '  // /attribute values', entries.flatMap(([name, a]) => [
    ...docComment(`${unlinked(a.doc)}${withDefault(name, unlinked)}`, '  '),
    `  ${name}?: ${a.type} | null;`,
  ])],
];

// The file's text with its part replaced.
export function rewritten(text, file, first, last, lines) {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const all = text.split(eol);
  const from = all.findIndex((l) => l.trim() === first.trim());
  const to = all.findIndex((l, i) => i > from && l.trim() === last.trim());
  if (from < 0 || to < 0) throw new Error(`${file}: the lines "${first.trim()}" and "${last.trim()}" are not both there`);
  return [...all.slice(0, from + 1), ...lines, ...all.slice(to)].join(eol);
}

// -> the files whose part differs from the declaration (written unless check).
export function update({ check = false } = {}) {
  const stale = [];
  for (const [file, first, last, lines] of parts()) {
    const path = fileURLToPath(new URL(file, root));
    const text = readFileSync(path, 'utf8');
    const next = rewritten(text, file, first, last, lines);
    if (next === text) continue;
    stale.push(file);
    if (!check) writeFileSync(path, next);
  }
  return stale;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const stale = update({ check });
  if (check && stale.length) {
    console.error(`attributes: ${stale.join(', ')} not as web/lib/element/arc-scope-attributes.js declares; ` +
      'run node scripts/attributes.mjs');
    process.exit(1);
  }
  console.log(stale.length ? `attributes: wrote ${stale.join(', ')}` : 'attributes: up to date');
}
