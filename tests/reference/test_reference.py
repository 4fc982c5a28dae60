"""Checks the PyTorch reference against an independent NumPy calculation on a tiny GPT-2, and the safetensors
round trip. Run: /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_reference.py"""
import math
import os
import tempfile
import unittest

import numpy as np
import torch

# support first: it puts python/, which holds the package arcscope_reference, on the path
import support  # noqa: F401
from arcscope_reference import gpt2_reference as ref
from arcscope_reference import safetensors_io


def numpy_gpt2(t, cfg, ids):
    """GPT-2 forward written token by token with explicit loops over heads: ids -> logits (T, V), att (L, H, T, T)."""
    def layer_norm(x, g, b):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + cfg.eps) * g + b

    T, C, H = len(ids), cfg.n_embd, cfg.n_head
    hd = C // H
    x = np.stack([t["wte.weight"][i] + t["wpe.weight"][p] for p, i in enumerate(ids)]).astype(np.float64)
    atts = np.zeros((cfg.n_layer, H, T, T))
    for layer in range(cfg.n_layer):
        w = lambda n: t[f"h.{layer}.{n}"].astype(np.float64)  # noqa: E731
        a = layer_norm(x, w("ln_1.weight"), w("ln_1.bias"))
        qkv = a @ w("attn.c_attn.weight") + w("attn.c_attn.bias")
        y = np.zeros((T, C))
        for h in range(H):
            q = qkv[:, h * hd:(h + 1) * hd]
            k = qkv[:, C + h * hd:C + (h + 1) * hd]
            v = qkv[:, 2 * C + h * hd:2 * C + (h + 1) * hd]
            for i in range(T):
                s = np.array([q[i] @ k[j] / math.sqrt(hd) for j in range(i + 1)])
                p = np.exp(s - s.max())
                p /= p.sum()
                atts[layer, h, i, :i + 1] = p
                y[i, h * hd:(h + 1) * hd] = p @ v[:i + 1]
        x = x + y @ w("attn.c_proj.weight") + w("attn.c_proj.bias")
        m = layer_norm(x, w("ln_2.weight"), w("ln_2.bias"))
        u = m @ w("mlp.c_fc.weight") + w("mlp.c_fc.bias")
        u = 0.5 * u * (1 + np.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))
        x = x + u @ w("mlp.c_proj.weight") + w("mlp.c_proj.bias")
    x = layer_norm(x, t["ln_f.weight"], t["ln_f.bias"])
    return x @ t["wte.weight"].T.astype(np.float64), atts


class ReferenceTest(unittest.TestCase):
    def setUp(self):
        self.cfg = ref.GPT2Config(n_layer=2, n_head=2, n_embd=16, n_ctx=12, n_vocab=50)
        torch.manual_seed(0)
        self.model = ref.GPT2(self.cfg).init_weights(seed=3, noisy=True).eval()
        # Larger weights than GPT-2's init so attention is far from uniform and mistakes show.
        with torch.no_grad():
            for name, p in self.model.named_parameters():
                if name.endswith(".weight") and "ln" not in name:
                    p.mul_(10.0)

    def test_matches_numpy_loops(self):
        ids = [3, 17, 42, 3, 17, 8, 0, 49]
        with torch.no_grad():
            logits, att = self.model(torch.tensor(ids))
        t = {k: v.numpy() for k, v in self.model.state_dict().items()}
        want_logits, want_att = numpy_gpt2(t, self.cfg, ids)
        d_logits = np.abs(logits.numpy() - want_logits).max()
        d_att = np.abs(att.numpy() - want_att).max()
        print(f"\nreference vs numpy: max |d logits| = {d_logits:.2e}, max |d attention| = {d_att:.2e}, "
              f"max attention off uniform = {np.abs(want_att[:, :, -1, :] - 1 / len(ids)).max():.2f}")
        self.assertEqual(tuple(logits.shape), (len(ids), self.cfg.n_vocab))
        self.assertEqual(tuple(att.shape), (self.cfg.n_layer, self.cfg.n_head, len(ids), len(ids)))
        self.assertLess(d_logits, 1e-3)
        self.assertLess(d_att, 1e-5)

    def test_batch_equals_single(self):
        ids = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
        with torch.no_grad():
            logits, att = self.model(ids)
            one, one_att = self.model(ids[1])
        self.assertLess((logits[1] - one).abs().max().item(), 1e-5)
        self.assertLess((att[1] - one_att).abs().max().item(), 1e-6)

    def test_checkpoint_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            ref.save(self.model, d)
            tensors, meta = safetensors_io.load(os.path.join(d, "model.safetensors"))
            self.assertEqual(meta.get("format"), "pt")
            self.assertEqual(list(tensors["h.0.attn.c_attn.weight"].shape), [16, 48])  # Conv1D (in, out)
            back = ref.load(d)
            ids = torch.tensor([1, 2, 3])
            with torch.no_grad():
                diff = (back(ids)[0] - self.model(ids)[0]).abs().max().item()
            self.assertEqual(diff, 0.0)

    def test_safetensors_dtypes_and_bad_input(self):
        arrays = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.array([-1, 2], dtype=np.int64),
                  "c": np.zeros((0, 4), dtype=np.float16)}
        blob = safetensors_io.dumps(arrays, {"k": "v"})
        back, meta = safetensors_io.loads(blob)
        self.assertEqual(meta, {"k": "v"})
        for k in arrays:
            np.testing.assert_array_equal(back[k], arrays[k])
            self.assertEqual(back[k].dtype, arrays[k].dtype)
        with self.assertRaises(ValueError):
            safetensors_io.loads(blob[:-4])  # data cut short
        with self.assertRaises(ValueError):
            safetensors_io.loads(b"\xff" * 8)  # header length past the end


if __name__ == "__main__":
    unittest.main()
