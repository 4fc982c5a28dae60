"""The engine against the independent PyTorch reference on random weights of each GPT-2 family shape, with sharp heads,
in the exact Hugging Face layout (gpt2_family.py makes the checkpoints and runs both sides):
  distilgpt2 (6 x 12 x 768), gpt2 (12 x 12 x 768) and gpt2-medium (24 x 16 x 1024), whole, end to end in wasm: the
    checkpoint converted by engine.convertCheckpoint in Node (streamed from the file; without a dtype for the default
    format), then forward()'s logits and attention and runWithCache()'s every hook;
  gpt2-large (1280 wide, 20 heads) and gpt2-xl (1600 wide, 25 heads), with their vocabulary and n_ctx 1024 but 2
    blocks, natively (`arcscope convert`, `arcscope run --hooks all`) and in wasm (the same files loaded in Node);
  each in q8, q16 and f32, against gpt2_reference (logits, attention) and hooked_reference (the hooks).
Prints the largest differences per shape and dtype, and how sharp the heads are.
With ARCSCOPE_FULL_XL=1 also the whole gpt2-xl (48 blocks, 6.4 GB of float32) converted to q8 in wasm, loaded and run,
against the reference run a block at a time (see FullDepthXL).
Run: /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_gpt2_family.py
"""
import os
import resource
import time
import unittest

import numpy as np
import torch

# support first: it puts python/, which holds the package arcscope_reference, on the path
from support import CLI, ROOT
from arcscope_reference import gpt2_reference as ref
import gpt2_family as family

T = 64  # one of the engine's 64-position chunks, and enough keys per row for a head to choose among
# Attention scores of standard deviation 4 (the generator's default is 1): a head's largest weight averages about 0.6
# instead of 0.13, so errors in q and k move the pattern more. At 8, int8 weights flip which key many heads pick:
# distilgpt2's q8 attention differed by 0.77 there, which bounds nothing (q16 0.019, f32 1.1e-4; at 4: 0.19, 0.004,
# 1.7e-5).
QK_SCALE = 4
SHARP = 0.5  # the least mean largest attention weight that counts as sharp heads

# Bounds per dtype, for every shape (the deepest, medium, sets them). f32 is float32 against float32 summed in another
# order: test_hooks.py's rule, every quantity within 1e-4 of its largest value (attention's is at most 1, so this is
# test_engine.py's 1e-4); medium measured at most 4e-5. The logits' bound is relative here because they grow with the
# width; test_engine.py's absolute 1e-3 is at 128 wide. q8 and q16 are their weights' rounding carried through the
# network: what medium measured, with about 1.5 times room. q16's step is 64 times finer (max|w| / 8191 against / 127)
# and its figures follow: differences about 55 times smaller than q8's, 1 - cosines about 2,200 times (64^2 at first
# order; q8's sharpest heads are past first order). q8's attention bound is loose because at 24 blocks of sharp heads
# its rounding moves some heads' weight from one key to another; its logits and hooks bound it where that matters.
BOUNDS = {  # attention: largest difference; logits_cos: worst position's 1 - cosine; hooks_cos: worst hook's
    "q8": dict(attention=0.5, logits_cos=6e-3, hooks_cos=0.015),
    "q16": dict(attention=0.01, logits_cos=4e-6, hooks_cos=8e-6),
}
F32 = dict(attention=1e-4, logits_rel=1e-4, hooks_rel=1e-4)
DTYPES = ("q8", "q16", "f32")

WASM_BUILT = os.path.exists(family.STAGED) and family.NODE is not None


class FamilyCheck:
    """One shape: setUpClass starts the wasm side in the background, runs the native side (if any) and the reference
    meanwhile; each test checks one dtype. Subclasses set NAME, SEED, N_LAYER (None: the model's own) and NATIVE."""
    NAME = SEED = None
    N_LAYER = None
    NATIVE = False

    @classmethod
    def setUpClass(cls):
        t0 = time.time()
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # the other core runs the engine (the test files after this one get it back below)
        cls.ckpt = family.checkpoint(cls.NAME, cls.SEED, QK_SCALE, cls.N_LAYER)
        cls.ids = family.token_ids(T, cls.SEED)
        out = os.path.join(cls.ckpt, "wasm-pass")
        if cls.NATIVE:  # wasm loads the native converter's files (wasm's own converter: the two shapes above)
            files = {d: family.native_file(cls.ckpt, d) for d in DTYPES}
            nodes = [family.start_wasm_pass(cls.ids, out, arcs=files.values())]
        else:  # the quantizing conversions take most of the time: the default (q16) in a process of its own beside
            # q8 and f32. The default is convertCheckpoint's without a dtype, as the page's loader converts.
            nodes = [family.start_wasm_pass(cls.ids, out, ckpt=cls.ckpt, dtypes=g) for g in (("default",), ("q8", "f32"))]
        try:
            cls.native = {d: family.native_pass(files[d], cls.ids) for d in DTYPES} if cls.NATIVE else {}
            cls.reference = family.reference_pass(cls.ckpt, cls.ids)
        finally:
            logs = [family.finish_wasm_pass(node) for node in nodes]
            torch.set_num_threads(threads)
        cls.wasm = {d: family.wasm_result(out, d) for d in DTYPES}
        cls.sharpness = family.sharpness(cls.reference.attention)
        layers = cls.N_LAYER or family.FAMILY[cls.NAME]["n_layer"]
        wasm = cls.wasm_log = "; ".join(line for log in logs for line in log.splitlines())
        print(f"\n{cls.NAME} shape, {layers} blocks, T={T}, scores of std {QK_SCALE}: mean largest attention weight "
              f"{cls.sharpness:.2f} ({time.time() - t0:.0f} s; wasm, seconds: {wasm})")

    def passes(self, dtype):
        return [("wasm", self.wasm[dtype])] + ([("native", self.native[dtype])] if self.NATIVE else [])

    def test_heads_are_sharp(self):
        self.assertGreaterEqual(self.sharpness, SHARP)

    def check(self, dtype):
        print()
        for engine, result in self.passes(dtype):
            with self.subTest(engine=engine):
                d = family.differences(result, self.reference)
                print(family.summary(f"{self.NAME} {dtype} ({engine}):", d))
                self.assertTrue(d["names"], "the engine's hook names are not the reference's")
                if dtype == "f32":
                    for quantity, bound in F32.items():
                        self.assertLessEqual(d[quantity], bound, quantity)
                else:
                    for quantity, bound in BOUNDS[dtype].items():
                        self.assertLessEqual(d[quantity], bound, quantity)

    def test_q8(self):
        self.check("q8")

    def test_the_default_format_draws_attention_within_a_hundredth(self):
        # What a user gets without choosing: convertCheckpoint without a dtype gave q16 (wasm_pass.mjs writes each
        # model under the dtype it has), and its attention is within 0.01 of float32's on these sharp heads.
        if self.NATIVE:
            self.skipTest("converted natively with each dtype named")
        self.assertIn("the default, q16:", self.wasm_log)
        d = family.differences(self.wasm["q16"], self.reference)
        print(f"\n  {self.NAME}: the default format (q16): attention within {d['attention']:.4f} of float32 at a mean "
              f"largest attention weight of {self.sharpness:.2f}")
        self.assertLessEqual(d["attention"], 0.01)

    def test_q16(self):
        self.check("q16")

    def test_f32(self):
        self.check("f32")

    def test_wasm_and_native_give_the_same_bits(self):
        # Both builds sum in the same order (no FMA, the same kernels' order): tests/js/model.test.mjs's rule.
        if not self.NATIVE:
            self.skipTest("this shape runs in wasm only")
        for dtype in DTYPES:
            w, n = self.wasm[dtype], self.native[dtype]
            worst = max(float(np.abs(w.logits - n.logits).max()), float(np.abs(w.attention - n.attention).max()),
                        max(float(np.abs(w.hooks[k] - n.hooks[k]).max()) for k in n.hooks))
            print(f"  {self.NAME} {dtype}: largest wasm - native difference {worst:.3g}")
            self.assertLessEqual(worst, 1e-5, dtype)


_needs = unittest.skipUnless(os.path.exists(CLI) and WASM_BUILT, "needs build/native/arcscope and build/lib (build.sh)")


@_needs
class Distilgpt2(FamilyCheck, unittest.TestCase):
    NAME, SEED = "distilgpt2", 31


@_needs
class Gpt2Small(FamilyCheck, unittest.TestCase):
    # GPT-2 small's shape whole: where q8's rounding was seen to draw sharp heads 0.23 off (q16: 0.0054).
    NAME, SEED = "gpt2", 35


@_needs
class Gpt2Medium(FamilyCheck, unittest.TestCase):
    NAME, SEED = "gpt2-medium", 32


@_needs
class Gpt2Large(FamilyCheck, unittest.TestCase):
    NAME, SEED, N_LAYER, NATIVE = "gpt2-large", 33, 2, True


@_needs
class Gpt2XL(FamilyCheck, unittest.TestCase):
    NAME, SEED, N_LAYER, NATIVE = "gpt2-xl", 34, 2, True


# The whole gpt2-xl (gpt2_family.full_xl) has scores of std 1, so q8 comes much nearer than with the sharp heads
# above: README's exactness table has 0.011 and 0.014 for the small and medium shapes' attention; 48 blocks measured
# 0.016 and 1 - cosine 1.8e-4. About twice that:
FULL_XL_BOUNDS = dict(attention=0.03, logits_cos=4e-4)


@unittest.skipUnless(os.environ.get("ARCSCOPE_FULL_XL") == "1", "opt-in: ARCSCOPE_FULL_XL=1 (2 to 4 minutes, 3.5 GB in Node)")
@_needs
class FullDepthXL(unittest.TestCase):
    """The whole gpt2-xl (48 x 25 x 1600, 6.4 GB of float32) converted to q8 in wasm as the page does, loaded and run
    over T tokens, against the reference run a block at a time (gpt2_reference.forward_by_layer: a few hundred MB,
    where loading it whole would take 13 GB). Uses build/family/gpt2-xl when it is there (seed 0, the generator's
    default scores); otherwise makes its own under build/family-ref/. Prints the time and each process's peak RSS."""

    def test_full_xl_q8_in_wasm(self):
        ckpt = family.full_xl()
        ids = family.token_ids(T, 48)
        out = os.path.join(ROOT, "build", "family-ref", "gpt2-xl-wasm-pass")
        t0, threads = time.time(), torch.get_num_threads()
        node = family.start_wasm_pass(ids, out, ckpt=ckpt, dtypes=("q8",), hooks=False, timed=True)
        try:
            torch.set_num_threads(1)
            logits, attention = ref.forward_by_layer(ckpt, ids)
            reference = family.Pass(logits.numpy(), attention.numpy(), {})
            ref_seconds = time.time() - t0
        finally:
            log = family.finish_wasm_pass(node)
            torch.set_num_threads(threads)
        d = family.differences(family.wasm_result(out, "q8"), reference)
        print(f"\nfull gpt2-xl, q8 converted in wasm, T={len(ids)}: {time.time() - t0:.0f} s in all "
              f"(reference {ref_seconds:.0f} s, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} KB); "
              f"{log.strip()}; mean largest attention weight {family.sharpness(reference.attention):.2f}")
        print(family.summary("gpt2-xl q8 (wasm, 48 blocks):", d))
        for quantity, bound in FULL_XL_BOUNDS.items():
            self.assertLessEqual(d[quantity], bound, quantity)


if __name__ == "__main__":
    unittest.main()
