// The wasm module's kernels on GPT-2 small's five matrix shapes in Node (one thread), and its streaming-read
// bandwidth over a buffer the size of GPT-2 small's int8 weights. Usage: node scripts/bench_kernels.mjs [--reps N]
import fs from 'node:fs';
import createArcscopeDiagnostics from '../build/wasm/arcscope_diagnostics.js';

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1]) || 5;
const wasm = new URL('../build/wasm/arcscope_diagnostics.wasm', import.meta.url);
const core = await createArcscopeDiagnostics({ wasmBinary: fs.readFileSync(wasm) });

// (in_features x out_features) as GPT-2 names them; the kernels see rows = out, cols = in.
const shapes = [[768, 2304], [768, 768], [768, 3072], [3072, 768], [768, 50257]];
console.log(`kernels: ${core.kernelIsa()} (wasm, Node ${process.versions.node})`);
console.log('| dtype | shape (in x out) | T | best ms | median ms | GOP/s | GB/s |\n|---|---|---|---|---|---|---|');
for (const dtype of ['q8', 'q16', 'f32']) {
  for (const [inF, outF] of shapes) {
    for (const T of [1, 64]) {
      const k = core.benchLinear(dtype, outF, inF, T, reps);
      console.log(`| ${dtype} | ${inF}x${outF} | ${T} | ${k.bestMs.toFixed(3)} | ${k.medianMs.toFixed(3)} | ` +
        `${k.gops.toFixed(1)} | ${k.gbs.toFixed(2)} |`);
    }
  }
}
const floorBytes = 124 * 2 ** 20;  // about GPT-2 small's int8 weights, read once per decoded token
console.log(`streaming read over ${floorBytes / 2 ** 20} MB: ${core.benchStreamRead(floorBytes, reps).toFixed(2)} GB/s`);
