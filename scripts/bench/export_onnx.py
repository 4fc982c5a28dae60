#!/usr/bin/python3
"""Export an HF-layout checkpoint (GPT-2; Llama, Qwen2 or Qwen3 through onnx_decoder.py) to ONNX for the ONNX Runtime
Web side of scripts/bench.sh.

  /usr/bin/python3 scripts/bench/export_onnx.py --model DIR --out FILE.onnx [--past]

Without --past the graph maps ids (1, T) int64 -> logits (1, n_vocab) of the last position, the same work arcscope's
forward does by default. With --past it is the decoder a generation loop runs (what transformers.js feeds):
ids (1, T), past_key_{l} / past_value_{l} (1, H, P, hd) -> logits (1, n_vocab) of the last position and
present_key_{l} / present_value_{l} (1, H, P + T, hd); the prompt is run with P = 0. T and P stay symbolic. (The
general decoders' caches hold their key/value heads: (1, KV, P, hd).)
Weights are the checkpoint's own (the independent PyTorch reference loads them), and the tied LM head is a Gemm with
transB on wte itself, so the file holds each weight once.
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from arcscope_reference import decoder_reference, gpt2_reference  # noqa: E402
from onnx_decoder import DecoderLastLogits  # noqa: E402


def attend_with_past(attn, x, past_k, past_v):
    """The reference's attention over past keys/values plus the new positions.
    x (B, T, C), past (B, H, P, hd) -> out (B, T, C), present k, v (B, H, P + T, hd)."""
    B, T, C = x.shape
    heads = lambda t: t.reshape(B, -1, attn.n_head, attn.head_dim).transpose(1, 2)  # noqa: E731
    q, k, v = attn.c_attn(x).split(C, dim=2)
    q = heads(q)
    k = torch.cat([past_k, heads(k)], dim=2)
    v = torch.cat([past_v, heads(v)], dim=2)
    P, S = past_k.shape[2], k.shape[2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(attn.head_dim)
    # New query i sits at position P + i: rows P..S-1 of the precomputed causal mask (keeps P and T symbolic).
    scores = scores.masked_fill(~attn.mask[:, :, P:S, :S], float("-inf"))
    y = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, -1, C)
    return attn.c_proj(y), k, v


class LastLogits(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model
        # With a bias, F.linear exports as Gemm(transB=1) reading wte as stored; without one it becomes MatMul on a
        # constant-folded transposed copy (another 154 MB in the file and in ONNX Runtime's memory).
        self.register_buffer("zero_bias", torch.zeros(model.cfg.n_vocab), persistent=False)

    def past_shape(self, P):
        cfg = self.model.cfg
        return (1, cfg.n_head, P, cfg.n_embd // cfg.n_head)

    def forward(self, ids, *past):
        # ids (1, T) -> x (1, T, C) -> logits of the last position (1, V) [, present_key_0, present_value_0, ...]
        m = self.model
        if not past:
            x, _ = m.hidden(ids, need_attention=False)
            return F.linear(x[:, -1, :], m.wte.weight, self.zero_bias)
        P, T = past[0].shape[2], ids.shape[1]
        x = m.wte(ids) + m.wpe(m.positions[P:P + T])
        presents = []
        for i, block in enumerate(m.h):
            a, k, v = attend_with_past(block.attn, block.ln_1(x), past[2 * i], past[2 * i + 1])
            x = x + a
            x = x + block.mlp(block.ln_2(x))
            presents += [k, v]
        x = m.ln_f(x)
        return (F.linear(x[:, -1, :], m.wte.weight, self.zero_bias), *presents)


def past_names(n_layer, prefix):
    return [f"{prefix}_{kind}_{layer}" for layer in range(n_layer) for kind in ("key", "value")]


def close(got, want, what):
    diff = (got - want).abs().max().item()
    if diff > 1e-3 * want.abs().max().item():
        raise SystemExit(f"export_onnx: {what} differ from the reference by {diff}")


@torch.no_grad()
def check_past(model, n_layer, vocab, reference=None):
    """The cached path must give the uncached one's logits: a 12-token prompt, then 3 single tokens; and the module
    the reference's (reference: ids -> the last position's logits), where it is another implementation."""
    ids = torch.arange(15).reshape(1, -1) * 977 % vocab
    out = model(ids[:, :12], *[torch.zeros(model.past_shape(0))] * (2 * n_layer))
    for t in range(12, 15):
        out = model(ids[:, t:t + 1], *out[1:])
        want = model(ids[:, :t + 1])
        close(out[0], want, f"cached logits at position {t}")
        if reference is not None:
            close(want, reference(ids[0, :t + 1]), f"the module's logits at position {t}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="directory with config.json + model.safetensors")
    ap.add_argument("--out", required=True, help="ONNX file to write")
    ap.add_argument("--past", action="store_true", help="the decoder with past key/values in and out")
    args = ap.parse_args()
    torch.set_num_threads(1)  # the machine is shared; export is a one-off
    with open(os.path.join(args.model, "config.json")) as f:
        model_type = json.load(f).get("model_type", "gpt2")
    if model_type == "gpt2":
        model = LastLogits(gpt2_reference.load(args.model)).eval()
        n_layer, vocab, reference = model.model.cfg.n_layer, model.model.cfg.n_vocab, None
    else:
        ref = decoder_reference.load(args.model)
        model = DecoderLastLogits(ref).eval()
        n_layer, vocab = ref.arch.n_layer, ref.arch.n_vocab
        reference = lambda ids: decoder_reference.forward(ref, ids)[0][-1:]  # noqa: E731
    ids = torch.zeros(1, 3, dtype=torch.long)
    inputs, input_names, output_names, axes = (ids,), ["ids"], ["logits"], {"ids": {1: "T"}}
    if args.past:
        check_past(model, n_layer, vocab, reference)
        # A non-empty example past, so tracing does not specialize on P = 0.
        inputs += (torch.zeros(model.past_shape(5)),) * (2 * n_layer)
        input_names += past_names(n_layer, "past")
        output_names += past_names(n_layer, "present")
        axes.update({name: {2: "P"} for name in past_names(n_layer, "past")})
        axes.update({name: {2: "P_plus_T"} for name in past_names(n_layer, "present")})
    with torch.no_grad():
        torch.onnx.export(model, inputs, args.out, input_names=input_names, output_names=output_names,
                          dynamic_axes=axes, opset_version=14, do_constant_folding=True)
    print(f"wrote {args.out} ({os.path.getsize(args.out) / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
