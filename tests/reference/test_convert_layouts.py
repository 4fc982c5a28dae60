"""`arcscope convert` on every decoder layout make_checkpoint.py writes (GPT-NeoX, Llama, Qwen2, Qwen3; F32, F16 and
BF16; one file and three shards; tied and untied heads, grouped and biased attention), read back with arcs_file.py
(written from models/README.md) and compared, tensor by tensor, with the checkpoint mapped onto the engine's names
here, in Python, from Hugging Face's modeling code: f32 conversions must hold the checkpoint's values exactly.

  /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_convert_layouts.py
"""
import contextlib
import importlib.util
import io
import json
import os
import shutil
import tempfile
import unittest

import support  # noqa: F401  (puts python/ on the path)
import numpy as np

from arcscope_reference import arcs_file, decoder_config, safetensors_io

_spec = importlib.util.spec_from_file_location("make_checkpoint",
                                               os.path.join(support.ROOT, "scripts", "make_checkpoint.py"))
make_checkpoint = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_checkpoint)  # in this process: torch is imported once, not once a checkpoint

SHAPE = ["--n-layer", "2", "--n-head", "4", "--n-embd", "64", "--n-ctx", "64", "--vocab", "300", "--ffn", "96"]
# (arch, extra flags): each family with the options that change its layout.
CASES = [
    ("gpt_neox", []),
    ("gpt_neox", ["--rotary-pct", "0.5", "--no-parallel-residual"]),
    ("llama", ["--n-kv-head", "2"]),
    ("llama", ["--n-kv-head", "1", "--attention-bias", "--tie-word-embeddings", "false",
               "--llama3-scaling", "8,1,4,32"]),
    ("qwen2", ["--n-kv-head", "2"]),
    ("qwen3", ["--n-kv-head", "2", "--head-dim", "32"]),
]


def mapped(arch, hf):
    """The engine's tensors (name -> float32 (out, in)) that checkpoint hf of this architecture must become."""
    a = arch
    out = {}
    neox = a.model_type == "gpt_neox"
    top = "gpt_neox." if neox else "model."
    out["wte.weight"] = hf[top + ("embed_in.weight" if neox else "embed_tokens.weight")]
    for i in range(a.n_layer):
        p, o = f"{top}layers.{i}.", f"h.{i}."
        for ours, theirs in (("ln_1", "input_layernorm"), ("ln_2", "post_attention_layernorm")):
            out[o + ours + ".weight"] = hf[p + theirs + ".weight"]
            if a.norm == "layernorm":
                out[o + ours + ".bias"] = hf[p + theirs + ".bias"]
        if neox:
            # query_key_value's rows are (head, q/k/v, d): view them so and read q, k, v out whole.
            H, d = a.n_head, a.head_dim
            w = hf[p + "attention.query_key_value.weight"].reshape(H, 3, d, a.n_embd)
            out[o + "attn.c_attn.weight"] = np.concatenate([w[:, s].reshape(H * d, a.n_embd) for s in range(3)])
            if a.qkv_bias:
                b = hf[p + "attention.query_key_value.bias"].reshape(H, 3, d)
                out[o + "attn.c_attn.bias"] = np.concatenate([b[:, s].reshape(H * d) for s in range(3)])
            pairs = (("attn.c_proj", "attention.dense"), ("mlp.c_fc", "mlp.dense_h_to_4h"),
                     ("mlp.c_proj", "mlp.dense_4h_to_h"))
            for ours, theirs in pairs:
                out[o + ours + ".weight"] = hf[p + theirs + ".weight"]
                if p + theirs + ".bias" in hf:
                    out[o + ours + ".bias"] = hf[p + theirs + ".bias"]
            continue
        s = p + "self_attn."
        out[o + "attn.c_attn.weight"] = np.concatenate([hf[s + f"{x}_proj.weight"] for x in "qkv"])
        if a.qkv_bias:
            out[o + "attn.c_attn.bias"] = np.concatenate([hf[s + f"{x}_proj.bias"] for x in "qkv"])
        out[o + "attn.c_proj.weight"] = hf[s + "o_proj.weight"]
        if a.o_bias:
            out[o + "attn.c_proj.bias"] = hf[s + "o_proj.bias"]
        if a.qk_norm:
            out[o + "attn.q_norm.weight"] = hf[s + "q_norm.weight"]
            out[o + "attn.k_norm.weight"] = hf[s + "k_norm.weight"]
        for ours, theirs in (("c_fc", "up_proj"), ("gate", "gate_proj"), ("c_proj", "down_proj")):
            out[o + "mlp." + ours + ".weight"] = hf[p + "mlp." + theirs + ".weight"]
    out["ln_f.weight"] = hf[top + ("final_layer_norm.weight" if neox else "norm.weight")]
    if neox:
        out["ln_f.bias"] = hf["gpt_neox.final_layer_norm.bias"]
    if not a.tied:
        out["lm_head.weight"] = hf["embed_out.weight" if neox else "lm_head.weight"]
    return {name: np.asarray(w, dtype=np.float32) for name, w in out.items()}


@unittest.skipUnless(os.path.exists(support.CLI), "build/native/arcscope is not built")
class ConvertLayouts(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="arcscope-layouts-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def convert(self, arch, extra, dtype, shards, seed):
        ckpt = os.path.join(self.dir, f"{arch}-{dtype}-{shards}-{seed}")
        with contextlib.redirect_stdout(io.StringIO()):  # its "wrote ..." line
            make_checkpoint.main(["--arch", arch, "--out", ckpt, "--seed", str(seed), "--dtype", dtype,
                                  "--shards", str(shards), *SHAPE, *extra])
        out = ckpt + ".arcs"
        said = support.sh(support.CLI, "convert", "--in", ckpt, "--out", out, "--dtype", "f32")
        return ckpt, out, said

    def test_every_layout_converts_to_its_tensors_exactly(self):
        seed, worst = 0, 0.0
        for arch, extra in CASES:
            for dtype in ("F32", "F16", "BF16"):
                for shards in ((1, 3) if dtype == "F32" else (3,)):
                    seed += 1
                    with self.subTest(arch=arch, extra=" ".join(extra), dtype=dtype, shards=shards):
                        ckpt, out, said = self.convert(arch, extra, dtype, shards, seed)
                        with open(os.path.join(ckpt, "config.json")) as f:
                            architecture = decoder_config.from_hf(json.load(f))
                        self.assertIn(f"read {arch}: n_layer 2", said)
                        self.assertEqual(os.path.exists(os.path.join(ckpt, safetensors_io.INDEX)), shards > 1)
                        hf, _ = safetensors_io.load_folder(ckpt)
                        want = mapped(architecture, hf)
                        config, got = arcs_file.load(out)
                        # The file's architecture record says what config.json says (its epsilon as a float32).
                        self.assertEqual(config["eps"], float(np.float32(architecture.eps)))
                        self.assertEqual(decoder_config.Architecture(**dict(config, eps=architecture.eps)),
                                         architecture)
                        self.assertEqual(sorted(got), sorted(want))
                        for name, w in want.items():
                            self.assertEqual(got[name].shape, w.shape, name)
                            diff = float(np.max(np.abs(got[name] - w))) if w.size else 0.0
                            worst = max(worst, diff)
                            self.assertTrue(np.array_equal(got[name], w), f"{name}: largest difference {diff}")
        print(f"\n  {seed} conversions, largest difference from the checkpoint mapped in Python: {worst}")


if __name__ == "__main__":
    unittest.main()
