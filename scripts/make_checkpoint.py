#!/usr/bin/python3
"""Write a deterministic random GPT-2 checkpoint in exactly the Hugging Face layout, for tests and benchmarks.

  /usr/bin/python3 scripts/make_checkpoint.py --out DIR --n-layer 12 --n-head 12 --n-embd 768 --n-ctx 1024 \
      --vocab 50257 --seed 0

DIR gets config.json and model.safetensors as HF ships GPT-2: Conv1D weights stored (in, out), no lm_head (tied to
wte), and the h.{i}.attn.bias causal-mask buffers (1, 1, n_ctx, n_ctx) plus h.{i}.attn.masked_bias, which a converter
must skip. The same arguments always give the same bytes.

Scales are chosen so every part of the network matters and no two correct implementations disagree: LayerNorm
gains near 1, small random biases, value/MLP weights ~ 1/sqrt(fan_in) so each block moves the residual stream, and
Q/K weights sized so the attention scores have standard deviation --qk-scale (default 1): peaked enough to be
interesting, far from the chaotic regime that large random Q/K weights reach in deep stacks.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from arcscope_reference import safetensors_io  # noqa: E402


def make_state(L, H, C, N, V, seed, qk_scale):
    g = torch.Generator().manual_seed(seed)

    def randn(*shape, std=1.0, mean=0.0):
        return torch.randn(*shape, generator=g) * std + mean

    state = {
        "wte.weight": randn(V, C, std=0.5),
        "wpe.weight": randn(N, C, std=0.2),
    }
    qk_std = math.sqrt(qk_scale / C)  # score = q.k / sqrt(hd) then has std ~ C * qk_std^2 = qk_scale
    mask = torch.tril(torch.ones(N, N)).reshape(1, 1, N, N)
    for i in range(L):
        p = f"h.{i}."
        c_attn = torch.cat([randn(C, C, std=qk_std), randn(C, C, std=qk_std), randn(C, C, std=1 / math.sqrt(C))], 1)
        state.update({
            p + "ln_1.weight": randn(C, std=0.1, mean=1.0), p + "ln_1.bias": randn(C, std=0.05),
            p + "attn.c_attn.weight": c_attn,  # Conv1D: (in C, out 3C) = [q | k | v]
            p + "attn.c_attn.bias": randn(3 * C, std=0.05),
            p + "attn.c_proj.weight": randn(C, C, std=0.5 / math.sqrt(C)), p + "attn.c_proj.bias": randn(C, std=0.05),
            p + "ln_2.weight": randn(C, std=0.1, mean=1.0), p + "ln_2.bias": randn(C, std=0.05),
            p + "mlp.c_fc.weight": randn(C, 4 * C, std=1 / math.sqrt(C)), p + "mlp.c_fc.bias": randn(4 * C, std=0.05),
            p + "mlp.c_proj.weight": randn(4 * C, C, std=0.5 / math.sqrt(4 * C)),
            p + "mlp.c_proj.bias": randn(C, std=0.05),
            p + "attn.bias": mask,  # buffers HF checkpoints carry
            p + "attn.masked_bias": torch.tensor(-1e4),
        })
    state["ln_f.weight"] = randn(C, std=0.1, mean=1.0)
    state["ln_f.bias"] = randn(C, std=0.05)
    return state


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="directory to write config.json and model.safetensors into")
    ap.add_argument("--n-layer", type=int, default=2)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--n-embd", type=int, default=128)
    ap.add_argument("--n-ctx", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--qk-scale", type=float, default=1.0, help="std of the attention scores (default 1)")
    ap.add_argument("--dtype", choices=["f32", "f16"], default="f32", help="storage type of the weights")
    ap.add_argument("--prefix", action="store_true", help="name tensors 'transformer.*' (the other HF form)")
    a = ap.parse_args()
    if a.n_embd % a.n_head:
        ap.error("--n-embd must be divisible by --n-head")

    state = make_state(a.n_layer, a.n_head, a.n_embd, a.n_ctx, a.vocab, a.seed, a.qk_scale)
    np_dtype = np.float16 if a.dtype == "f16" else np.float32
    tensors = {("transformer." if a.prefix else "") + k: v.numpy().astype(np_dtype, copy=False) for k, v in state.items()}
    os.makedirs(a.out, exist_ok=True)
    config = {
        "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new",
        "n_layer": a.n_layer, "n_head": a.n_head, "n_embd": a.n_embd, "n_positions": a.n_ctx, "n_ctx": a.n_ctx,
        "vocab_size": a.vocab, "layer_norm_epsilon": 1e-5, "bos_token_id": 50256, "eos_token_id": 50256,
        "n_inner": None, "tie_word_embeddings": True,
    }
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    safetensors_io.save(os.path.join(a.out, "model.safetensors"), tensors, {"format": "pt"})
    n_params = sum(v.numel() for k, v in state.items() if not k.endswith("attn.bias") and "masked_bias" not in k)
    print(f"wrote {a.out}: {a.n_layer} layers, {a.n_head} heads, n_embd {a.n_embd}, n_ctx {a.n_ctx}, "
          f"vocab {a.vocab}, {n_params:,} parameters, seed {a.seed}")


if __name__ == "__main__":
    main()
