// docs.test.mjs: every code block of README.md and docs/embedding.md runs as a reader would paste it. JavaScript in
// a project that installed the package (consumer.mjs), shell from the repository root, C++ through the compiler;
// HTML blocks run in Chromium (tests/package/package.spec.mjs). A block marked "not run by the docs test" says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeBlocks } from './code-blocks.mjs';
import { installedConsumer, repoRoot } from './consumer.mjs';

const consumer = installedConsumer();
const docs = ['README.md', 'docs/embedding.md'];
const run = {
  js: (code, name) => {
    writeFileSync(join(consumer, name), code);
    return execFileSync(process.execPath, [name], { cwd: consumer, encoding: 'utf8', timeout: 120_000 });
  },
  sh: (code) => execFileSync('bash', ['-euo', 'pipefail', '-c', code], { cwd: repoRoot, encoding: 'utf8', timeout: 300_000 }),
  cpp: (code, name) => {
    const exe = join(repoRoot, 'build', name.replace(/\.mjs$/, ''));
    const libs = ['analysis', 'model', 'formats', 'kernels', 'tokenizer', 'article', 'core'].map((l) => `build/native/libarcscope_${l}.a`);
    // The library's own flags: Eigen's object layout follows -march, so a program built without it corrupts memory.
    execFileSync('g++', ['-std=c++17', '-O1', '-march=native', '-ffp-contract=off', '-Iinclude', '-isystem', '/usr/include/eigen3', '-x', 'c++', '-', '-x', 'none',
      ...libs, '-o', exe], { cwd: repoRoot, input: code, encoding: 'utf8' });
    return execFileSync(exe, { cwd: repoRoot, encoding: 'utf8' });
  },
};
const browserOnly = new Set(['html', 'css', 'http']);  // run (or served) in Chromium by tests/package/package.spec.mjs

for (const doc of docs) {
  for (const block of codeBlocks(join(repoRoot, doc))) {
    const name = `${doc}:${block.line} (${block.lang || 'no language'})`;
    if (block.skip || browserOnly.has(block.lang)) continue;
    test(`${name} runs as written`, () => {
      assert.ok(run[block.lang], `${name}: no way to run a block in "${block.lang}"; give it a language or mark it not run`);
      const out = run[block.lang](block.code, `doc-block-${block.line}.mjs`);
      if (out.trim()) console.log(out.trim().split('\n').slice(0, 12).join('\n'));
    });
  }
}

test('the docs tests run something', () => {
  const counted = docs.flatMap((d) => codeBlocks(join(repoRoot, d))).filter((b) => !b.skip);
  assert.ok(counted.length >= 3, `only ${counted.length} runnable blocks found`);
});

test("the docs' HTTP headers are one line each, as a server sends them", () => {
  for (const doc of docs) {
    for (const block of codeBlocks(join(repoRoot, doc)).filter((b) => b.lang === 'http')) {
      for (const line of block.code.trimEnd().split('\n')) {
        assert.match(line, /^[A-Za-z-]+: \S/, `${doc}:${block.line}: "${line}" is not a header line (Name: value)`);
      }
    }
  }
});

test('embed.html installs the tarball, as the guide does: arcscope is not on the npm registry', () => {
  const page = readFileSync(join(repoRoot, 'web', 'embed.html'), 'utf8').replace(/\s+/g, ' ');
  assert.match(page, /npm install \/path\/to\/arcscope-&lt;version&gt;\.tgz/);
  // "npm install arcscope" only where the page says that it fails
  for (const m of page.matchAll(/npm install arcscope\b/g)) {
    assert.match(page.slice(m.index, m.index + 60), /fails/, `embed.html: "${page.slice(m.index - 40, m.index + 60)}"`);
  }
});
