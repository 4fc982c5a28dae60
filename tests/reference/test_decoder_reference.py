"""The decoder reference (python/arcscope_reference/decoder_reference.py) checked against itself, against the GPT-2
reference and against plain math, on checkpoints from scripts/make_checkpoint.py: the ground the engine's GPT-NeoX,
Llama, Qwen2 and Qwen3 are later checked on. No engine runs here.
Run: nice /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_decoder_reference.py
"""
import contextlib
import importlib.util
import io
import json
import math
import os
import tempfile
import unittest

import numpy as np
import torch

# support first: it puts python/, which holds the package arcscope_reference, on the path
from support import ROOT
from arcscope_reference import decoder_config
from arcscope_reference import decoder_layers as layers
from arcscope_reference import decoder_reference as dref
from arcscope_reference import gpt2_reference
from arcscope_reference import hooked_reference
from arcscope_reference import safetensors_io

# The generator, imported rather than run: a process per checkpoint would import torch each time.
_spec = importlib.util.spec_from_file_location("make_checkpoint", os.path.join(ROOT, "scripts", "make_checkpoint.py"))
generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generator)

T = 64  # as the GPT-2 family's checks: one of the engine's chunks, enough keys per row for a head to choose among
SHARP = 0.5


def token_ids(T, vocab, seed):
    return np.random.default_rng(seed).integers(0, vocab, T).tolist()


def sharpness(attention):
    """The mean over layers, heads and query rows past the first quarter of the largest attention weight (as
    tests/reference/gpt2_family.sharpness)."""
    return float(attention[:, :, attention.shape[2] // 4:].max(-1).values.mean())


def relative(a, b):
    return float((a - b).abs().max() / b.abs().max())


class Folder(unittest.TestCase):
    """A temporary folder per test class for its checkpoints."""

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.tmp = cls._tmp.name

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    @classmethod
    def checkpoint(cls, name, seed, shape, *extra):
        """make_checkpoint.py --out TMP/name --seed SEED, the shape ({"n_layer": 2, ...}) as its flags, extra."""
        out = os.path.join(cls.tmp, name)
        args = ["--out", out, "--seed", seed]
        for k, v in shape.items():
            args += ["--" + k.replace("_", "-"), v]
        with contextlib.redirect_stdout(io.StringIO()):
            generator.main([str(a) for a in [*args, *extra]])
        return out


class HandComputed(unittest.TestCase):
    """Each layer kind on numbers small enough to work out by hand."""

    def test_norms(self):
        x = torch.tensor([[3.0, 4.0], [1.0, 3.0]])
        rms = layers.rms_norm_normalized(x, 0.0)  # 3, 4 / sqrt(12.5); 1, 3 / sqrt(5)
        torch.testing.assert_close(rms, torch.tensor([[3, 4], [1 / math.sqrt(5), 3 / math.sqrt(5)]]) /
                                   torch.tensor([[math.sqrt(12.5)], [1.0]]), rtol=0, atol=1e-6)
        ln = layers.layer_norm_normalized(torch.tensor([1.0, 2.0, 3.0]), 0.0)  # mean 2, biased variance 2/3
        torch.testing.assert_close(ln, torch.tensor([-1.0, 0.0, 1.0]) * math.sqrt(1.5), rtol=0, atol=1e-6)
        eps = layers.rms_norm_normalized(torch.tensor([0.0, 0.0]), 1e-6)  # eps keeps zero at zero
        self.assertEqual(eps.tolist(), [0.0, 0.0])

    def test_activations(self):
        one = torch.tensor([1.0, -2.0])
        torch.testing.assert_close(layers.gelu_erf(one), torch.tensor([0.8413447461, -0.0455002639]))
        torch.testing.assert_close(layers.gelu_tanh(one), torch.tensor([0.8411919906, -0.0454022884]))
        torch.testing.assert_close(layers.silu(one), torch.tensor([0.7310585786, -0.2384058440]))

    def test_rotate_half_pairs_i_with_i_plus_half(self):
        # d = 4, theta = 100: inv_freq = [1, 1/10]. Position 1 turns (x0, x2) by 1 rad and (x1, x3) by 0.1 rad.
        inv = layers.rope_inv_freq(100.0, 4)
        torch.testing.assert_close(inv, torch.tensor([1.0, 0.1]))
        cos, sin = layers.rope_cos_sin(inv, 2)
        x = torch.tensor([1.0, 2.0, 3.0, 4.0]).reshape(1, 1, 4).repeat(2, 1, 1)
        out = layers.rope_forward(x, cos, sin)
        c0, s0, c1, s1 = math.cos(1), math.sin(1), math.cos(0.1), math.sin(0.1)
        want = [1 * c0 - 3 * s0, 2 * c1 - 4 * s1, 3 * c0 + 1 * s0, 4 * c1 + 2 * s1]
        torch.testing.assert_close(out[1, 0], torch.tensor(want))
        torch.testing.assert_close(out[0], x[0])  # position 0 does not turn

    def test_partial_rotary_passes_the_rest(self):
        inv = layers.rope_inv_freq(10000.0, 2)  # r = 2 of d = 4 (GPT-NeoX's rotary_pct)
        cos, sin = layers.rope_cos_sin(inv, 3)
        x = torch.randn(3, 2, 4, generator=torch.Generator().manual_seed(0))
        out = layers.rope_forward(x, cos, sin)
        self.assertTrue(torch.equal(out[..., 2:], x[..., 2:]))
        self.assertFalse(torch.allclose(out[2, :, :2], x[2, :, :2]))

    def test_grouped_causal_attention(self):
        # T = 2, H = 2 query heads on KV = 1 key/value head, d = 1: scores q k / 1.
        q = torch.tensor([[[1.0], [0.0]], [[2.0], [-1.0]]])  # (T, H, d)
        k = torch.tensor([[[1.0]], [[3.0]]])                  # (T, KV, d)
        v = torch.tensor([[[10.0]], [[20.0]]])
        pattern = torch.softmax(layers.causal_scores(q, k), dim=-1)
        p0 = 1 / (1 + math.exp(2 * 3 - 2 * 1))   # head 0, row 1: scores 2, 6
        p1 = 1 / (1 + math.exp(-3 - -1))        # head 1, row 1: scores -1, -3
        torch.testing.assert_close(pattern, torch.tensor([[[1, 0], [p0, 1 - p0]], [[1, 0], [p1, 1 - p1]]]))
        z = layers.attend(pattern, v)
        torch.testing.assert_close(z[1, :, 0], torch.tensor([10 * p0 + 20 * (1 - p0), 10 * p1 + 20 * (1 - p1)]))

    def test_query_heads_share_key_value_heads_in_groups(self):
        # H = 4 over KV = 2: heads 0, 1 read key/value head 0 and heads 2, 3 head 1 (not 0, 1, 0, 1).
        q = torch.ones(1, 4, 1)
        v = torch.tensor([[[5.0], [7.0]]])
        pattern = torch.softmax(layers.causal_scores(q, torch.ones(1, 2, 1)), dim=-1)
        self.assertEqual(layers.attend(pattern, v)[0, :, 0].tolist(), [5.0, 5.0, 7.0, 7.0])

    def test_llama3_scaling_of_llama_3_2(self):
        # Llama 3.2 1B: theta 500000, head_dim 64, factor 32, low 1, high 4, original 8192.
        inv = layers.rope_inv_freq(500000.0, 64)
        scaled = layers.llama3_inv_freq(inv, 32.0, 1.0, 4.0, 8192.0)
        wavelen = 2 * math.pi / inv
        high = wavelen < 8192 / 4  # wavelengths under 2048 positions keep their frequency
        low = wavelen > 8192 / 1   # over 8192 positions: divided by the factor
        medium = ~high & ~low
        self.assertTrue(torch.equal(scaled[high], inv[high]))
        torch.testing.assert_close(scaled[low], inv[low] / 32)
        # 2 pi 500000^(j/32) < 2048 for j <= 14, > 8192 for j >= 18 (j/32 > ln(8192 / 2 pi) / ln 500000 = 0.547)
        self.assertEqual((int(high.sum()), int(medium.sum()), int(low.sum())), (15, 3, 14))
        s = (8192 / wavelen[medium] - 1) / (4 - 1)  # between: blends the two by s
        torch.testing.assert_close(scaled[medium], inv[medium] * ((1 - s) / 32 + s))
        self.assertTrue(bool(((scaled[medium] < inv[medium]) & (scaled[medium] > inv[medium] / 32)).all()))


class Rope(unittest.TestCase):
    def test_identity_at_position_zero_and_norms_kept(self):
        g = torch.Generator().manual_seed(1)
        x = torch.randn(40, 3, 64, generator=g)
        for r in (64, 16):
            cos, sin = layers.rope_cos_sin(layers.rope_inv_freq(10000.0, r), 40)
            out = layers.rope_forward(x, cos, sin)
            self.assertTrue(torch.equal(out[0], x[0]))
            torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1))

    def test_scores_depend_on_the_offset_only(self):
        g = torch.Generator().manual_seed(2)
        q, k = torch.randn(1, 1, 32, generator=g), torch.randn(1, 1, 32, generator=g)
        inv = layers.rope_inv_freq(10000.0, 32)

        def at(x, position):
            cos, sin = layers.rope_cos_sin(inv, 1, first_position=position)
            return layers.rope_forward(x, cos, sin)

        base = float((at(q, 7) * at(k, 3)).sum())
        self.assertAlmostEqual(float((at(q, 27) * at(k, 23)).sum()), base, places=4)
        self.assertNotAlmostEqual(float((at(q, 27) * at(k, 22)).sum()), base, places=2)


class Configs(unittest.TestCase):
    def test_qwen3_head_dim_defaults_to_128(self):
        cfg = dict(model_type="qwen3", hidden_size=1024, num_attention_heads=16, num_key_value_heads=8,
                   num_hidden_layers=1, intermediate_size=3072, vocab_size=100)
        self.assertEqual(decoder_config.from_hf(cfg).head_dim, 128)
        self.assertEqual(decoder_config.from_hf(dict(cfg, model_type="llama")).head_dim, 64)

    def test_pythia_rotary(self):
        arch = decoder_config.from_hf(dict(model_type="gpt_neox", hidden_size=512, num_attention_heads=8,
                                           num_hidden_layers=6, vocab_size=50304, rotary_pct=0.25))
        self.assertEqual((arch.rotary_dim, arch.parallel_residual, arch.tied, arch.mlp), (16, True, False, "gelu"))

    def test_refusals_name_what_is_refused(self):
        base = dict(model_type="llama", hidden_size=64, num_attention_heads=4, num_hidden_layers=1,
                    intermediate_size=128, vocab_size=100)
        cases = [
            (dict(base, rope_scaling={"rope_type": "yarn", "factor": 4.0}),
             "config.json: rope_scaling.rope_type 'yarn' is not supported (supported: default, llama3)"),
            (dict(base, model_type="gemma3"), "model_type 'gemma3' is not supported"),
            (dict(base, model_type="qwen2", use_sliding_window=True), "use_sliding_window"),
            (dict(base, num_key_value_heads=3), "4 heads do not share 3 key/value heads"),
        ]
        for cfg, message in cases:
            with self.assertRaises(ValueError) as caught:
                decoder_config.from_hf(cfg)
            self.assertIn(message, str(caught.exception))


class GPT2IsOneConfiguration(Folder):
    def test_equals_the_gpt2_reference(self):
        ckpt = self.checkpoint("gpt2", 3, dict(n_layer=2, n_head=4, n_embd=128, n_ctx=128, vocab=1000),
                               "--qk-scale", 4)
        ids = token_ids(T, 1000, 3)
        logits, attention, cache = dref.run(dref.load(ckpt), ids)
        g = gpt2_reference.load(ckpt)
        with torch.no_grad():
            g_logits, g_attention = g(torch.tensor(ids))
        _, g_cache = hooked_reference.run(g, ids)
        worst = max(relative(cache[n], g_cache[n]) for n in g_cache)
        print(f"\n  gpt2 as a configuration: logits {relative(logits, g_logits):.1e} of the largest apart, attention "
              f"{float((attention - g_attention).abs().max()):.1e}, hooks {worst:.1e}; "
              f"sharpness {sharpness(attention):.2f}")
        self.assertLess(relative(logits, g_logits), 1e-5)
        self.assertLess(float((attention - g_attention).abs().max()), 1e-5)
        self.assertLess(worst, 1e-5)


def _llama_tensors(folder):
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    return config, safetensors_io.load_folder(folder)[0]


class Grouping(Folder):
    def test_grouped_heads_equal_multi_head_with_repeated_key_values(self):
        ckpt = self.checkpoint("gqa", 4, dict(arch="llama", n_layer=2, n_head=4, n_kv_head=2, n_embd=64, n_ctx=64,
                                              vocab=500), "--qk-scale", 4)
        config, tensors = _llama_tensors(ckpt)
        d = 16
        mha = dict(tensors)
        for i in range(2):
            for part in ("k_proj", "v_proj"):
                name = f"model.layers.{i}.self_attn.{part}.weight"
                heads = tensors[name].reshape(2, d, 64)
                mha[name] = np.repeat(heads, 2, axis=0).reshape(4 * d, 64)  # kv head j serves query heads 2j, 2j+1
        ids = token_ids(T, 500, 4)
        grouped = dref.run(dref.from_tensors(config, tensors), ids)
        full = dref.run(dref.from_tensors(dict(config, num_key_value_heads=4), mha), ids)
        self.assertEqual(list(grouped[2]["blocks.0.attn.hook_k"].shape), [T, 2, d])
        self.assertEqual(list(full[2]["blocks.0.attn.hook_k"].shape), [T, 4, d])
        torch.testing.assert_close(grouped[0], full[0], rtol=0, atol=1e-4)
        torch.testing.assert_close(grouped[1], full[1], rtol=0, atol=1e-6)
        # and the grouping is by blocks: kv heads repeated 0, 1, 0, 1 give another model
        tiled = dict(tensors)
        for i in range(2):
            for part in ("k_proj", "v_proj"):
                name = f"model.layers.{i}.self_attn.{part}.weight"
                tiled[name] = np.tile(tensors[name].reshape(2, d, 64), (2, 1, 1)).reshape(4 * d, 64)
        other = dref.run(dref.from_tensors(dict(config, num_key_value_heads=4), tiled), ids)
        self.assertGreater(float((other[1] - grouped[1]).abs().max()), 0.1)


class Storage(Folder):
    def test_shards_and_dtypes_load_the_same_values(self):
        shape = dict(arch="qwen2", n_layer=2, n_head=4, n_kv_head=2, n_embd=64, n_ctx=64, vocab=300)
        one = self.checkpoint("f32", 5, shape)
        three = self.checkpoint("f32-3", 5, shape, "--shards", 3)
        f16 = self.checkpoint("f16", 5, shape, "--dtype", "F16", "--shards", 2)
        bf16 = self.checkpoint("bf16", 5, shape, "--dtype", "BF16")
        shards = [f"model-0000{i}-of-00003.safetensors" for i in (1, 2, 3)]
        self.assertEqual(sorted(os.listdir(three)), ["config.json", *shards, "model.safetensors.index.json"])
        with open(os.path.join(three, safetensors_io.INDEX)) as f:
            index = json.load(f)
        ref = safetensors_io.load_folder(one)[0]
        self.assertEqual(index["metadata"]["total_size"], sum(a.nbytes for a in ref.values()))
        self.assertEqual(sorted(index["weight_map"]), sorted(ref))
        for folder, cast in ((three, None), (f16, "f16"), (bf16, "bf16")):
            loaded = safetensors_io.load_folder(folder)[0]
            self.assertEqual(sorted(loaded), sorted(ref))
            for name, arr in ref.items():
                want = arr if cast is None else (arr.astype(np.float16) if cast == "f16" else
                                                 torch.tensor(arr).to(torch.bfloat16).float().numpy())
                self.assertTrue(np.array_equal(np.asarray(loaded[name], dtype=np.float32),
                                               np.asarray(want, dtype=np.float32)), f"{folder}: {name}")
        ids = token_ids(T, 300, 5)
        a, b = dref.forward(dref.load(one), ids), dref.forward(dref.load(three), ids)
        self.assertTrue(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]))
        with open(os.path.join(bf16, "config.json")) as f:
            self.assertEqual(json.load(f)["torch_dtype"], "bfloat16")

    def test_same_arguments_same_bytes(self):
        shape = dict(arch="gpt_neox", n_layer=1, n_head=4, n_embd=64, n_ctx=32, vocab=100)
        a = self.checkpoint("again-a", 6, shape, "--dtype", "BF16", "--shards", 2)
        b = self.checkpoint("again-b", 6, shape, "--dtype", "BF16", "--shards", 2)
        for name in os.listdir(a):
            with open(os.path.join(a, name), "rb") as fa, open(os.path.join(b, name), "rb") as fb:
                self.assertEqual(fa.read(), fb.read(), name)


class Layouts(Folder):
    def test_neox_fused_rows_are_head_then_q_k_v(self):
        ckpt = self.checkpoint("neox", 7, dict(arch="gpt_neox", n_layer=1, n_head=4, n_embd=64, n_ctx=32, vocab=100))
        config, tensors = _llama_tensors(ckpt)
        qkv = tensors["gpt_neox.layers.0.attention.query_key_value.weight"]
        block = dref.from_tensors(config, tensors).blocks[0]
        d = 16
        for h in range(4):  # rows [h, part, i] at h * 3d + part * d + i
            for part, key in enumerate(("q_w", "k_w", "v_w")):
                self.assertTrue(np.array_equal(block[key][h * d:(h + 1) * d].numpy(),
                                               qkv[h * 3 * d + part * d:h * 3 * d + (part + 1) * d]))
        self.assertIn("gpt_neox.layers.0.attention.rotary_emb.inv_freq", tensors)  # old files' buffers, skipped
        self.assertEqual(tensors["gpt_neox.layers.0.attention.bias"].dtype, np.bool_)

    def test_unexpected_and_missing_tensors_are_named(self):
        ckpt = self.checkpoint("names", 8, dict(arch="llama", n_layer=1, n_head=2, n_embd=32, n_ctx=16, vocab=50))
        config, tensors = _llama_tensors(ckpt)
        with self.assertRaisesRegex(ValueError, "unexpected tensors.*model.layers.0.mlp.extra"):
            dref.from_tensors(config, dict(tensors, **{"model.layers.0.mlp.extra": np.zeros(2, np.float32)}))
        del tensors["model.layers.0.self_attn.k_proj.weight"]
        with self.assertRaisesRegex(ValueError, "model.layers.0.self_attn.k_proj.weight is missing"):
            dref.from_tensors(config, tensors)
        config, tensors = _llama_tensors(ckpt)
        with self.assertRaisesRegex(ValueError, r"lm_head.weight is missing"):
            dref.from_tensors(dict(config, tie_word_embeddings=False), tensors)


class Llama3(Folder):
    def test_scaled_frequencies_and_untied_head_reach_the_model(self):
        ckpt = self.checkpoint("llama3", 13, dict(arch="llama", n_layer=1, n_head=4, n_kv_head=1, n_embd=128,
                                                  n_ctx=16384, vocab=100, rope_theta=500000),
                               "--llama3-scaling", "32,1,4,8192", "--tie-word-embeddings", "false")
        model = dref.load(ckpt)
        plain = layers.rope_inv_freq(500000.0, 32)
        self.assertTrue(torch.equal(model.inv_freq, layers.llama3_inv_freq(plain, 32.0, 1.0, 4.0, 8192.0)))
        self.assertFalse(torch.equal(model.inv_freq, plain))
        self.assertFalse(torch.equal(model.head, model.embed))
        with open(os.path.join(ckpt, "config.json")) as f:
            config = json.load(f)
        self.assertEqual(config["rope_scaling"], {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                                  "original_max_position_embeddings": 8192, "rope_type": "llama3"})
        # positions far apart turn the low frequencies by visibly different angles with and without the scaling
        ids = token_ids(T, 100, 13)
        scaled = dref.run(model, ids)[2]["blocks.0.attn.hook_rot_k"]
        model.inv_freq = plain
        self.assertGreater(float((dref.run(model, ids)[2]["blocks.0.attn.hook_rot_k"] - scaled).abs().max()), 1e-3)


class QwenNorms(Folder):
    def test_q_norm_k_norm_of_weight_one_normalize_each_head(self):
        ckpt = self.checkpoint("qwen3", 9, dict(arch="qwen3", n_layer=1, n_head=4, n_kv_head=2, head_dim=32,
                                                n_embd=64, n_ctx=64, vocab=200), "--qk-scale", 4)
        config, tensors = _llama_tensors(ckpt)
        ones = dict(tensors)
        for part in ("q_norm", "k_norm"):
            ones[f"model.layers.0.self_attn.{part}.weight"] = np.ones(32, np.float32)
        _, attention, cache = dref.run(dref.from_tensors(config, ones), token_ids(T, 200, 9))
        for which in ("q", "k"):
            raw, rotated = cache[f"blocks.0.attn.hook_{which}"], cache[f"blocks.0.attn.hook_rot_{which}"]
            rms = raw.pow(2).mean(-1, keepdim=True).add(1e-6).sqrt()
            torch.testing.assert_close(rotated[0], (raw / rms)[0])  # position 0: normalized, not turned
            torch.testing.assert_close(rotated.norm(dim=-1), (raw / rms).norm(dim=-1))
        # without the norms (the same weights as llama) the pattern is another
        llama = {k: v for k, v in tensors.items() if not k.endswith(("q_norm.weight", "k_norm.weight"))}
        _, plain, _ = dref.run(dref.from_tensors(dict(config, model_type="llama"), llama), token_ids(T, 200, 9))
        self.assertGreater(float((plain - attention).abs().max()), 0.1)

    def test_qwen2_biases_count(self):
        ckpt = self.checkpoint("qwen2", 10, dict(arch="qwen2", n_layer=1, n_head=4, n_kv_head=2, n_embd=64, n_ctx=64,
                                                 vocab=200), "--qk-scale", 4)
        config, tensors = _llama_tensors(ckpt)
        self.assertNotIn("model.layers.0.self_attn.o_proj.bias", tensors)
        zero = {k: (np.zeros_like(v) if k.endswith("_proj.bias") else v) for k, v in tensors.items()}
        ids = token_ids(T, 200, 10)
        with_bias, without = dref.forward(dref.from_tensors(config, tensors), ids), \
            dref.forward(dref.from_tensors(config, zero), ids)
        self.assertGreater(float((with_bias[1] - without[1]).abs().max()), 0.01)


class Residuals(Folder):
    def _run(self, name, *extra):
        ckpt = self.checkpoint(name, 11, dict(arch="gpt_neox", n_layer=2, n_head=4, n_embd=64, n_ctx=64, vocab=200),
                               "--qk-scale", 4, *extra)
        return dref.run(dref.load(ckpt), token_ids(T, 200, 11))[2]

    def test_parallel_block_reads_resid_pre_twice(self):
        cache = self._run("parallel")
        self.assertNotIn("blocks.0.hook_resid_mid", cache)
        for i in range(2):
            b = f"blocks.{i}."
            pre = cache[b + "hook_resid_pre"]
            torch.testing.assert_close(cache[b + "ln2.hook_normalized"], layers.layer_norm_normalized(pre, 1e-5))
            torch.testing.assert_close(cache[b + "hook_resid_post"],
                                       pre + cache[b + "hook_attn_out"] + cache[b + "hook_mlp_out"])

    def test_sequential_block_normalizes_resid_mid(self):
        cache = self._run("sequential", "--no-parallel-residual")
        b = "blocks.1."
        mid = cache[b + "hook_resid_mid"]
        torch.testing.assert_close(mid, cache[b + "hook_resid_pre"] + cache[b + "hook_attn_out"])
        torch.testing.assert_close(cache[b + "ln2.hook_normalized"], layers.layer_norm_normalized(mid, 1e-5))
        torch.testing.assert_close(cache[b + "hook_resid_post"], mid + cache[b + "hook_mlp_out"])

    def test_neox_mlp_is_exact_gelu(self):
        cache = self._run("parallel")
        torch.testing.assert_close(cache["blocks.0.mlp.hook_post"], layers.gelu_erf(cache["blocks.0.mlp.hook_pre"]))


class SharpHeadsAtRealWidths(Folder):
    """--qk-scale 4 gives heads as sharp as trained ones (mean largest weight >= 0.5) at each model's real width, head
    count and head size, 2 blocks. SmolLM2 and Pythia with their real vocabularies; the Qwen shapes with 8,192 tokens
    instead of 151,936 (the vocabulary does not enter attention, and the full one costs 0.5 GB a checkpoint)."""
    SHAPES = {
        "smollm2-135m": (dict(arch="llama", n_head=9, n_kv_head=3, n_embd=576, ffn=1536, vocab=49152, n_ctx=8192,
                              rope_theta=100000), ()),
        "pythia-70m": (dict(arch="gpt_neox", n_head=8, n_embd=512, ffn=2048, vocab=50304, n_ctx=2048), ()),
        "qwen2.5-0.5b": (dict(arch="qwen2", n_head=14, n_kv_head=2, n_embd=896, ffn=4864, vocab=8192, n_ctx=32768,
                              rope_theta=1000000), ()),
        "qwen3-0.6b": (dict(arch="qwen3", n_head=16, n_kv_head=8, head_dim=128, n_embd=1024, ffn=3072, vocab=8192,
                            n_ctx=40960, rope_theta=1000000), ()),
    }

    def test_mean_largest_weight(self):
        for name, (shape, extra) in self.SHAPES.items():
            with self.subTest(name):
                ckpt = self.checkpoint(name, 12, dict(shape, n_layer=2), "--qk-scale", 4, "--dtype", "BF16", *extra)
                model = dref.load(ckpt)
                _, attention = dref.forward(model, token_ids(T, shape["vocab"], 12))
                print(f"\n  {name}: mean largest attention weight {sharpness(attention):.2f} at --qk-scale 4", end="")
                self.assertGreaterEqual(sharpness(attention), SHARP)
