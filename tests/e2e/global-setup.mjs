// Makes the browser tests' model fixtures once (kept under build/, never committed): a tiny random GPT-2 in the
// Hugging Face layout (model.safetensors + config.json, as people download them) and its int8 conversion.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';

export const FIXTURES = 'build/test-fixtures';

export default function globalSetup() {
  const hf = `${FIXTURES}/tiny-hf`, arcs = `${FIXTURES}/tiny.q8.arcs`;
  mkdirSync(FIXTURES, { recursive: true });
  if (!existsSync(`${hf}/model.safetensors`)) {
    execFileSync('/usr/bin/python3', ['scripts/make_checkpoint.py', '--out', hf, '--n-layer', '2', '--n-head', '3',
      '--n-embd', '48', '--n-ctx', '128', '--vocab', '50257', '--seed', '11'], { stdio: 'inherit' });
  }
  if (!existsSync(arcs)) {
    execFileSync('build/native/arcscope', ['convert', '--in', hf, '--out', arcs, '--dtype', 'q8'], { stdio: 'inherit' });
  }
}
