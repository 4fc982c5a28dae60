// cli-outputs.test.mjs: what the CLI writes never destroys what it reads, and a write that fails leaves the file that
// was there. An output naming an input under any name (itself, "./x", a symbolic or hard link) is refused before
// anything is read; a file is written beside its place and renamed into it only when whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync }
  from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './support.mjs';
import { checkpoint } from './crafted-files.mjs';

const cli = join(repoRoot, 'build', 'native', 'arcscope');
const arcscope = (args) => spawnSync(cli, args, { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
const CONFIG = { model_type: 'gpt2', n_layer: 2, n_head: 2, n_embd: 32, n_positions: 16, vocab_size: 96 };

function checkpointDir() {
  const dir = mkdtempSync(join(tmpdir(), 'arcscope-cli-outputs-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(CONFIG));
  writeFileSync(join(dir, 'model.safetensors'), checkpoint(CONFIG));
  return dir;
}

test('convert refuses an output that is one of its inputs, under any name, and leaves the input whole', () => {
  const dir = checkpointDir();
  try {
    const weights = readFileSync(join(dir, 'model.safetensors'));
    const config = readFileSync(join(dir, 'config.json'));
    symlinkSync('model.safetensors', join(dir, 'soft.arcs'));
    linkSync(join(dir, 'model.safetensors'), join(dir, 'hard.arcs'));
    for (const out of ['model.safetensors', './model.safetensors', '../' + dir.split('/').pop() + '/config.json',
      'soft.arcs', 'hard.arcs', 'config.json']) {
      const run = arcscope(['convert', '--in', dir, '--out', join(dir, out), '--dtype', 'q8']);
      assert.equal(run.status, 1, `--out ${out}: ${run.stdout}`);
      assert.match(run.stderr, /converting would overwrite its own input \(give another --out\)/, out);
    }
    assert.deepEqual(readFileSync(join(dir, 'model.safetensors')), weights);
    assert.deepEqual(readFileSync(join(dir, 'config.json')), config);
    assert.equal(arcscope(['convert', '--in', dir, '--out', join(dir, 'model.arcs'), '--dtype', 'q8']).status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every command refuses an --out or --logits-bin that is a file another option reads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arcscope-cli-outputs-'));
  try {
    const model = join(dir, 'model.arcs');
    copyFileSync(join(repoRoot, 'models', 'shakespeare-4l.q8.arcs'), model);
    const bytes = readFileSync(model);
    const tokenizer = join(repoRoot, 'build', 'native', 'gpt2-tokenizer.bin');
    const runs = [
      ['run', '--model', model, '--text', 'Where is', '--out', join(dir, '.', 'model.arcs')],
      ['run', '--model', model, '--text', 'Where is', '--logits-bin', model],
      ['run', '--model', model, '--text', 'Where is', '--tokenizer', tokenizer, '--out', tokenizer],
      ['attribute', '--model', model, '--text', 'Where is', '--token', ' the', '--out', model],
      ['lens', '--model', model, '--text', 'Where is', '--out', model],
    ];
    for (const args of runs) {
      const before = readFileSync(args.at(-1));
      const run = arcscope(args);
      assert.equal(run.status, 1, args.join(' '));
      assert.match(run.stderr, /^error: --(out|logits-bin) .* is the file --(model|tokenizer) reads: writing it would destroy the input/,
        args.join(' '));
      assert.deepEqual(readFileSync(args.at(-1)), before, `${args[0]} changed its input`);
    }
    assert.deepEqual(readFileSync(model), bytes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a write that fails leaves the file that was there, and no partial file beside it', () => {
  const dir = checkpointDir();
  try {
    const out = join(dir, 'model.arcs');
    writeFileSync(out, 'the model converted last week');
    // A file size limit of 1 KB (SIGXFSZ ignored, so the write fails with EFBIG as a full disk's would with ENOSPC).
    const run = spawnSync('bash', ['-c', 'trap "" XFSZ; ulimit -f 1; exec "$0" "$@"', cli, 'convert', '--in', dir,
      '--out', out, '--dtype', 'q8'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 1, run.stdout);
    assert.match(run.stderr, /^error: cannot write .*model\.arcs: File too large \(the file there is unchanged\)/);
    assert.equal(readFileSync(out, 'utf8'), 'the model converted last week');
    assert.deepEqual(readdirSync(dir).sort(), ['config.json', 'model.arcs', 'model.safetensors']);
    // And when it succeeds, the file is replaced whole.
    assert.equal(arcscope(['convert', '--in', dir, '--out', out, '--dtype', 'q8']).status, 0);
    assert.equal(readFileSync(out).subarray(0, 8).toString(), 'ARCSCOPE');
    assert.deepEqual(readdirSync(dir).sort(), ['config.json', 'model.arcs', 'model.safetensors']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
