"""The C++ engine against the independent PyTorch reference, on the same random HF-layout checkpoint.

Builds nothing itself: needs build/native/arcscope (./scripts/build.sh native). Makes a 3-layer checkpoint with
scripts/make_checkpoint.py (sharp heads: attention scores of standard deviation 3, as in GPT-2's own), converts it to
f32, q8 and q16 with `arcscope convert`, runs `arcscope run` and compares:
  f32: attention max abs error <= 1e-4, logits (every position) max abs error <= 1e-3
  q8:  attention max abs error and 1 - cosine of every position's logits within the bounds below
  q16: the same, about ten times tighter
Also an F16 checkpoint with "transformer."-prefixed names (the other form HF files come in).
Run: /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_engine.py
"""
import json
import os
import unittest

import numpy as np
import torch

# support first: it puts python/, which holds the package arcscope_reference, on the path
from support import CLI, ROOT, make_checkpoint, sh
from arcscope_reference import arcs_file
from arcscope_reference import gpt2_reference as ref
from arcscope_reference import safetensors_io

# ARCSCOPE_REF_SHAPE="L,H,C,N,V,T" runs the same comparison on another shape (scripts/check_exactness.sh), where
# ARCSCOPE_REF_BOUNDS="q8_att,q8_cos,q16_att,q16_cos" gives that shape's bounds (that script's goals per shape).
_shape = [int(v) for v in os.environ.get("ARCSCOPE_REF_SHAPE", "3,4,128,160,50257,150").split(",")]
CONFIG = dict(n_layer=_shape[0], n_head=_shape[1], n_embd=_shape[2], n_ctx=_shape[3], vocab=_shape[4])
T = _shape[5]  # default: several row groups and column blocks, most of n_ctx
QK_SCALE = float(os.environ.get("ARCSCOPE_REF_QK", "3"))  # sharp heads (scores of std 3), where rounding shows most
WORK = os.path.join(ROOT, "build", "test-models", "reference-" + "-".join(map(str, _shape)) + f"-qk{QK_SCALE:g}")
# Largest attention difference and 1 - cosine of the logits allowed, per packed format: what this shape measured,
# with a little room (the figures are printed each run).
_bounds = [float(v) for v in os.environ.get("ARCSCOPE_REF_BOUNDS", "0.06,6e-4,0.0015,5e-7").split(",")]
BOUNDS = {"q8": (_bounds[0], _bounds[1]), "q16": (_bounds[2], _bounds[3])}


def checkpoint(name, seed, *extra):
    out = os.path.join(WORK, name)
    if os.path.exists(os.path.join(out, "model.safetensors")) and not extra:
        return out  # the same arguments always give the same bytes
    return make_checkpoint(out, seed, CONFIG, "--qk-scale", QK_SCALE, *extra)


def engine_run(model_path, ids):
    """(logits (T, V), attention (L, H, T, T)) from the native CLI."""
    out_json, out_bin = model_path + ".run.json", model_path + ".logits.f32"
    sh(CLI, "run", "--model", model_path, "--ids", ",".join(map(str, ids)), "--out", out_json,
       "--logits-bin", out_bin)  # the CLI's tokenizer file is the one the build put beside it
    with open(out_json) as f:
        result = json.load(f)
    logits = np.fromfile(out_bin, dtype="<f4").reshape(len(ids), -1)
    np.testing.assert_array_equal(np.asarray(result["logits_last"], dtype=np.float32), logits[-1])
    return logits, np.asarray(result["attention"], dtype=np.float32)


def reference_run(ckpt, ids):
    model = ref.load(ckpt)
    with torch.no_grad():
        logits, att = model(torch.tensor(ids, dtype=torch.long))
    return logits.numpy(), att.numpy()


def cosines(a, b):
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


@unittest.skipUnless(os.path.exists(CLI), "build/native/arcscope not built")
class EngineVsReference(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(WORK, exist_ok=True)
        cls.ids = np.random.default_rng(7).integers(0, CONFIG["vocab"], T).tolist()
        cls.ckpt = checkpoint("f32-ckpt", 11)
        cls.ref_logits, cls.ref_att = reference_run(cls.ckpt, cls.ids)

    def convert(self, ckpt, dtype):
        path = f"{ckpt}.{dtype}.arcs"
        sh(CLI, "convert", "--in", ckpt, "--out", path, "--dtype", dtype)
        return path

    def test_f32_matches_reference(self):
        logits, att = engine_run(self.convert(self.ckpt, "f32"), self.ids)
        att_err = np.abs(att - self.ref_att).max()
        logit_err = np.abs(logits - self.ref_logits).max()
        print(f"\n  {CONFIG}\n  f32, T={T}: attention max abs err {att_err:.3g}, logits max abs err {logit_err:.3g} "
              f"(logits span {self.ref_logits.min():.1f}..{self.ref_logits.max():.1f})")
        self.assertLessEqual(att_err, 1e-4)
        self.assertLessEqual(logit_err, 1e-3)

    def check_packed(self, dtype):
        logits, att = engine_run(self.convert(self.ckpt, dtype), self.ids)
        att_err = np.abs(att - self.ref_att).max()
        off = 1 - cosines(logits.astype(np.float64), self.ref_logits.astype(np.float64)).min()
        logit_err = np.abs(logits - self.ref_logits).max()
        print(f"\n  {dtype}, T={T}: attention max abs err {att_err:.3g} (bound {BOUNDS[dtype][0]:g}), worst "
              f"per-position logits 1 - cosine {off:.3g} (bound {BOUNDS[dtype][1]:g}), logits max abs err "
              f"{logit_err:.3g}, sharpest attention weight {self.ref_att.max():.3f}")
        self.assertLessEqual(att_err, BOUNDS[dtype][0])
        self.assertLessEqual(off, BOUNDS[dtype][1])

    def test_q8_matches_reference(self):
        self.check_packed("q8")

    def test_q16_matches_reference(self):
        self.check_packed("q16")

    def test_packed_weights_are_within_half_a_step(self):
        # The files read back by python/arcscope_reference/arcs_file.py (written from models/README.md, not from the
        # C++): every weight within half of its block's step (max|w| / 127 for q8, / 8191 for q16) of the checkpoint's.
        state, _ = safetensors_io.load(os.path.join(self.ckpt, "model.safetensors"))
        for dtype, levels in (("q8", 127), ("q16", 8191)):
            _, tensors = arcs_file.load(self.convert(self.ckpt, dtype))
            worst = 0.0
            for name in ("wte.weight", "h.0.attn.c_attn.weight", "h.1.mlp.c_proj.weight"):
                w = np.asarray(state[name], dtype=np.float32)
                rows = w if name.startswith("wte") else w.T  # blocks run along in_features
                got = tensors[name] if name.startswith("wte") else tensors[name].T
                pad = -rows.shape[1] % 32
                amax = np.abs(np.pad(rows, ((0, 0), (0, pad)))).reshape(rows.shape[0], -1, 32).max(-1)
                step = np.repeat(amax / levels, 32, axis=1)[:, :rows.shape[1]]
                worst = max(worst, float((np.abs(got - rows) / np.where(step > 0, step, 1)).max()))
            print(f"\n  {dtype}: largest |read back - checkpoint| {worst:.4f} of a step")
            self.assertLessEqual(worst, 0.5 + 1e-3)

    def test_f16_prefixed_checkpoint(self):
        ckpt = checkpoint("f16-prefixed-ckpt", 12, "--dtype", "f16", "--prefix")
        ids = self.ids[:min(40, T)]
        ref_logits, ref_att = reference_run(ckpt, ids)
        logits, att = engine_run(self.convert(ckpt, "f32"), ids)
        att_err, logit_err = np.abs(att - ref_att).max(), np.abs(logits - ref_logits).max()
        print(f"\n  F16 input with transformer. prefix, f32 model, T={len(ids)}: attention max abs err {att_err:.3g}, "
              f"logits max abs err {logit_err:.3g}")
        self.assertLessEqual(att_err, 1e-4)
        self.assertLessEqual(logit_err, 1e-3)


if __name__ == "__main__":
    unittest.main()
