#!/usr/bin/python3
"""Export an HF-layout GPT-2 checkpoint to ONNX for the ONNX Runtime Web side of scripts/bench.sh.

  /usr/bin/python3 scripts/bench/export_onnx.py --model DIR --out FILE.onnx

The graph maps ids (1, T) int64 -> logits (1, n_vocab) of the last position, the same work arcscope's forward does
by default; T stays symbolic. Weights are the checkpoint's own (the independent PyTorch reference loads them), and
the tied LM head is a Gemm with transB on wte itself, so the file holds each weight once.
"""
import argparse
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpt2_reference  # noqa: E402


class LastLogits(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model
        # With a bias, F.linear exports as Gemm(transB=1) reading wte as stored; without one it becomes MatMul on a
        # constant-folded transposed copy (another 154 MB in the file and in ONNX Runtime's memory).
        self.register_buffer("zero_bias", torch.zeros(model.cfg.n_vocab), persistent=False)

    def forward(self, ids):
        # ids (1, T) -> x (1, T, C) -> logits of the last position (1, V)
        x, _ = self.model.hidden(ids, need_attention=False)
        return F.linear(x[:, -1, :], self.model.wte.weight, self.zero_bias)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="directory with config.json + model.safetensors")
    ap.add_argument("--out", required=True, help="ONNX file to write")
    args = ap.parse_args()
    model = LastLogits(gpt2_reference.load(args.model)).eval()
    ids = torch.zeros(1, 8, dtype=torch.long)
    with torch.no_grad():
        torch.onnx.export(model, (ids,), args.out, input_names=["ids"], output_names=["logits"],
                          dynamic_axes={"ids": {1: "T"}}, opset_version=14, do_constant_folding=True)
    print(f"wrote {args.out} ({os.path.getsize(args.out) / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
