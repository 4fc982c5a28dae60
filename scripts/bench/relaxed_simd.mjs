// Does relaxed SIMD pay on this machine? The inner loop of arcscope's q8 tile in base SIMD128 (widen int8 weights to
// int16, i32x4.dot_i16x8_s, add) against the same loop with i32x4.relaxed_dot_i8x16_i7x16_add_s (int8 weights, 7-bit
// activations, the add fused), both written as WebAssembly text and assembled with wabt's wat2wasm, because
// Emscripten 3.1.6's clang has no builtin for the relaxed dot product. Runs in headless Chromium and in Node, prints
// multiply-adds per second for tiles of 2, 4 and 6 tokens by 8 rows, and checks the relaxed instruction's sums against
// exact integer arithmetic (Node 20's V8, behind its flag, returned twice the true sums when this was written: its
// times are shown, its results are wrong). Usage: node scripts/bench/relaxed_simd.mjs [--seconds S]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const tileTokens = [2, 4, 6];
const weightBytes = 8192;  // the loop cycles through 8 KB of weights (L1), like one block chunk of a row group
const actOffset = weightBytes;

// One function per (kind, TT): each iteration takes 8 rows of weights and TT tokens' activations.
// base: 8 rows x 2 columns per step (two v128.load8x8_s), 2 dots + 2 adds per token: 16 multiply-adds per token.
// relaxed: 8 rows x 4 columns per step (two v128.load), 2 fused dot-adds per token: 32 multiply-adds per token.
function tileFunction(kind, tt) {
  const locals = Array.from({ length: tt }, (_, t) => `(local $a${t}l v128) (local $a${t}h v128)`).join(' ');
  const loadWeights = kind === 'base'
    ? '(local.set $wl (v128.load8x8_s (local.get $p))) (local.set $wh (v128.load8x8_s offset=8 (local.get $p)))'
    : '(local.set $wl (v128.load (local.get $p))) (local.set $wh (v128.load offset=16 (local.get $p)))';
  const perToken = (t) => {
    const x = `(local.tee $x (v128.load32_splat offset=${actOffset + 256 * t} (local.get $q)))`;
    return kind === 'base'
      ? `(local.set $a${t}l (i32x4.add (local.get $a${t}l) (i32x4.dot_i16x8_s (local.get $wl) ${x})))
         (local.set $a${t}h (i32x4.add (local.get $a${t}h) (i32x4.dot_i16x8_s (local.get $wh) (local.get $x))))`
      : `(local.set $a${t}l (i32x4.dot_i8x16_i7x16_add_s (local.get $wl) ${x} (local.get $a${t}l)))
         (local.set $a${t}h (i32x4.dot_i8x16_i7x16_add_s (local.get $wh) (local.get $x) (local.get $a${t}h)))`;
  };
  // Every accumulator feeds the result, so none of the work can be dropped.
  let sum = '(local.get $a0l)';
  for (let t = 0; t < tt; ++t) for (const h of t === 0 ? ['h'] : ['l', 'h']) sum = `(i32x4.add ${sum} (local.get $a${t}${h}))`;
  return `
  (func (export "${kind}${tt}") (param $n i32) (result i32)
    (local $i i32) (local $p i32) (local $q i32) (local $wl v128) (local $wh v128) (local $x v128) ${locals}
    (loop $step
      (local.set $p (i32.shl (i32.and (local.get $i) (i32.const ${weightBytes / 32 - 1})) (i32.const 5)))
      (local.set $q (i32.shl (i32.and (local.get $i) (i32.const 63)) (i32.const 2)))
      ${loadWeights}
      ${Array.from({ length: tt }, (_, t) => perToken(t)).join('\n')}
      (br_if $step (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (i32x4.extract_lane 0 ${sum}))`;
}

function assemble() {
  const wat = `(module (memory (export "memory") 1)
  ${['base', 'relaxed'].flatMap((k) => tileTokens.map((tt) => tileFunction(k, tt))).join('\n')}
  (func (export "dotAt") (param $p i32)
    (v128.store offset=32 (local.get $p) (i32x4.dot_i8x16_i7x16_add_s
      (v128.load (local.get $p)) (v128.load offset=16 (local.get $p)) (v128.load offset=32 (local.get $p))))))`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arcscope-relaxed-'));
  fs.writeFileSync(path.join(dir, 'tiles.wat'), wat);
  execFileSync('wat2wasm', ['--enable-relaxed-simd', 'tiles.wat', '-o', 'tiles.wasm'], { cwd: dir });
  const bytes = fs.readFileSync(path.join(dir, 'tiles.wasm'));
  fs.rmSync(dir, { recursive: true });
  return bytes;
}

// Runs where the module is instantiated (a page or Node); returns GMAC/s per function and the correctness check.
async function measure(bytes, seconds) {
  const { instance } = await WebAssembly.instantiate(bytes);
  const e = instance.exports;
  const mem = new Int8Array(e.memory.buffer);
  for (let i = 0; i < 8192; ++i) mem[i] = ((i * 37) % 255) - 127;           // weights: any int8
  for (let i = 8192; i < 8192 + 4096; ++i) mem[i] = (i * 13) % 128;          // activations: 0..127
  // The relaxed dot's sums are exact when the second operand's bytes are in 0..127; beyond, the result depends on
  // the machine (x86 reads them as unsigned), which is why a relaxed kernel needs 7-bit activations.
  const check = { exact: true, highBitAsSigned: true };
  const at = 32768;
  for (let trial = 0; trial < 256; ++trial) {
    const a = Array.from({ length: 16 }, (_, i) => ((trial * 31 + i * 77) % 256) - 128);
    const b7 = Array.from({ length: 16 }, (_, i) => (trial * 17 + i * 29) % 128);
    const b8 = b7.map((v, i) => (i % 3 ? v : -v - 1));  // some bytes with the high bit set
    for (const [b, key] of [[b7, 'exact'], [b8, 'highBitAsSigned']]) {
      new Int8Array(e.memory.buffer, at, 32).set([...a, ...b]);
      const sums = new Int32Array(e.memory.buffer, at + 32, 4);
      sums.fill(5);
      e.dotAt(at);
      for (let l = 0; l < 4; ++l) {
        let s = 5;
        for (let j = 0; j < 4; ++j) s += a[4 * l + j] * b[4 * l + j];
        if (sums[l] !== s) check[key] = false;
      }
    }
  }
  const results = {};
  const n0 = 1 << 20;
  for (const name of Object.keys(e).filter((k) => /^(base|relaxed)\d$/.test(k))) e[name](n0);  // warm up
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    for (const name of Object.keys(e).filter((k) => /^(base|relaxed)\d$/.test(k))) {
      const tt = Number(name.slice(-1));
      const macsPerStep = 8 * tt * (name.startsWith('relaxed') ? 4 : 2);
      const n = Math.round(4e8 / macsPerStep);
      const t0 = performance.now();
      e[name](n);
      const gmacs = (n * macsPerStep) / (performance.now() - t0) / 1e6;
      results[name] = Math.max(results[name] ?? 0, gmacs);
    }
  }
  return { results, check };
}

const argv = process.argv.slice(2);
const seconds = Number(argv[argv.indexOf('--seconds') + 1]) || 3;
const bytes = assemble();

if (argv.includes('--in-node')) {
  // The child below: Node 20 runs relaxed SIMD only behind a flag.
  console.log(JSON.stringify(await measure(bytes, seconds)));
  process.exit(0);
}

const node = JSON.parse(execFileSync(process.execPath,
  ['--experimental-wasm-relaxed-simd', fileURLToPath(import.meta.url), '--in-node', '--seconds', String(seconds)],
  { encoding: 'utf8' }));
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
const page = await browser.newPage();
const browserVersion = browser.version();
const chrome = await page.evaluate(async ([source, b64, s]) => {
  const run = new Function(`return (${source})`)();
  return run(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)), s);
}, [measure.toString(), bytes.toString('base64'), seconds]);
await browser.close();

console.log(`relaxed SIMD against base SIMD128, the q8 tile's inner loop (8 rows x TT tokens, weights in L1), ` +
  `best of ${seconds} s each; GMAC/s`);
console.log('| runtime | TT | base (dot_i16x8_s + add) | relaxed (dot_i8x16_i7x16_add_s) | relaxed / base |');
console.log('|---|---|---|---|---|');
for (const [name, r] of [[`Chromium ${browserVersion}`, chrome], [`Node ${process.versions.node}`, node]]) {
  for (const tt of tileTokens) {
    const base = r.results[`base${tt}`], relaxed = r.results[`relaxed${tt}`];
    console.log(`| ${name} | ${tt} | ${base.toFixed(1)} | ${relaxed.toFixed(1)} | ${(relaxed / base).toFixed(2)} |`);
  }
}
for (const [name, r] of [['Chromium', chrome], ['Node', node]]) {
  console.log(`${name}: sums exact with 7-bit second operands: ${r.check.exact}; ` +
    `bytes with the high bit set read as signed: ${r.check.highBitAsSigned}`);
}
