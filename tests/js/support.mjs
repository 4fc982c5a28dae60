// support.mjs: shared set-up for the Node suites: one engine per test process, paths in the repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../build/lib/engine.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const python = '/usr/bin/python3';  // Debian's interpreter, the one with torch

let enginePromise = null;
export function engine() {
  enginePromise ??= createEngine();
  return enginePromise;
}

// The kernel diagnostics module (arcscope_diagnostics.js): the kernels' self-check and timings, kept out of the
// browser module.
let diagnosticsPromise = null;
export function diagnostics() {
  diagnosticsPromise ??= (async () => {
    const { default: create } = await import('../../build/wasm/arcscope_diagnostics.js');
    const { readFile } = await import('node:fs/promises');
    return create({ wasmBinary: await readFile(new URL('../../build/wasm/arcscope_diagnostics.wasm', import.meta.url)) });
  })();
  return diagnosticsPromise;
}

// The bits GPT-2's files keep of each weight and activation, per dtype (models/README.md: its q16 is 14-bit).
const GPT2_BITS = { q8: [8, 14], q16: [14, 14], f32: [32, 32] };

// model.config of a GPT-2 of these sizes (n_vocab 50257 unless given), its checksum left out.
export const gpt2Config = ({ n_layer, n_head, n_embd, n_ctx, n_vocab = 50257, dtype, kvCache = 'f32' }) => ({
  architecture: 'gpt2', n_layer, n_head, n_kv_head: n_head, d_head: n_embd / n_head, n_embd, d_mlp: 4 * n_embd, n_ctx,
  n_vocab, norm: 'layernorm', norm_eps: 1e-5, positions: 'learned', mlp: 'gelu_tanh', parallel_residual: false,
  tied_head: true, qk_norm: false, patternHooks: ['attn.hook_q', 'attn.hook_k'], dtype,
  weightBits: GPT2_BITS[dtype][0], activationBits: GPT2_BITS[dtype][1], kvCache, tokenizer: 'gpt2',
});

// Largest |a[i] - b[i]|; the arrays must be the same length.
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

// A Llama-layout checkpoint (TinyLlama's grouping and Llama 2's 32,000-token vocabulary, 2 narrow layers) written into
// dir by scripts/make_checkpoint.py, for the tests that give it Llama 2's real tokenizer files.
export function llama2ShapedCheckpoint(dir) {
  mkdirSync(dir, { recursive: true });
  execFileSync(python, [`${repoRoot}scripts/make_checkpoint.py`, '--out', dir, '--arch', 'llama', '--seed', '5',
    '--n-layer', '2', '--n-head', '4', '--n-kv-head', '2', '--n-embd', '64', '--ffn', '96', '--n-ctx', '256',
    '--vocab', '32000', '--dtype', 'BF16']);
  return dir;
}
