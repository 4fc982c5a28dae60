"""The article's experiment as the tutorial runs it (web/tutorial/shared/experiment.js, in wasm through Node) against
the same experiment in PyTorch with TransformerLens's hook names (python/arcscope_reference/hooked_reference.py), on a
checkpoint with GPT-2 small's 12 layers and 12 heads (narrow, so it is small) and GPT-2's vocabulary: the same
token for " it", the same five keys in the same order, the same weights.
Run: /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_experiment.py
"""
import json
import os
import unittest

import torch

# support first: it puts python/, which holds the package arcscope_reference, on the path
from support import CLI, ROOT, make_checkpoint, sh
from arcscope_reference import bpe_tokenizer
from arcscope_reference import gpt2_reference as ref
from arcscope_reference import hooked_reference

WORK = os.path.join(ROOT, "build", "test-models", "experiment-12x12")
SENTENCE = "The trophy didn't fit in the bag because it was too big"
RUN_IN_WASM = """
import { readFileSync } from 'node:fs';
import { createEngine } from '%(root)s/build/lib/engine.js';
import { whatDoesItAttendTo } from '%(root)s/web/tutorial/shared/experiment.js';
const engine = await createEngine();
const model = engine.loadModel(readFileSync(process.argv[2]));
console.log(JSON.stringify(whatDoesItAttendTo(model)));
"""


@unittest.skipUnless(os.path.exists(CLI), "build/native/arcscope not built")
class ExperimentVsPyTorch(unittest.TestCase):
    def test_the_page_experiment_matches_pytorch(self):
        ckpt = os.path.join(WORK, "ckpt")
        make_checkpoint(ckpt, 8, dict(n_layer=12, n_head=12, n_embd=96, n_ctx=32, vocab=50257))
        model_file = os.path.join(WORK, "model.f32.arcs")
        sh(CLI, "convert", "--in", ckpt, "--out", model_file, "--dtype", "f32")
        script = os.path.join(WORK, "run.mjs")
        with open(script, "w") as f:
            f.write(RUN_IN_WASM % {"root": ROOT})
        page = json.loads(sh("node", script, model_file))

        # PyTorch: TransformerLens's to_tokens (end-of-text first), the pattern of layer 8, the row of " it".
        ids = [50256] + bpe_tokenizer.Tokenizer().encode(SENTENCE)
        _, cache = hooked_reference.run(ref.load(ckpt), ids)
        pos = ids.index(bpe_tokenizer.Tokenizer().encode(" it")[0])
        row = cache["blocks.8.attn.hook_pattern"][5, pos]
        scores, idx = torch.topk(row, 5)

        self.assertEqual(page["pos"], pos)
        self.assertEqual(page["token"], " it")
        self.assertEqual([t["idx"] for t in page["top"]], idx.tolist())
        worst = max(abs(t["score"] - s) for t, s in zip(page["top"], scores.tolist()))
        print(f"\n' it' at position {pos}: top 5 keys {idx.tolist()}, largest weight difference {worst:.2e}")
        self.assertLess(worst, 1e-5)


if __name__ == "__main__":
    unittest.main()
