"""The tutorial's sections 1-4 against the article's own PyTorch classes (python/arcscope_reference/article_blocks.py).

tests/reference/page_blocks.mjs runs the page's demo functions with the page's seeds on the wasm engine (as staged in
build/lib: ./scripts/build.sh wasm or node scripts/stage.mjs) and prints every number the page draws or prints, with
the blocks' weights. Here those weights are loaded into SingleHeadAttention, MultiHeadAttention (nn.Linear holds W.T,
since the engine applies x @ W) and the same x goes through the article's forward(), with the article's masks
(causal_mask(seq_len).unsqueeze(0)). What the article's forward computes but does not return (Q, K, V, the scores,
the weights, the merged heads) is read from inside it: forward hooks on its nn.Linear layers and a wrapper around the
F.softmax it calls. Everything runs in float64; the page's numbers are the engine's float32.
Run: /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_article_blocks.py
"""
import json
import math
import os
import shutil
import subprocess
import unittest
from unittest import mock

import numpy as np
import torch

# support first: it puts python/, which holds the package arcscope_reference, on the path
from support import ROOT
from arcscope_reference import article_blocks as article
from arcscope_reference import decoder_layers

NODE = shutil.which("node")
STAGED = os.path.join(ROOT, "build", "lib", "wasm", "arcscope_core.wasm")
TOLERANCE = 1e-5  # as the wasm blocks' own PyTorch test (tests/js/attention-blocks.test.mjs)


def page_blocks():
    run = subprocess.run([NODE, os.path.join(ROOT, "tests", "reference", "page_blocks.mjs")], cwd=ROOT, check=True,
                         capture_output=True, text=True)
    return json.loads(run.stdout)


def tensor(values, shape=None):
    t = torch.tensor([float(v) for v in values], dtype=torch.float64)  # "-inf" strings are the masked scores
    return t.reshape(shape) if shape is not None else t


def load(module, weights):
    """The engine's (in, out) matrices into the article's nn.Linear layers (weight (out, in))."""
    with torch.no_grad():
        for name, w in weights.items():
            getattr(module, name).weight.copy_(tensor(w["data"], w["shape"]).T)
    return module


class Inside:
    """What a forward() computes on the way: the named nn.Linear outputs (or inputs) and F.softmax's input and output."""

    def __init__(self, module, outputs=(), inputs=()):
        self.seen, self.hooks = {}, []
        for name in outputs:
            self.hooks.append(getattr(module, name).register_forward_hook(
                lambda m, i, o, name=name: self.seen.__setitem__(name, o.detach())))
        for name in inputs:
            self.hooks.append(getattr(module, name).register_forward_hook(
                lambda m, i, o, name=name: self.seen.__setitem__(name + " input", i[0].detach())))
        softmax = article.F.softmax

        def spy(scores, *args, **kwargs):
            self.seen["scores"] = scores.detach()
            self.seen["weights"] = softmax(scores, *args, **kwargs).detach()
            return self.seen["weights"]
        self.patch = mock.patch.object(article.F, "softmax", spy)

    def __enter__(self):
        self.patch.start()
        return self.seen

    def __exit__(self, *exc):
        self.patch.stop()
        for h in self.hooks:
            h.remove()


def largest_difference(page_values, reference):
    page = tensor(page_values).reshape(reference.shape)
    finite = torch.isfinite(reference)
    # Masked entries must be -inf on both sides; the rest are compared.
    assert torch.equal(finite, torch.isfinite(page)), "the masked entries differ"
    assert torch.equal(reference[~finite], page[~finite])
    return (page[finite] - reference[finite]).abs().max().item() if finite.any() else 0.0


@unittest.skipUnless(NODE and os.path.exists(STAGED), "needs node and the staged wasm (node scripts/stage.mjs)")
class ArticleClassesGiveThePagesNumbers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_default_dtype(torch.float64)
        cls.page = page_blocks()
        cls.differences = {}

    @classmethod
    def tearDownClass(cls):
        torch.set_default_dtype(torch.float32)
        print("\n  the page's numbers against the article's classes (largest absolute difference):")
        for name, d in cls.differences.items():
            print(f"    {name:38s} {d:.2e}")
        print(f"  largest of all: {max(cls.differences.values()):.2e}")

    def check(self, name, page_values, reference):
        d = largest_difference(page_values, reference)
        self.differences[name] = d
        self.assertLess(d, TOLERANCE, name)

    def single_head(self, block, mask):
        s = block["shapes"]
        x = tensor(block["x"], s["x"])
        attn = load(article.SingleHeadAttention(s["x"][2], block["dHead"]), block["layerWeights"])
        with torch.no_grad(), Inside(attn, outputs=("W_q", "W_k", "W_v")) as seen:
            out, weights = attn(x, mask)
        return x, out, weights, seen

    def test_section_1_single_head(self):
        block = self.page["single"]
        x, out, weights, seen = self.single_head(block, None)
        # The article's printout: the shapes and weights[0, 0].sum() as "{:.4f}".
        self.assertEqual([list(x.shape), list(out.shape), list(weights.shape)], [[2, 8, 64], [2, 8, 16], [2, 8, 8]])
        self.assertEqual(block["shapes"], {"x": [2, 8, 64], "out": [2, 8, 16], "weights": [2, 8, 8]})
        self.assertEqual(f"{block['rowSums'][0]:.4f}", f"{weights[0, 0].sum():.4f}")
        for name in ("q", "k", "v"):
            self.check(f"section 1 {name.upper()}", block[name], seen[f"W_{name}"])
        self.check("section 1 scores", block["scores"], seen["scores"])
        self.check("section 1 weights", block["weights"], weights)
        self.check("section 1 out", block["out"], out)
        self.check("section 1 row sums (first sequence)", block["rowSums"], weights[0].sum(-1))

    def test_section_2_causal_mask(self):
        mask5 = self.page["mask5"]
        self.assertEqual(mask5["shape"], [5, 5])
        self.assertTrue(torch.equal(tensor(mask5["data"], [5, 5]), article.causal_mask(5)))
        block = self.page["masked"]
        seq_len = block["shapes"]["x"][1]
        _, out, weights_causal, seen = self.single_head(block, article.causal_mask(seq_len).unsqueeze(0))
        # The article's check: weights_causal[0].triu(diagonal=1).sum(), printed as "{:.6f}".
        upper_triangle_sum = weights_causal[0].triu(diagonal=1).sum().item()
        self.assertEqual(f"{block['upper']:.6f}", f"{upper_triangle_sum:.6f}")
        self.assertEqual(block["upper"], 0)
        self.check("section 2 masked scores (-inf equal)", block["scores"], seen["scores"])
        self.check("section 2 weights", block["weights"], weights_causal)
        self.check("section 2 out", block["out"], out)

    def test_section_3_multi_head(self):
        block = self.page["multi"]
        s = block["shapes"]
        x = tensor(block["x"], s["x"])
        mha = load(article.MultiHeadAttention(d_model=s["x"][2], n_heads=block["nHeads"]), block["layerWeights"])
        with torch.no_grad(), Inside(mha, outputs=("W_q",), inputs=("W_o",)) as seen:
            out = mha(x, mask=article.causal_mask(s["x"][1]).unsqueeze(0))
        # The article's printout: "MHA output: (2, 8, 64) - same as input".
        self.assertEqual(list(out.shape), [2, 8, 64])
        self.assertEqual(s["out"], list(out.shape))
        self.check("section 3 Q split into heads", block["q"], mha._split_heads(seen["W_q"]))
        self.check("section 3 weights (4 heads)", block["weights"], seen["weights"])
        self.check("section 3 merged heads (before W_o)", block["merged"], seen["W_o input"])
        self.check("section 3 output after W_o", block["out"], out)

    def test_section_4_positional_encoding(self):
        block = self.page["positional"]
        pe = article.PositionalEncoding(d_model=block["dModel"])  # the article's default max_seq_len, 2048
        reference = pe.pe[0, :block["maxLen"], :]
        self.check("section 4 PE table (64 x 64)", block["table"], reference)
        # What the page prints: pe.pe[0, :4, :4] to 4 decimals.
        corner = tensor(block["table"], [block["maxLen"], block["dModel"]])[:4, :4]
        np.testing.assert_array_equal(np.round(corner.numpy(), 4), np.round(pe.pe[0, :4, :4].numpy(), 4))

    def test_section_4_rotary_positions(self):
        # The article has no rotary code: the reference is Hugging Face's (decoder_layers.py: inv_freq, the cos/sin
        # table and rotate_half), in float32 as HF runs it, on the page's q and k.
        block = self.page["rotary"]
        n, d = block["n"], block["dHead"]
        with torch.no_grad():
            cos, sin = decoder_layers.rope_cos_sin(decoder_layers.rope_inv_freq(10000.0, d), n)
            turn = lambda v: decoder_layers.rope_forward(  # noqa: E731  (n, 1 head, d): v at every position
                tensor(v).float().expand(n, 1, d), cos, sin)[:, 0, :].double()
            qs, ks = turn(block["q"]), turn(block["k"])
            self.check("section 4 rotary q at every position", block["qs"], qs)
            self.check("section 4 rotary k at every position", block["ks"], ks)
            scores = qs @ ks.T / math.sqrt(d)
            self.check("section 4 rotary scores (64 x 64)", block["scores"], scores)
            # The promise, in float64 on the reference's vectors: each diagonal holds one score.
            spread = max((scores.diagonal(o) - scores.diagonal(o)[0]).abs().max().item() for o in range(-n + 1, n))
            self.assertLess(spread, 1e-4)
            self.assertLess(block["diagonalSpread"], 1e-4)
            self.assertNotAlmostEqual(scores[3, 0].item(), scores[20, 0].item(), places=2)


if __name__ == "__main__":
    unittest.main()
