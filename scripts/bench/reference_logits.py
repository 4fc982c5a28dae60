#!/usr/bin/python3
"""The PyTorch reference's logits of the last position, for the accuracy lines of scripts/bench.sh.

  /usr/bin/python3 scripts/bench/reference_logits.py --model DIR --ids 13,7932,... --out FILE.bin

FILE.bin holds n_vocab little-endian float32 values (python/arcscope_reference/gpt2_reference.py on a GPT-2
checkpoint, decoder_reference.py on the other architectures; fp32), which scripts/bench/accuracy.mjs compares with
each system's logits for the same ids.
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from arcscope_reference import decoder_reference, gpt2_reference  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="directory with config.json + model.safetensors")
    ap.add_argument("--ids", required=True, help="comma-separated token ids")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    torch.set_num_threads(1)
    ids = torch.tensor([int(s) for s in args.ids.split(",")], dtype=torch.long)
    with open(os.path.join(args.model, "config.json")) as f:
        model_type = json.load(f).get("model_type", "gpt2")
    with torch.no_grad():
        if model_type == "gpt2":
            logits, _ = gpt2_reference.load(args.model)(ids)
        else:
            logits, _ = decoder_reference.forward(decoder_reference.load(args.model), ids)
    logits[-1].numpy().astype("<f4").tofile(args.out)
    print(f"wrote {args.out} (last-position logits over {len(ids)} ids)")


if __name__ == "__main__":
    main()
