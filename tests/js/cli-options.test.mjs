// The CLI's options are declared once, in each command's usage line: what --help prints is what the command accepts
// and reads. Every option a usage names is accepted, anything else is refused, and the commands that load a
// tokenizer take --tokenizer (attribute's usage once left it out).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './support.mjs';

const cli = join(repoRoot, 'build', 'native', 'arcscope');
const model = join(repoRoot, 'models', 'shakespeare-4l.q8.arcs');
const tokenizer = join(repoRoot, 'build', 'native', 'gpt2-tokenizer.bin');
const arcscope = (args) => spawnSync(cli, args, { cwd: repoRoot, encoding: 'utf8', input: '', timeout: 60_000 });

// The commands and their usages as --help lists them.
function usages() {
  const run = arcscope(['--help']);
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.split('\n').filter((l) => l.startsWith('  arcscope ')).map((l) => l.slice('  arcscope '.length));
}

// --name and whether a value follows it, read from the usage as a person reads it.
function options(usage) {
  const words = usage.split(/\s+/).map((w) => w.replace(/^[[(]+|[\])]+$/g, ''));
  return words.flatMap((w, i) => (w.startsWith('--')
    ? [{ name: w.slice(2), value: i + 1 < words.length && !words[i + 1].startsWith('--') && words[i + 1] !== '|' }]
    : []));
}

test('every option a usage names is accepted, and one it does not name is refused', () => {
  const commands = usages();
  assert.ok(commands.length >= 14, `${commands.length} commands listed`);
  let tried = 0;
  for (const usage of commands) {
    const command = usage.split(' ')[0];
    for (const { name, value } of options(usage)) {
      // The value is a path that does not exist: the command may fail on it, but never for not knowing the option.
      const run = arcscope([command, `--${name}`, ...(value ? ['no/such/path'] : [])]);
      assert.doesNotMatch(run.stderr, /unknown option|internal error/, `${command} --${name}: ${run.stderr}`);
      tried++;
    }
    const run = arcscope([command, '--not-an-option', 'x']);
    assert.equal(run.status, 1, command);
    assert.match(run.stderr, /^error: unknown option --not-an-option/, command);
  }
  console.log(`${commands.length} commands, ${tried} declared options accepted`);
});

test('each command that loads a tokenizer runs with --tokenizer given', () => {
  const text = ['--text', 'When Mary and John went to the store, John gave a drink to'];
  const runs = [
    ['run', '--model', model, ...text, '--no-attention', '--no-logits'],
    ['lens', '--model', model, ...text, '--k', '2'],
    ['attribute', '--model', model, ...text, '--token', ' Mary'],
    ['ablate', '--model', model, ...text, '--answer', ' Mary', '--wrong', ' John'],
    ['patch', '--model', model, '--clean', 'When Mary and John went, John gave it to',
      '--corrupted', 'When Mary and Anne went, John gave it to', '--answer', ' Mary', '--wrong', ' John'],
    ['generate', '--model', model, ...text, '--tokens', '2'],
    ['tokenize', ...text],
  ];
  for (const args of runs) {
    const run = arcscope([...args, '--tokenizer', tokenizer]);
    assert.equal(run.status, 0, `${args[0]}: ${run.stderr}`);
  }
});

test('an option given twice is refused by name, in every command, not read as its last value', () => {
  let tried = 0;
  for (const usage of usages()) {
    const command = usage.split(' ')[0];
    for (const { name, value } of options(usage)) {
      const once = value ? [`--${name}`, 'no/such/path'] : [`--${name}`];
      const run = arcscope([command, ...once, ...once]);
      assert.equal(run.status, 1, `${command} --${name} twice`);
      assert.match(run.stderr, new RegExp(`^error: option --${name} is given twice: give it once`), `${command}: ${run.stderr}`);
      tried++;
    }
  }
  // The case that was taken silently: the second --dtype won.
  const run = arcscope(['convert', '--in', 'no/such/dir', '--out', 'x.arcs', '--dtype', 'q8', '--dtype', 'f32']);
  assert.match(run.stderr, /^error: option --dtype is given twice/);
  console.log(`${tried} options given twice, each refused`);
});

// A command file's header comment, the // lines it starts with, where it copies a usage: a command in backticks
// followed by options or their brackets (`arcscope run --model FILE ...`).
const copiedUsage = (source) => source.match(/^(?:\/\/.*\n)*/)[0].match(/`(?:arcscope )?[\w-]+ [([]*--[^`]*`/);

test("the command files' header comments say what a command is for and leave its options to the usage", () => {
  const dir = join(repoRoot, 'src', 'cli');
  const files = readdirSync(dir).filter((f) => /^cmd_.*\.cpp$/.test(f));
  assert.ok(files.length >= 14, files.join(' '));
  for (const file of files) {
    const copy = copiedUsage(readFileSync(join(dir, file), 'utf8'));
    assert.equal(copy, null, `${file}'s header copies a usage (${copy}); register_command's is the one`);
  }
  // The forms the check is to catch: run's and heads' headers as they were, each a step behind its usage.
  assert.ok(copiedUsage('// cmd_run.cpp: `arcscope run --model FILE (--text TEXT | --ids 1,2,3) [--out OUT.json]`\n'));
  assert.ok(copiedUsage('// cmd_heads.cpp:\n//   `arcscope heads --model FILE [--seed S]`\n#include <x>\n'));
  assert.equal(copiedUsage('// cmd_x.cpp: `arcscope x`, what it is for; --json prints JSON.\n#include <x>\n'), null);
});
