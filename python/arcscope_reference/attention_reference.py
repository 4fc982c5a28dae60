"""The article's attention blocks in PyTorch, as an independent reference for arcscope's Eigen versions.

Reads one JSON object on stdin: {"kind": "single"|"multi", "x": [...], "shape": [B, T, C], "n_heads": H,
"weights": {"W_q": {"data": [...], "shape": [in, out]}, ...}, "mask": [...] or null} and prints
{"out": [...], "weights": [...]} as JSON. Weights are stored (in, out) and applied as x @ W.
"""
import json
import math
import sys

import torch
import torch.nn.functional as F


def attend(q, k, v, mask):
    # q, k, v (..., T, d) -> out (..., T, d), weights (..., T, T)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ v, weights


def main():
    job = json.load(sys.stdin)
    torch.set_default_dtype(torch.float64)  # the reference computes in double precision
    x = torch.tensor(job["x"]).reshape(job["shape"])
    w = {name: torch.tensor(m["data"]).reshape(m["shape"]) for name, m in job["weights"].items()}
    mask = None if job.get("mask") is None else torch.tensor(job["mask"]).reshape(x.shape[1], x.shape[1])
    if job["kind"] == "single":
        out, weights = attend(x @ w["W_q"], x @ w["W_k"], x @ w["W_v"], mask)
    else:
        b, t, c = x.shape
        h = job["n_heads"]
        split = lambda y: y.reshape(b, t, h, c // h).transpose(1, 2)  # (B, H, T, d)
        heads, weights = attend(split(x @ w["W_q"]), split(x @ w["W_k"]), split(x @ w["W_v"]), mask)
        out = heads.transpose(1, 2).reshape(b, t, c) @ w["W_o"]
    json.dump({"out": out.flatten().tolist(), "weights": weights.flatten().tolist()}, sys.stdout)


if __name__ == "__main__":
    main()
