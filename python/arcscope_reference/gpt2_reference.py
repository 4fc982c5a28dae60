"""A readable PyTorch GPT-2, written independently of the C++ engine, to check it against.

Parameter names are exactly Hugging Face's (no `transformer.` prefix): wte.weight, wpe.weight,
h.{i}.ln_1.*, h.{i}.attn.c_attn.*, h.{i}.attn.c_proj.*, h.{i}.ln_2.*, h.{i}.mlp.c_fc.*, h.{i}.mlp.c_proj.*, ln_f.*.
Linear layers are GPT-2's Conv1D: weight stored (in_features, out_features), y = x @ W + b.
Pre-LayerNorm blocks, tanh GELU, learned positions, LM head tied to wte.

Shapes stay symbolic (the causal mask is precomputed and sliced, reshapes use -1) so torch.onnx.export works.

Usage as a tool, from the repository's root:
  export PYTHONPATH=python
  /usr/bin/python3 -m arcscope_reference.gpt2_reference forward --model DIR --ids 464,2068 [--out out.npz]
  /usr/bin/python3 -m arcscope_reference.gpt2_reference random --out DIR [--n_layer 2 --n_head 2 --n_embd 64 ...]
  /usr/bin/python3 -m arcscope_reference.gpt2_reference perplexity --model DIR --text-file PATH [--held-out]
      [--skip K] [--tokens N]     (the same passage and windows as `arcscope perplexity`)
"""
import argparse
import json
import math
import os
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn

from . import safetensors_io


@dataclass
class GPT2Config:
    n_layer: int = 12     # transformer blocks
    n_head: int = 12      # attention heads per block
    n_embd: int = 768     # channels C
    n_ctx: int = 1024     # positions (HF: n_positions)
    n_vocab: int = 50257  # tokens (HF: vocab_size)
    eps: float = 1e-5     # LayerNorm epsilon (HF: layer_norm_epsilon)

    @staticmethod
    def from_hf(cfg):
        return GPT2Config(
            n_layer=int(cfg["n_layer"]), n_head=int(cfg["n_head"]), n_embd=int(cfg["n_embd"]),
            n_ctx=int(cfg.get("n_positions", cfg.get("n_ctx", 1024))),
            n_vocab=int(cfg["vocab_size"]), eps=float(cfg.get("layer_norm_epsilon", 1e-5)))

    def to_hf(self):
        return {
            "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2",
            "n_layer": self.n_layer, "n_head": self.n_head, "n_embd": self.n_embd,
            "n_positions": self.n_ctx, "n_ctx": self.n_ctx, "vocab_size": self.n_vocab,
            "layer_norm_epsilon": self.eps, "activation_function": "gelu_new",
            "bos_token_id": 50256, "eos_token_id": 50256, "tie_word_embeddings": True,
        }


def gelu_tanh(x):
    """GPT-2's GELU ("gelu_new"): the tanh approximation."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))


class Conv1D(nn.Module):
    """GPT-2's linear layer: weight (in, out). x (..., in) -> (..., out)."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_head = cfg.n_head
        self.head_dim = cfg.n_embd // cfg.n_head
        self.c_attn = Conv1D(cfg.n_embd, 3 * cfg.n_embd)
        self.c_proj = Conv1D(cfg.n_embd, cfg.n_embd)
        # Precomputed causal mask, sliced per call: keeps T symbolic for ONNX export; not saved.
        mask = torch.tril(torch.ones(cfg.n_ctx, cfg.n_ctx, dtype=torch.bool))
        self.register_buffer("mask", mask.view(1, 1, cfg.n_ctx, cfg.n_ctx), persistent=False)

    def forward(self, x):
        # x (B, T, C) -> out (B, T, C), att (B, H, T, T)
        B, T, C = x.shape
        qkv = self.c_attn(x)                                   # (B, T, 3C)
        q, k, v = qkv.split(C, dim=2)                          # 3 x (B, T, C)
        q = q.reshape(B, -1, self.n_head, self.head_dim).transpose(1, 2)  # (B, H, T, hd)
        k = k.reshape(B, -1, self.n_head, self.head_dim).transpose(1, 2)
        v = v.reshape(B, -1, self.n_head, self.head_dim).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)     # (B, H, T, T)
        scores = scores.masked_fill(~self.mask[:, :, :T, :T], float("-inf"))
        att = torch.softmax(scores, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, -1, C)        # (B, T, C)
        return self.c_proj(y), att


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_fc = Conv1D(cfg.n_embd, 4 * cfg.n_embd)
        self.c_proj = Conv1D(4 * cfg.n_embd, cfg.n_embd)

    def forward(self, x):
        # x (B, T, C) -> (B, T, 4C) -> (B, T, C)
        return self.c_proj(gelu_tanh(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.n_embd, eps=cfg.eps)
        self.attn = Attention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.n_embd, eps=cfg.eps)
        self.mlp = MLP(cfg)

    def forward(self, x):
        a, att = self.attn(self.ln_1(x))
        x = x + a
        x = x + self.mlp(self.ln_2(x))
        return x, att


class GPT2(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.wte = nn.Embedding(cfg.n_vocab, cfg.n_embd)
        self.wpe = nn.Embedding(cfg.n_ctx, cfg.n_embd)
        self.h = nn.ModuleList([Block(cfg) for _ in range(cfg.n_layer)])
        self.ln_f = nn.LayerNorm(cfg.n_embd, eps=cfg.eps)
        self.register_buffer("positions", torch.arange(cfg.n_ctx), persistent=False)

    def init_weights(self, seed, noisy=False):
        """GPT-2's initialization: N(0, 0.02), residual projections scaled by 1/sqrt(2 * n_layer).
        noisy=True also randomizes biases and LayerNorm gains (test checkpoints that exercise every tensor)."""
        g = torch.Generator().manual_seed(seed)
        for name, p in self.named_parameters():
            is_gain = name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight"
            if noisy and (is_gain or name.endswith(".bias")):
                with torch.no_grad():
                    p.copy_((1.0 if is_gain else 0.0) + 0.1 * torch.randn(p.shape, generator=g))
            elif is_gain:
                nn.init.ones_(p)
            elif name.endswith(".bias"):
                nn.init.zeros_(p)
            else:
                std = 0.02 / math.sqrt(2 * self.cfg.n_layer) if name.endswith("c_proj.weight") else 0.02
                with torch.no_grad():
                    p.copy_(torch.randn(p.shape, generator=g) * std)
        return self

    def hidden(self, ids, need_attention=True, first_position=None):
        # ids (B, T) -> x (B, T, C) after ln_f, att (B, L, H, T, T) or None.
        # first_position (B, 1): training can place a short sequence anywhere in the context (default 0).
        T = ids.shape[1]
        positions = self.positions[:T] if first_position is None else first_position + self.positions[:T]
        x = self.wte(ids) + self.wpe(positions)
        atts = []
        for block in self.h:
            x, att = block(x)
            if need_attention:
                atts.append(att)
        x = self.ln_f(x)
        return x, (torch.stack(atts, dim=1) if need_attention else None)

    def forward(self, ids):
        """ids (T,) -> logits (T, V), attention (L, H, T, T); ids (B, T) -> (B, T, V), (B, L, H, T, T)."""
        single = ids.dim() == 1
        if single:
            ids = ids.reshape(1, -1)
        x, att = self.hidden(ids)
        logits = x @ self.wte.weight.t()  # tied LM head
        if single:
            return logits[0], att[0]
        return logits, att

    def loss(self, ids, targets):
        """Mean next-token cross-entropy; ids, targets (B, T)."""
        x, _ = self.hidden(ids, need_attention=False)
        logits = x @ self.wte.weight.t()
        return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


# ---------------------------------------------------------------- HF-layout checkpoints

def _skip(name):
    # HF checkpoints also carry causal-mask buffers; they are not parameters.
    return name.endswith(".attn.bias") or name.endswith(".attn.masked_bias") or name == "lm_head.weight"


def load(model_dir):
    """Load an HF-layout GPT-2 directory (config.json + model.safetensors) into GPT2, in eval mode."""
    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = GPT2Config.from_hf(json.load(f))
    tensors, _ = safetensors_io.load(os.path.join(model_dir, "model.safetensors"))
    model = GPT2(cfg)
    own = model.state_dict()
    state = {}
    for name, arr in tensors.items():
        key = name[len("transformer."):] if name.startswith("transformer.") else name
        if _skip(key):
            continue
        if key not in own:
            raise ValueError(f"{model_dir}: unexpected tensor {name}")
        if list(arr.shape) != list(own[key].shape):
            raise ValueError(f"{model_dir}: tensor {name}: expected {list(own[key].shape)}, got {list(arr.shape)}")
        state[key] = torch.from_numpy(np.array(arr, dtype=np.float32))
    missing = sorted(set(own) - set(state))
    if missing:
        raise ValueError(f"{model_dir}: missing tensors {missing[:5]}")
    model.load_state_dict(state)
    return model.eval()


@torch.no_grad()
def forward_by_layer(model_dir, ids):
    """load(model_dir)(ids) with one block's weights in memory at a time, read from the file through mmap: GPT-2 XL's
    6.4 GB of float32 runs in about 1 GB. The same modules as GPT2 (Block, LayerNorm, the tied head), so the same
    numbers. ids (T,) -> logits (T, V), attention (L, H, T, T)."""
    import mmap
    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = GPT2Config.from_hf(json.load(f))
    path = os.path.join(model_dir, "model.safetensors")
    with open(path, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    tensors = {(name[len("transformer."):] if name.startswith("transformer.") else name): arr
               for name, arr in safetensors_io.loads(mapped, source=path)[0].items()}

    def part(prefix, module):
        """module's parameters from the tensors named prefix + its own names, copied out of the mapping, whose pages
        are then let go (they would otherwise stay in this process's memory, all 6.4 GB of them by the end)."""
        state = {k: torch.from_numpy(np.array(tensors[prefix + k], dtype=np.float32)) for k in module.state_dict()}
        mapped.madvise(mmap.MADV_DONTNEED)
        module.load_state_dict(state)
        return module.eval()

    ids = torch.as_tensor(ids, dtype=torch.long)
    wte = torch.from_numpy(np.array(tensors["wte.weight"], dtype=np.float32))
    wpe = torch.from_numpy(np.array(tensors["wpe.weight"][:len(ids)], dtype=np.float32))
    mapped.madvise(mmap.MADV_DONTNEED)
    x = (wte[ids] + wpe).reshape(1, len(ids), cfg.n_embd)
    atts = []
    for i in range(cfg.n_layer):
        x, att = part(f"h.{i}.", Block(cfg))(x)
        atts.append(att[0])
    x = part("ln_f.", nn.LayerNorm(cfg.n_embd, eps=cfg.eps))(x)
    return x[0] @ wte.t(), torch.stack(atts)


def save(model, model_dir, metadata=None):
    """Write model as an HF-layout directory: config.json + model.safetensors (F32, Conv1D (in, out))."""
    os.makedirs(model_dir, exist_ok=True)
    with open(os.path.join(model_dir, "config.json"), "w") as f:
        json.dump(model.cfg.to_hf(), f, indent=2)
        f.write("\n")
    tensors = {k: v.float() for k, v in model.state_dict().items()}
    safetensors_io.save(os.path.join(model_dir, "model.safetensors"), tensors, {"format": "pt", **(metadata or {})})


@torch.no_grad()
def perplexity(model, ids, stride=None):
    """Perplexity of token list ids, scored in non-overlapping windows of n_ctx (each window's first token unscored)."""
    n_ctx = model.cfg.n_ctx
    stride = stride or n_ctx
    total, count = 0.0, 0
    for start in range(0, len(ids) - 1, stride):
        window = torch.tensor(ids[start:start + n_ctx + 1], dtype=torch.long)
        if len(window) < 2:
            break
        logits, _ = model(window[:-1])
        logp = torch.log_softmax(logits.double(), dim=-1)
        total -= logp[torch.arange(len(window) - 1), window[1:]].sum().item()
        count += len(window) - 1
    return math.exp(total / count)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("forward", help="logits + attention for ids, printed or saved to .npz")
    f.add_argument("--model", required=True)
    f.add_argument("--ids", required=True, help="comma-separated token ids")
    f.add_argument("--out", help=".npz with logits (T, V) and attention (L, H, T, T)")
    r = sub.add_parser("random", help="write a randomly initialized HF-layout checkpoint")
    r.add_argument("--out", required=True)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--noisy", action="store_true", help="also randomize biases and LayerNorm gains")
    for k, v in [("n_layer", 2), ("n_head", 2), ("n_embd", 64), ("n_ctx", 64), ("n_vocab", 50257)]:
        r.add_argument("--" + k, type=int, default=v)
    p = sub.add_parser("perplexity", help="windowed perplexity of a text file's tokens")
    p.add_argument("--model", required=True)
    p.add_argument("--text-file", required=True)
    p.add_argument("--held-out", action="store_true", help="only the last 10%% of the tokens")
    p.add_argument("--skip", type=int, default=0)
    p.add_argument("--tokens", type=int, default=0, help="0: all")
    args = ap.parse_args(argv)
    if args.cmd == "perplexity":
        from . import bpe_tokenizer
        torch.set_num_threads(1)
        with open(args.text_file, encoding="utf-8") as f:
            ids = bpe_tokenizer.Tokenizer().encode(f.read())
        if args.held_out:
            ids = ids[len(ids) * 9 // 10:]
        ids = ids[args.skip:args.skip + args.tokens] if args.tokens else ids[args.skip:]
        ppl = perplexity(load(args.model), ids)
        print(json.dumps({"tokens": len(ids), "predicted": len(ids) - 1, "nll": math.log(ppl), "perplexity": ppl}))
    elif args.cmd == "random":
        cfg = GPT2Config(args.n_layer, args.n_head, args.n_embd, args.n_ctx, args.n_vocab)
        torch.manual_seed(args.seed)
        save(GPT2(cfg).init_weights(args.seed, args.noisy), args.out)
        print(f"wrote {args.out}")
    else:
        model = load(args.model)
        ids = torch.tensor([int(s) for s in args.ids.split(",")], dtype=torch.long)
        with torch.no_grad():
            logits, att = model(ids)
        if args.out:
            np.savez(args.out, logits=logits.numpy(), attention=att.numpy())
        print(json.dumps({"T": len(ids), "argmax": logits.argmax(-1).tolist(),
                          "logits_last_head": logits[-1, :5].tolist()}))


if __name__ == "__main__":
    main()
