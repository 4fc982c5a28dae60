"""The general decoders (Llama, Qwen2, Qwen3: rotary positions, grouped-query attention, RMSNorm, SwiGLU) as a
traceable torch module for export_onnx.py, built from the independent PyTorch reference's weights and layer functions
(python/arcscope_reference/decoder_reference.py and decoder_layers.py), not from the engine.

The graph's signature is export_onnx.py's: ids (1, T) -> logits (1, n_vocab) of the last position, and with past
key/values ids (1, T), past_key_{l} / past_value_{l} (1, KV, P, d) -> logits, present_key_{l} / present_value_{l}
(1, KV, P + T, d), the cache holding the key/value heads only (after RoPE), as transformers.js's Llama exports do.
T and P stay symbolic: the rotary cos/sin and the causal mask are tables sliced at [P, P + T), never built from a
shape.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from arcscope_reference import decoder_layers as layers

# Positions the causal-mask table covers (a prompt plus what a benchmark decodes after it): bool, MASK_POSITIONS^2 bytes.
MASK_POSITIONS = 2048


def _linear(x, w, b):
    return F.linear(x, w, b)


class DecoderLastLogits(nn.Module):
    def __init__(self, model):
        super().__init__()
        arch = model.arch
        if arch.model_type not in ("llama", "qwen2", "qwen3") or arch.norm != "rmsnorm" or arch.mlp != "swiglu":
            raise SystemExit(f"export_onnx: no ONNX export for model_type {arch.model_type} yet")
        self.arch = arch
        self.H, self.KV, self.d = arch.n_head, arch.n_kv_head, arch.head_dim
        n = min(arch.n_ctx, MASK_POSITIONS)
        cos, sin = layers.rope_cos_sin(model.inv_freq, n)  # (n, r)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        self.register_buffer("mask", torch.tril(torch.ones(n, n, dtype=torch.bool)), persistent=False)
        self.embed = nn.Parameter(model.embed, requires_grad=False)
        self.head = self.embed if model.head is model.embed else nn.Parameter(model.head, requires_grad=False)
        self.final_w = nn.Parameter(model.final_w, requires_grad=False)
        # As export_onnx.py's GPT-2: a zero bias makes F.linear a Gemm(transB=1) on the table as stored.
        self.register_buffer("zero_bias", torch.zeros(arch.n_vocab), persistent=False)
        self.blocks = nn.ModuleList()
        for w in model.blocks:
            block = nn.Module()
            for name, t in w.items():
                setattr(block, name, nn.Parameter(t, requires_grad=False) if t is not None else None)
            self.blocks.append(block)

    def norm(self, x, w):
        return layers.norm_finish(layers.rms_norm_normalized(x, self.arch.eps), w)

    def attend(self, b, x, P, past_k, past_v):
        """x (T, C), past (1, KV, P, d) -> out (T, C), present k, v (1, KV, P + T, d)."""
        H, KV, d = self.H, self.KV, self.d
        q = _linear(x, b.q_w, b.q_b).reshape(-1, H, d)
        k = _linear(x, b.k_w, b.k_b).reshape(-1, KV, d)
        v = _linear(x, b.v_w, b.v_b).reshape(-1, KV, d)
        if b.q_norm is not None:
            q = layers.rms_norm_normalized(q, self.arch.eps) * b.q_norm
            k = layers.rms_norm_normalized(k, self.arch.eps) * b.k_norm
        T = x.shape[0]
        cos, sin = self.cos[P:P + T], self.sin[P:P + T]
        q = layers.rope_forward(q, cos, sin).transpose(0, 1)  # (H, T, d)
        k = layers.rope_forward(k, cos, sin).transpose(0, 1)[None]  # (1, KV, T, d)
        v = v.transpose(0, 1)[None]
        if past_k is not None:
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
        S = k.shape[2]
        group = H // KV  # query head h reads key/value head h // group
        k_all = k[0][:, None].expand(-1, group, -1, -1).reshape(H, -1, d)  # (H, S, d)
        v_all = v[0][:, None].expand(-1, group, -1, -1).reshape(H, -1, d)
        scores = (q @ k_all.transpose(-2, -1)) / math.sqrt(d)  # (H, T, S)
        scores = scores.masked_fill(~self.mask[P:S, :S], float("-inf"))
        z = (torch.softmax(scores, dim=-1) @ v_all).transpose(0, 1).reshape(T, H * d)
        return _linear(z, b.o_w, b.o_b), k, v

    def forward(self, ids, *past):
        # ids (1, T) -> last position's logits (1, V) [, present_key_0, present_value_0, ...]
        x = self.embed[ids[0]]  # (T, C)
        P = past[0].shape[2] if past else 0
        presents = []
        for i, b in enumerate(self.blocks):
            a, k, v = self.attend(b, self.norm(x, b.ln1_w), P, *(past[2 * i:2 * i + 2] if past else (None, None)))
            x = x + a
            h = self.norm(x, b.ln2_w)
            x = x + _linear(layers.silu(_linear(h, b.gate_w, b.gate_b)) * _linear(h, b.up_w, b.up_b), b.down_w,
                            b.down_b)
            presents += [k, v]
        x = self.norm(x[-1:], self.final_w)
        logits = F.linear(x, self.head, self.zero_bias)
        return (logits, *presents) if past else logits

    def past_shape(self, P):
        return (1, self.KV, P, self.d)
