// Prints, as JSON on stdout, the numbers the tutorial's sections 1-4 (with rotary positions) show when the page opens: the page's own demo
// functions (web/tutorial/worker/demos.js) with the page's seeds (web/tutorial/page/tutorial.js), on the wasm engine
// as staged in build/lib.
// Each block comes with its weight matrices ((in, out), applied as x @ W), so that test_article_blocks.py can load
// them into the article's PyTorch classes. Non-finite values (masked scores) are written as the strings "-inf" etc.
// Run: node tests/reference/page_blocks.mjs > blocks.json
import { createEngine } from '../../build/lib/engine.js';
import * as demos from '../../web/tutorial/worker/demos.js';
import { PAGE_SEEDS } from '../../web/tutorial/page/tutorial.js';

const engine = await createEngine();
const blocks = {
  seeds: PAGE_SEEDS,
  single: demos.singleHead(engine, { seed: PAGE_SEEDS.qkv, mask: false, withWeights: true }),
  masked: demos.singleHead(engine, { seed: PAGE_SEEDS.masking, mask: true, withWeights: true }),
  multi: demos.multiHead(engine, { seed: PAGE_SEEDS.heads, withWeights: true }),
  mask5: demos.causalMask(engine, { n: 5 }),
  positional: demos.positional(engine, { dModel: 64, maxLen: 64 }),
  rotary: demos.rotary(engine, { dHead: 64, n: 64, seed: PAGE_SEEDS.rotary }),
};
const number = (v) => (Number.isFinite(v) ? v : String(v).replace('Infinity', 'inf').toLowerCase());
process.stdout.write(JSON.stringify(blocks, (key, value) =>
  (ArrayBuffer.isView(value) ? Array.from(value, number) : value)));
