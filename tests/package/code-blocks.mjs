// code-blocks.mjs: the fenced code blocks of a markdown file, so tests can run what the docs show. A block right
// after a line `<!-- not run by the docs test: why -->` is skipped, and says why where the reader sees it.
import { readFileSync } from 'node:fs';

// -> [{lang, code, line, skip: reason | null}]
export function codeBlocks(path) {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^```(\w*)\s*$/);
    if (!open) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    let before = start - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const skip = before >= 0 ? lines[before].match(/^<!-- not run by the docs test: (.+) -->$/) : null;
    blocks.push({ lang: open[1], code: `${body.join('\n')}\n`, line: start + 1, skip: skip ? skip[1] : null });
  }
  return blocks;
}
