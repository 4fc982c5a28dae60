"""Which heads does a model need to continue a repeated random sequence? Knock each out and see.

  PYTHONPATH=python /usr/bin/python3 -m arcscope_reference.head_ablation --model build/default-model \
      [--draw-from TEXT] [--length 50] [--seqs 20]

The input is the head scores' input (include/arcscope/heads.h): N random tokens written twice. Nothing can predict the first
copy, so its loss sits near ln(candidates); a model that reads the context predicts the second copy almost
perfectly. The script prints the mean loss on each copy for the whole model and then with each head's output
zeroed in turn (its slice of the attention output before c_proj), one JSON line per head. A head the model
relies on for the copy makes the second-copy loss jump when it is gone.
"""
import argparse
import json
import math

import numpy as np
import torch
import torch.nn.functional as nn_f

from . import bpe_tokenizer
from . import gpt2_reference as ref
from .corpus import read_text, split_tokens


def silence(model, layer, head):
    """Zero one head's output for as long as the returned handle lives (handle.remove() restores it)."""
    d = model.cfg.n_embd // model.cfg.n_head

    def hook(_, inputs):
        y = inputs[0].clone()
        y[..., head * d:(head + 1) * d] = 0
        return (y,)
    return model.h[layer].attn.c_proj.register_forward_pre_hook(hook)


@torch.no_grad()
def copy_losses(model, seqs):
    """Mean next-token loss (nats) on the first and on the second copy of each sequence written twice."""
    n = seqs.shape[1]
    ids = torch.cat([seqs, seqs], 1)
    logits, _ = model(ids)
    loss = nn_f.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")  # (B, 2N - 1)
    return loss[:, :n - 1].mean().item(), loss[:, n:].mean().item()  # loss[:, n - 1] predicts the repeat's start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="HF-layout checkpoint directory")
    ap.add_argument("--draw-from", help="draw the tokens from this text's training part (default: all but end-of-text)")
    ap.add_argument("--length", type=int, default=50)
    ap.add_argument("--seqs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(1)

    model = ref.load(args.model)
    if args.draw_from:
        train, _ = split_tokens(bpe_tokenizer.Tokenizer().encode(read_text(args.draw_from)))
        candidates = np.unique(train)
    else:
        candidates = np.arange(model.cfg.n_vocab - 1)  # all but end-of-text, like the head scores
    rng = np.random.default_rng(args.seed)
    seqs = torch.from_numpy(rng.choice(candidates, size=(args.seqs, args.length)))

    first, second = copy_losses(model, seqs)
    print(json.dumps({"candidates": len(candidates), "uniform": round(math.log(len(candidates)), 3),
                      "first_copy": round(first, 3), "second_copy": round(second, 3)}))
    for layer in range(model.cfg.n_layer):
        for head in range(model.cfg.n_head):
            handle = silence(model, layer, head)
            first, second = copy_losses(model, seqs)
            handle.remove()
            print(json.dumps({"without": [layer, head], "first_copy": round(first, 3),
                              "second_copy": round(second, 3)}))


if __name__ == "__main__":
    main()
