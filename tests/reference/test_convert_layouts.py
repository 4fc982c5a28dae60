"""`arcscope convert` on every decoder layout make_checkpoint.py writes (GPT-NeoX, Llama, Qwen2, Qwen3; F32, F16 and
BF16; one file and three shards; tied and untied heads, grouped and biased attention), read back with arcs_file.py
(written from models/README.md) and compared, tensor by tensor, with the checkpoint mapped onto the engine's names
here, in Python, from Hugging Face's modeling code: f32 conversions must hold the checkpoint's values exactly. And the
CLI reads config.json as decoder_config.py does: the same configs accepted, the same refused by name.

  /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_convert_layouts.py
"""
import contextlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
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
        with open(os.path.join(ckpt, "tokenizer.json"), "w") as f:  # carried inside, after the tensors
            json.dump({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "seed": seed}, f)
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
                        self.assertIn("it carries its tokenizer: tokenizer.json", said)
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


BASES = {
    "gpt_neox": dict(model_type="gpt_neox", hidden_size=64, num_attention_heads=4, num_hidden_layers=1,
                     intermediate_size=128, vocab_size=100, rotary_pct=0.25),
    "llama": dict(model_type="llama", hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
                  num_hidden_layers=1, intermediate_size=128, vocab_size=100),
}
BASES["qwen2"] = dict(BASES["llama"], model_type="qwen2")
BASES["qwen3"] = dict(BASES["llama"], model_type="qwen3")
LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 32}


@unittest.skipUnless(os.path.exists(support.CLI), "build/native/arcscope is not built")
class ConfigAgreement(unittest.TestCase):
    """`arcscope convert` reads config.json as decoder_config.py (the PyTorch reference's reader) does: what one
    refuses the other refuses, and by the same name."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="arcscope-config-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def engine_refusal(self, cfg):
        """The CLI's message for config.json alone, or None when it read the config (and then found no weights)."""
        with open(os.path.join(self.dir, "config.json"), "w") as f:
            json.dump(cfg, f)
        run = subprocess.run([support.CLI, "convert", "--in", self.dir, "--out", os.path.join(self.dir, "x.arcs")],
                             capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        return None if "cannot open" in run.stderr and "model.safetensors" in run.stderr else run.stderr.strip()

    def test_both_readers_accept_and_refuse_the_same_configs(self):
        llama, qwen2, neox = BASES["llama"], BASES["qwen2"], BASES["gpt_neox"]
        accepted = list(BASES.values()) + [
            dict(llama, rope_scaling=LLAMA3), dict(llama, rope_scaling={"rope_type": "default"}),
            dict(llama, attention_bias=True, mlp_bias=True, tie_word_embeddings=True, head_dim=32),
            dict(qwen2, use_sliding_window=False, sliding_window=4096), dict(neox, use_parallel_residual=False),
            dict(neox, hidden_act="gelu_new", rotary_emb_base=500.0), dict(BASES["qwen3"], head_dim=64),
        ]
        refused = [  # (config, what both messages name, or what decoder_config's and the engine's each name)
            (dict(llama, rope_scaling={"rope_type": "yarn", "factor": 4.0}),
             "rope_scaling.rope_type 'yarn' is not supported (supported: default, llama3)"),
            (dict(llama, rope_scaling={"rope_type": "llama3", "factor": 8.0}),
             "rope_scaling of rope_type llama3 lacks"),
            (dict(qwen2, rope_scaling=LLAMA3), "rope_scaling"),
            (dict(neox, rope_scaling={"type": "dynamic", "factor": 2.0}), "rope_scaling"),
            (dict(qwen2, use_sliding_window=True), "use_sliding_window"),
            (dict(BASES["qwen3"], use_sliding_window=True), "use_sliding_window"),
            (dict(llama, num_key_value_heads=3),
             ("do not share 3 key/value heads", "multiple of num_key_value_heads 3")),
            (dict(llama, hidden_act="gelu"), "hidden_act 'gelu' is not supported"),
            (dict(neox, hidden_act="relu"), "hidden_act 'relu' is not supported"),
            (dict(llama, model_type="gemma3"), "model_type 'gemma3' is not supported"),
            (dict(llama, model_type="mistral"), "model_type 'mistral' is not supported"),
        ]
        for cfg in accepted:
            with self.subTest(accepted=cfg):
                decoder_config.from_hf(cfg)
                self.assertIsNone(self.engine_refusal(cfg))
        for cfg, name in refused:
            python_name, engine_name = name if isinstance(name, tuple) else (name, name)
            with self.subTest(refused=cfg):
                with self.assertRaises(ValueError) as caught:
                    decoder_config.from_hf(cfg)
                self.assertIn(python_name, str(caught.exception))
                message = self.engine_refusal(cfg)
                self.assertIsNotNone(message)
                self.assertIn("config.json: ", message)
                self.assertIn(engine_name, message)

    def test_the_engine_also_refuses_what_transformers_would_compute_otherwise(self):
        """Keys decoder_config.py does not read, each of which changes what transformers computes (or, for
        GPT-NeoX's intermediate_size, whose default is no model's): the engine refuses them by name."""
        llama, qwen2, neox = BASES["llama"], BASES["qwen2"], BASES["gpt_neox"]
        for cfg, name in [
            (dict(qwen2, num_experts=60), "num_experts is not supported (mixture-of-experts MLPs)"),
            (dict(llama, final_logit_softcapping=30.0), "final_logit_softcapping is not supported"),
            (dict(BASES["qwen3"], layer_types=["sliding_attention"]), "layer_types 'sliding_attention'"),
            (dict(llama, partial_rotary_factor=0.5), "partial_rotary_factor 0.500000 is not supported"),
            (dict(qwen2, head_dim=128), "head_dim 128 is not supported for qwen2"),
            ({k: v for k, v in neox.items() if k != "intermediate_size"}, "missing intermediate_size"),
        ]:
            with self.subTest(cfg=cfg):
                self.assertIn(name, self.engine_refusal(cfg) or "(accepted)")


if __name__ == "__main__":
    unittest.main()
