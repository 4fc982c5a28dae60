"""The shipped model (models/shakespeare-4l.q8.arcs): the engine's head scores and held-out perplexity against PyTorch.

The independent check paired with the regression snapshots (tests/cpp/test_default_model.cpp,
tests/js/default-model.test.mjs), which compare the engine with figures it produced earlier. Here the file is read by
python/arcscope_reference/arcs_file.py (written from the format's documentation), run by the PyTorch
reference (python/arcscope_reference/gpt2_reference.py) in float32 on the dequantized weights, and scored as
include/arcscope/analysis/heads.h and include/arcscope/analysis/perplexity.h define it; the engine's figures come
from build/native/arcscope on the same tokens. The settings (seed, length, passage) are those of models/README.md's
checked-figures block. The held-out passage and the training tokens come from ../shared/data/tinyshakespeare.txt;
without it those tests skip.
Run: /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_default_model.py
"""
import json
import os
import unittest

import numpy as np
import torch

# support first: it puts python/, which holds the package arcscope_reference, on the path
from support import CLI, DEFAULT_MODEL as MODEL, ROOT, sh, shipped_model
from arcscope_reference import bpe_tokenizer
from arcscope_reference import gpt2_reference as ref
from arcscope_reference.corpus import DEFAULT_DATA as TEXT

TRAIN_SHARE = 0.9  # the first 90% of the tokens train (`heads --draw-share`, held_out_tokens())
END_OF_TEXT = 50256  # never drawn by default (heads.h default_candidates)

# Tolerances: the engine rounds every activation to 14 bits per block of 32 before each q8 product, the reference runs
# float32 on the same (dequantized) weights, so they differ by activation rounding alone. Measured on the shipped
# model: head scores at most 2.1e-4 apart, perplexity 7.9e-6 relative, attention over real text 5.0e-4. The bounds
# are about 4x those. (With 16-bit activations they were 5.2e-5, 1.7e-6 and 1.3e-4; with 8-bit ones 1.2e-3, 5.0e-4
# and 0.048.)
HEAD_SCORE_TOLERANCE = 8e-4
PERPLEXITY_TOLERANCE = 3e-5
ATTENTION_TOLERANCE = 2e-3
SCORE_KINDS = ("previous_token", "first_token", "induction")


def cli(*args):
    return json.loads(sh(CLI, *args))


def documented():
    """The JSON block after "<!-- checked-figures -->" in models/README.md."""
    with open(os.path.join(ROOT, "models", "README.md"), encoding="utf-8") as f:
        md = f.read()
    block = md[md.index("<!-- checked-figures -->"):]
    begin = block.index("```json") + len("```json")
    return json.loads(block[begin:block.index("```", begin)])


def splitmix64(seed):
    """arcscope::Random (include/arcscope/random.h): the stream the engine draws its random tokens from."""
    mask = (1 << 64) - 1
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        yield z ^ (z >> 31)


def repeated_random_tokens(candidates, length, seed):
    """`length` tokens drawn from candidates, then the same again (heads.h repeated_random_tokens)."""
    rng = splitmix64(seed)
    first = [candidates[next(rng) % len(candidates)] for _ in range(length)]
    return first + first


def head_scores(attention, length):
    """attention (L, H, T, T) of a sequence repeated once (T = 2 * length) -> {kind: (L, H)}, as heads.h defines:
    mean attention from i to i - 1 and to 0 (i = 1 .. T-1), and from i to i - length + 1 (i = length .. T-1)."""
    a = np.asarray(attention, dtype=np.float64)
    queries, second_copy = np.arange(1, 2 * length), np.arange(length, 2 * length)
    return {"previous_token": a[:, :, queries, queries - 1].mean(-1),
            "first_token": a[:, :, queries, 0].mean(-1),
            "induction": a[:, :, second_copy, second_copy - length + 1].mean(-1)}


@unittest.skipUnless(os.path.exists(CLI), "build/native/arcscope not built")
class ShippedModelVsPyTorch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(2)
        cls.model = shipped_model()
        cls.figures = documented()
        cls.text_ids = None
        if os.path.exists(TEXT):
            with open(TEXT, encoding="utf-8") as f:
                cls.text_ids = bpe_tokenizer.Tokenizer().encode(f.read())

    def require_text(self):
        if self.text_ids is None:
            self.skipTest("the training text (../shared/data/tinyshakespeare.txt) is not beside the repo")

    def compare_heads(self, candidates, settings, engine):
        """Scores the engine's sequence in PyTorch; engine = `arcscope heads` JSON for the same settings."""
        length, seed = settings["length"], settings["seed"]
        ids = repeated_random_tokens(candidates, length, seed)
        # Same tokens on both sides: the engine's own attention on these ids gives its grid (to its 4 decimals).
        engine_attention = cli("run", "--model", MODEL, "--ids", ",".join(map(str, ids)))["attention"]
        for kind, scores in head_scores(engine_attention, length).items():
            np.testing.assert_allclose(scores, engine[kind], atol=6e-5, err_msg=f"{kind}: not the engine's tokens")

        with torch.no_grad():
            _, attention = self.model.hidden(torch.tensor([ids], dtype=torch.long))  # attention only, no LM head
        reference = head_scores(attention[0].numpy(), length)
        worst = {kind: np.abs(reference[kind] - np.asarray(engine[kind])).max() for kind in SCORE_KINDS}
        print("\n  largest difference engine vs PyTorch: " +
              ", ".join(f"{kind} {worst[kind]:.2g}" for kind in SCORE_KINDS))
        for kind in SCORE_KINDS:
            self.assertLess(worst[kind], HEAD_SCORE_TOLERANCE, kind)

    def test_head_scores(self):
        settings = self.figures["heads"]
        engine = cli("heads", "--model", MODEL, "--seed", str(settings["seed"]), "--length", str(settings["length"]))
        every_token_but_end_of_text = [i for i in range(self.model.cfg.n_vocab) if i != END_OF_TEXT]
        self.compare_heads(every_token_but_end_of_text, settings, engine)

    def test_training_token_head_scores(self):
        self.require_text()
        settings = self.figures["heads_training_tokens"]
        engine = cli("heads", "--model", MODEL, "--seed", str(settings["seed"]), "--length", str(settings["length"]),
                     "--draw-from", TEXT, "--draw-share", str(TRAIN_SHARE))
        training = sorted(set(self.text_ids[:int(len(self.text_ids) * TRAIN_SHARE)]))
        self.assertEqual(engine["drawn_from"], f"{len(training)} distinct tokens of the text")
        self.compare_heads(training, settings, engine)

    def test_attention_on_text(self):
        # What the page draws: every layer's and head's attention over three 200-token windows of the text (start,
        # middle, held-out part), the engine against PyTorch on the same weights.
        self.require_text()
        n = len(self.text_ids)
        worst = 0.0
        for start in (0, n // 2, n * 9 // 10):
            ids = self.text_ids[start:start + 200]
            engine = np.asarray(cli("run", "--model", MODEL, "--ids", ",".join(map(str, ids)))["attention"])
            with torch.no_grad():
                _, attention = self.model.hidden(torch.tensor([ids], dtype=torch.long))
            worst = max(worst, float(np.abs(engine - attention[0].numpy()).max()))
        print(f"\n  largest attention difference engine vs PyTorch over three 200-token windows: {worst:.3g} "
              f"(bound {ATTENTION_TOLERANCE:g})")
        self.assertLess(worst, ATTENTION_TOLERANCE)

    def test_the_tokenizers_agree_on_the_text(self):
        self.require_text()
        self.assertEqual(self.text_ids, cli("tokenize", "--file", TEXT)["ids"])

    def test_held_out_perplexity(self):
        # The README's checked passage (2,048 tokens, about 12 s in PyTorch here): with the netlib BLAS Debian's
        # PyTorch runs on, all 33,803 held-out tokens take about 250 s.
        self.require_text()
        passage = self.figures["passage"]
        skip, n = passage["skip"], passage["tokens"]
        held_out = self.text_ids[len(self.text_ids) * 9 // 10:]
        tokens = held_out[skip:skip + n]
        self.assertEqual(len(tokens), n)

        engine = cli("perplexity", "--model", MODEL, "--text-file", TEXT, "--held-out", "--skip", str(skip),
                     "--tokens", str(n))
        self.assertEqual(engine["tokens"], n)
        reference = ref.perplexity(self.model, tokens)
        documented_q8 = passage["perplexity_q8"]
        print(f"\n  held-out perplexity ({n} tokens): engine {engine['perplexity']:.4f}, PyTorch {reference:.4f} "
              f"(relative difference {abs(engine['perplexity'] / reference - 1):.2g}), "
              f"README {documented_q8} (PyTorch against it: {abs(reference / documented_q8 - 1):.2g})")
        self.assertLess(abs(engine["perplexity"] / reference - 1), PERPLEXITY_TOLERANCE)
        self.assertLess(abs(reference / documented_q8 - 1), PERPLEXITY_TOLERANCE)


if __name__ == "__main__":
    unittest.main()
