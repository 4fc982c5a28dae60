"""The patching sweep as a TransformerLens user runs it: one full forward pass per patch, with a hook that puts the
clean run's activation in (python/arcscope_reference/hooked_reference.py's hooks, the same names). Prints the
milliseconds of each corrupted prompt's sweep (144 heads at hook_z, then every (layer, position) of hook_resid_pre)
as a JSON list.
  python3 scripts/bench/patching_torch.py --model DIR --clean 1,2,.. --corrupted 1,3,.. [--corrupted ...] [--threads 1]
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from arcscope_reference.blas import prefer_openblas  # noqa: E402
from arcscope_reference import gpt2_reference as ref  # noqa: E402
from arcscope_reference import hooked_reference  # noqa: E402


def sweep(model, clean, corrupted, answer=1000, wrong=2000):
    L, H = model.cfg.n_layer, model.cfg.n_head
    _, cache = hooked_reference.run(model, clean)
    for l in range(L):
        for h in range(H):
            def patch(z, l=l, h=h):
                z[:, h] = cache[f"blocks.{l}.attn.hook_z"][:, h]
                return z
            logits, _ = hooked_reference.run(model, corrupted, {f"blocks.{l}.attn.hook_z": patch})
            _ = float(logits[-1, answer] - logits[-1, wrong])
    for l in range(L):
        for p in range(len(clean)):
            def patch(x, l=l, p=p):
                x[p] = cache[f"blocks.{l}.hook_resid_pre"][p]
                return x
            logits, _ = hooked_reference.run(model, corrupted, {f"blocks.{l}.hook_resid_pre": patch})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--clean", required=True)
    ap.add_argument("--corrupted", action="append", required=True)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    prefer_openblas(args.threads)  # a fast BLAS, as a PyTorch from pip has (Debian's default is netlib's)
    torch.set_num_threads(args.threads)
    model = ref.load(args.model)
    clean = [int(v) for v in args.clean.split(",")]
    times = []
    for text in args.corrupted:
        t0 = time.perf_counter()
        sweep(model, clean, [int(v) for v in text.split(",")])
        times.append((time.perf_counter() - t0) * 1000)
    print(json.dumps(times))


if __name__ == "__main__":
    main()
