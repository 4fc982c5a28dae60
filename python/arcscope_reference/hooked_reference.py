"""GPT-2's forward pass written out step by step in PyTorch with TransformerLens's hook names, the independent
reference for the engine's hooks (include/arcscope/hooks.h): what each name holds, and what changing it does.

    logits, cache = run(model, ids)                                   # every activation, by name
    logits, _ = run(model, ids, {"blocks.1.attn.hook_z": zero_head(0)})  # the pass with an edit at one point

model is gpt2_reference.py's GPT2 (Hugging Face weights, no processing: TransformerLens's
from_pretrained_no_processing). The batch dimension is dropped, as arcscope does: resid [T, C], q/k/v/z [T, H, d_head],
pattern [H, T, T], mlp.hook_post [T, 4C], ln_final.hook_normalized [T, C] (before ln_f's scale and shift).
"""
import math

import torch

from .hook_points import hook_points


def _layer_norm_parts(x, eps):
    """x (T, C) -> (x - mean) / sqrt(var + eps), the part TransformerLens's hook_normalized holds."""
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps)


def _gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


@torch.no_grad()
def run(model, ids, hooks=None):
    """ids (T,) -> (logits (T, V), cache {name: tensor}). hooks {name: fn(tensor) -> tensor or None} run at their
    point in the pass; a returned tensor replaces the activation from there on, as TransformerLens's hooks do."""
    point, cache = hook_points(hooks)
    cfg = model.cfg
    C, H = cfg.n_embd, cfg.n_head
    d = C // H
    ids = torch.as_tensor(ids, dtype=torch.long)
    T = ids.shape[0]

    x = model.wte.weight[ids] + model.wpe.weight[:T]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for l, block in enumerate(model.h):
        b = f"blocks.{l}."
        x = point(b + "hook_resid_pre", x)
        a = block.attn
        h1 = _layer_norm_parts(x, cfg.eps) * block.ln_1.weight + block.ln_1.bias
        qkv = h1 @ a.c_attn.weight + a.c_attn.bias  # (T, 3C)
        q = point(b + "attn.hook_q", qkv[:, :C].reshape(T, H, d))
        k = point(b + "attn.hook_k", qkv[:, C:2 * C].reshape(T, H, d))
        v = point(b + "attn.hook_v", qkv[:, 2 * C:].reshape(T, H, d))
        scores = torch.einsum("qhd,khd->hqk", q, k) / math.sqrt(d)
        scores = scores.masked_fill(~causal, float("-inf"))
        pattern = point(b + "attn.hook_pattern", torch.softmax(scores, dim=-1))  # (H, T, T)
        z = point(b + "attn.hook_z", torch.einsum("hqk,khd->qhd", pattern, v))  # (T, H, d)
        attn_out = point(b + "hook_attn_out", z.reshape(T, C) @ a.c_proj.weight + a.c_proj.bias)
        x = point(b + "hook_resid_mid", x + attn_out)
        m = block.mlp
        h2 = _layer_norm_parts(x, cfg.eps) * block.ln_2.weight + block.ln_2.bias
        post = point(b + "mlp.hook_post", _gelu_new(h2 @ m.c_fc.weight + m.c_fc.bias))
        mlp_out = point(b + "hook_mlp_out", post @ m.c_proj.weight + m.c_proj.bias)
        x = point(b + "hook_resid_post", x + mlp_out)
    normalized = point("ln_final.hook_normalized", _layer_norm_parts(x, cfg.eps))
    final = normalized * model.ln_f.weight + model.ln_f.bias
    return final @ model.wte.weight.t(), cache
