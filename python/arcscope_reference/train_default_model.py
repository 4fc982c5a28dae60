"""Train arcscope's default model: a small GPT-2 (same architecture and tokenizer) on Tiny Shakespeare, on the CPU.

  PYTHONPATH=python nice -n 5 /usr/bin/python3 -m arcscope_reference.train_default_model --out build/default-model \
      [--threads 2]

The defaults are the shipped model's recipe (models/README.md).

Writes an HF-layout checkpoint (config.json + model.safetensors, Conv1D weights (in, out)) that
`arcscope convert --in DIR --out models/shakespeare-4l.q8.arcs --dtype q8` turns into the shipped file,
plus train_log.json (losses, head scores, timings) and loss.svg (the loss curve).

Data: the text is tokenized with GPT-2's BPE; the first 90% of tokens train, the last 10% are held out.
Each batch draws windows of n_ctx + 1 tokens at random offsets (seeded). A share of the windows (--repeat_share)
get a span of their own text copied further along, another share (--random_share) a run of random tokens repeated
twice, so that copying from context (what induction heads do) pays off within a short CPU run; the held-out text
is never altered. Optional head drills (--drills, see draw_drills) add short synthetic sequences that reward a
previous-token head and an induction head directly; --drill_only_steps trains on them alone first, and
--head_curriculum adds a loss on the drills' attention that tells two heads where to look (models/README.md says
why). To afford more tokens on a CPU, all but one window per batch score only the 11,265 tokens that occur in the
training text (the full 50,257-token softmax is most of a step's work).
"""
import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as nn_f

from . import bpe_tokenizer
from . import gpt2_reference as ref
from .blas import prefer_openblas
from .corpus import DEFAULT_DATA, read_text, split_tokens

IGNORE = -100  # a target that is not scored


def draw_batch(train, batch, n_ctx, repeat_share, random_share, vocab, rng):
    """-> ids, targets (batch, n_ctx). Windows of training text at random offsets; in a share of them
    (repeat_share) a span of the window's own text is copied further along, and in another share (random_share) a
    run of random tokens appears twice in a row. Both make copying from context pay: the natural copies teach it
    on Shakespeare, the random runs teach it where nothing but the context can predict the next token. The first
    copy of a random run cannot be predicted at all, so it is not scored (it would only add noise)."""
    starts = rng.integers(0, len(train) - n_ctx - 1, size=batch)
    windows = np.stack([train[s:s + n_ctx + 1] for s in starts])
    unscored = []
    for b, row in enumerate(windows):
        u = rng.random()
        if u < repeat_share:
            length = int(rng.integers(8, n_ctx // 2 + 1))
            src = int(rng.integers(0, n_ctx + 1 - 2 * length + 1))
            dst = int(rng.integers(src + length, n_ctx + 1 - length + 1))
            row[dst:dst + length] = row[src:src + length].copy()
        elif u < repeat_share + random_share:
            length = int(rng.integers(8, n_ctx // 4 + 1))
            at = int(rng.integers(0, n_ctx + 1 - 2 * length + 1))
            run = rng.choice(vocab, size=length)
            row[at:at + length] = run
            row[at + length:at + 2 * length] = run
            unscored.append((b, at, length))
    w = torch.from_numpy(windows)
    targets = w[:, 1:].clone()
    for b, at, length in unscored:  # targets[p] is token p + 1: the run's first copy is targets[at - 1 : at + length - 1]
        targets[b, max(0, at - 1):at + length - 1] = IGNORE
    return w[:, :-1], targets


def is_triple(b, triple_share):
    """Drill b is a triple: triple_share of the drills are, spread evenly (1/3: drills 0, 3, 6, ...)."""
    return math.floor(b * triple_share) != math.floor((b - 1) * triple_share)


def draw_drills(vocab, count, length, n_ctx, rng, triple_share=1 / 3):
    """-> ids, targets (count, length), first_position (count, 1). Head drills: short random sequences that
    only attention can predict, each placed at a random position of the context so that every position learns.
    A share are triples (x, y, x): at y the next token is the one just before it, a previous-token head's job.
    The rest hold a random run repeated twice: in the second copy the next token is the one that followed the
    current token last time, an induction head's job. Only those predictions are scored. On Shakespeare alone
    these heads do not form within an hour of CPU training (models/README.md lists the runs that tried).
    Also -> copy_at (count, length): in a run's second copy, the position of the answer's first copy (what an
    induction head attends to), -1 elsewhere."""
    ids = rng.choice(vocab, size=(count, length + 1))
    scored = np.zeros((count, length), dtype=bool)           # scored[b, p]: the prediction of ids[b, p + 1]
    copy_at = np.full((count, length), -1, dtype=np.int64)
    for b in range(count):
        if is_triple(b, triple_share):
            n = (length + 1) // 3
            x, y = rng.choice(vocab, size=n), rng.choice(vocab, size=n)
            ids[b, :3 * n] = np.stack([x, y, x], 1).reshape(-1)
            scored[b, 1:3 * n:3] = True
        else:
            n = int(rng.integers(4, (length + 1) // 2 + 1))
            at = int(rng.integers(0, length + 1 - 2 * n + 1))
            ids[b, at + n:at + 2 * n] = ids[b, at:at + n]
            scored[b, at + n:at + 2 * n - 1] = True             # the run's first token cannot be foreseen
            copy_at[b, at + n:at + 2 * n - 1] = np.arange(at + 1, at + n)
    w = torch.from_numpy(ids)
    targets = torch.where(torch.from_numpy(scored), w[:, 1:], torch.full_like(w[:, 1:], IGNORE))
    first = torch.from_numpy(rng.integers(0, n_ctx - length + 1, size=(count, 1)))
    return w[:, :-1], targets, first, torch.from_numpy(copy_at)


@torch.no_grad()
def eval_loss(model, val, n_ctx, max_windows):
    """Mean next-token loss over the first max_windows non-overlapping held-out windows."""
    losses = []
    for k in range(min(max_windows, (len(val) - 1) // n_ctx)):
        w = torch.from_numpy(val[k * n_ctx:k * n_ctx + n_ctx + 1]).reshape(1, -1)
        losses.append(model.loss(w[:, :-1], w[:, 1:]).item())
    return float(np.mean(losses))


@torch.no_grad()
def head_scores(model, vocab, length, seed):
    """Previous-token, first-token and induction score per head on a random sequence of `length` tokens
    (drawn from `vocab`) repeated twice -> dict of (L, H) lists. Mirrors the C++ tool in src/heads.*."""
    rng = np.random.default_rng(seed)
    seq = rng.choice(vocab, size=length)
    ids = torch.from_numpy(np.concatenate([seq, seq]))
    _, att = model(ids)                               # (L, H, 2N, 2N)
    T = 2 * length
    i = torch.arange(1, T)
    prev = att[:, :, i, i - 1].mean(-1)
    first = att[:, :, i, 0].mean(-1)
    j = torch.arange(length, T)                       # second copy; its first copy is j - N, followed by j - N + 1
    induction = att[:, :, j, j - length + 1].mean(-1)
    return {"previous_token": prev.tolist(), "first_token": first.tolist(), "induction": induction.tolist()}


def write_svg(path, log, title):
    """A small line chart of train/held-out loss against step, written by hand (no plotting library)."""
    W, H, L, R, T, B = 640, 360, 60, 20, 40, 50
    train = [(p["step"], p["train_loss"]) for p in log]
    val = [(p["step"], p["val_loss"]) for p in log if p.get("val_loss") is not None]
    xs = [s for s, _ in train] or [0, 1]
    ys = [v for _, v in train + val]
    x0, x1 = 0, max(xs)
    y0, y1 = math.floor(min(ys)), math.ceil(max(ys))
    sx = lambda s: L + (W - L - R) * (s - x0) / max(1, x1 - x0)  # noqa: E731
    sy = lambda v: T + (H - T - B) * (y1 - v) / max(1e-9, y1 - y0)  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="14">{title}</text>']
    for v in range(y0, y1 + 1):
        out.append(f'<line x1="{L}" x2="{W - R}" y1="{sy(v):.1f}" y2="{sy(v):.1f}" stroke="#ddd"/>'
                   f'<text x="{L - 6}" y="{sy(v) + 4:.1f}" text-anchor="end">{v}</text>')
    step_tick = next(t for t in (1, 2, 5, 10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10 ** 9) if x1 / t <= 8)
    for s in range(0, x1 + 1, step_tick):
        out.append(f'<text x="{sx(s):.1f}" y="{H - B + 16}" text-anchor="middle">{s}</text>')
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">step</text>')
    out.append(f'<text x="16" y="{(T + H - B) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {(T + H - B) / 2})">cross-entropy (nats/token)</text>')
    for pts, color, name, dy in [(train, "#1f77b4", "train (batch mean)", 0), (val, "#d62728", "held out", 16)]:
        if pts:
            d = " ".join(f"{sx(s):.1f},{sy(v):.1f}" for s, v in pts)
            out.append(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="1.5"/>')
            out.append(f'<line x1="{W - R - 150}" x2="{W - R - 130}" y1="{T + 10 + dy}" y2="{T + 10 + dy}" '
                       f'stroke="{color}" stroke-width="2"/><text x="{W - R - 124}" y="{T + 14 + dy}">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def sinusoidal_positions(n_ctx, n_embd, scale):
    """Vaswani et al.'s sinusoids (n_ctx, n_embd) times scale: a starting point for the learned wpe in which
    "one position back" is already a fixed linear map, so previous-token heads can form within a short run."""
    pos = torch.arange(n_ctx, dtype=torch.float64)[:, None]
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, n_embd, 2, dtype=torch.float64) / n_embd)
    pe = torch.zeros(n_ctx, n_embd, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)
    return (scale * pe).float()


def batch_loss(model, x, y, vocab, remap, full_rows):
    """lm_loss of text windows x (B, T) against targets y."""
    h, _ = model.hidden(x, need_attention=False)
    return lm_loss(model, h, y, vocab, remap, full_rows)


def lm_loss(model, h, y, vocab, remap, full_rows):
    """Mean next-token cross-entropy of hidden states h (B, T, C) over the scored targets (y != IGNORE). The LM
    head (n_embd x 50257) is most of a step's work, so all but the first `full_rows` windows score only the tokens
    that occur in the training text (`vocab`; `remap` maps a token id to its index there); the full-vocabulary
    rows are what teaches the model to keep every other token unlikely."""
    T = h.shape[1]
    h = h.reshape(-1, h.shape[-1])
    y = y.reshape(-1)
    full = torch.arange(len(y)) < full_rows * T
    w = model.wte.weight
    loss = h.new_zeros(())
    if full.any():
        loss = loss + nn_f.cross_entropy(h[full] @ w.t(), y[full], ignore_index=IGNORE, reduction="sum")
    part = ~full
    if part.any():
        yp = y[part]
        loss = loss + nn_f.cross_entropy(h[part] @ w[vocab].t(), torch.where(yp == IGNORE, yp, remap[yp.clamp(min=0)]),
                                         ignore_index=IGNORE, reduction="sum")
    return loss / (y != IGNORE).sum().clamp(min=1)


# The heads that --head_curriculum teaches: (layer, head). The induction head must sit above the previous-token
# head, whose output its keys read.
PREVIOUS_TOKEN_HEAD = (0, 0)
INDUCTION_HEAD = (1, 0)


def head_curriculum_loss(att, copy_at):
    """Cross-entropy of two heads' attention on the drills against the pattern each should learn: PREVIOUS_TOKEN_HEAD
    from every position to the one before, INDUCTION_HEAD from each token of a run's second copy to the token that
    followed its first copy. att (B, L, H, T, T), copy_at from draw_drills. Only where to look is taught; what the
    heads then copy and how later layers use it is left to the next-token loss."""
    T = att.shape[-1]
    i = torch.arange(1, T)
    prev = att[:, PREVIOUS_TOKEN_HEAD[0], PREVIOUS_TOKEN_HEAD[1], i, i - 1]
    b, q = (copy_at >= 0).nonzero(as_tuple=True)
    induction = att[b, INDUCTION_HEAD[0], INDUCTION_HEAD[1], q, copy_at[b, q]]
    eps = 1e-6  # keeps the log finite where a head has not started looking yet
    return -(torch.log(prev + eps).mean() + torch.log(induction + eps).mean())


def lr_at(step, steps, lr, warmup):
    """Linear warmup, then cosine decay to 10% of lr."""
    if step < warmup:
        return lr * (step + 1) / warmup
    p = (step - warmup) / max(1, steps - warmup)
    return lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * p)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=DEFAULT_DATA, help="text file or http(s) URL (default: Tiny Shakespeare)")
    ap.add_argument("--out", required=True, help="output directory for the HF-layout checkpoint")
    ap.add_argument("--n_layer", type=int, default=4)
    ap.add_argument("--n_head", type=int, default=4)
    ap.add_argument("--n_embd", type=int, default=128)
    ap.add_argument("--n_ctx", type=int, default=256)
    ap.add_argument("--steps", type=int, default=2100)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--weight_decay", type=float, default=0.1)
    ap.add_argument("--repeat_share", type=float, default=0.25, help="share of windows with a copied span")
    ap.add_argument("--random_share", type=float, default=0.5,
                    help="share of windows with a run of random tokens repeated twice")
    ap.add_argument("--wpe_init_scale", type=float, default=0.03,
                    help="start wpe from sinusoids times this (0: GPT-2's N(0, 0.02) like the other weights)")
    ap.add_argument("--attn_init_std", type=float, default=0.1,
                    help="std of the starting attn.c_attn weights (GPT-2: 0.02); larger starts the heads off the "
                         "flat uniform-attention point they otherwise take long to leave")
    ap.add_argument("--init_from", help="start from this HF-layout checkpoint instead of random weights")
    ap.add_argument("--add_positions", type=float, default=0.0,
                    help="with --init_from: add sinusoids times this to the loaded wpe")
    ap.add_argument("--full_vocab_rows", type=int, default=1,
                    help="windows per batch scored over all 50257 tokens; the rest over the training text's tokens")
    ap.add_argument("--drills", type=int, default=64, help="head-drill sequences per step (see draw_drills)")
    ap.add_argument("--drill_triples", type=float, default=0.0,
                    help="share of the drills that are triples; the rest are repeated runs")
    ap.add_argument("--drill_len", type=int, default=32, help="tokens per head drill")
    ap.add_argument("--drill_weight", type=float, default=0.15, help="share of the loss that the drills make up")
    ap.add_argument("--head_curriculum", type=float, default=1.0,
                    help="weight of a loss on the drills' attention that teaches one previous-token and one "
                         "induction head where to look (see head_curriculum_loss; 0: off)")
    ap.add_argument("--vocab_drills", type=int, default=0,
                    help="more run drills per step, drawn from the whole vocabulary (all but end-of-text) and "
                         "trained by the head curriculum alone (no softmax over 50,257 tokens to pay for)")
    ap.add_argument("--drill_only_steps", type=int, default=300,
                    help="the first steps train on the drills alone, so the heads form before the text arrives")
    ap.add_argument("--eval_every", type=int, default=50)
    ap.add_argument("--eval_windows", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1337)
    # One thread measured faster than two while other jobs share the 2 cores (OpenMP waits on busy cores).
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()

    prefer_openblas(args.threads)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    t_start = time.time()

    cfg = ref.GPT2Config(args.n_layer, args.n_head, args.n_embd, args.n_ctx, 50257)
    tok = bpe_tokenizer.Tokenizer()
    text = read_text(args.data)
    ids = tok.encode(text)
    train, val = split_tokens(ids)
    vocab_seen = np.unique(train)
    vocab_t = torch.from_numpy(vocab_seen)
    all_tokens = np.arange(cfg.n_vocab - 1)  # every token but end-of-text (the last), like the head scores' default
    remap = torch.full((cfg.n_vocab,), -1, dtype=torch.int64)
    remap[vocab_t] = torch.arange(len(vocab_seen))
    print(f"data: {len(text)} chars, {len(ids)} tokens ({len(train)} train, {len(val)} held out), "
          f"{len(vocab_seen)} distinct training tokens", flush=True)

    model = ref.GPT2(cfg).init_weights(args.seed)
    if args.init_from:  # continue from an earlier checkpoint of the same shape
        model = ref.load(args.init_from)
        assert model.cfg == cfg, f"{args.init_from} has {model.cfg}, expected {cfg}"
        if args.add_positions > 0:  # strengthen the position signal that the growing wte drowned out
            with torch.no_grad():
                model.wpe.weight.add_(sinusoidal_positions(cfg.n_ctx, cfg.n_embd, args.add_positions))
    elif args.wpe_init_scale > 0:  # still a learned parameter: only its starting value changes
        with torch.no_grad():
            model.wpe.weight.copy_(sinusoidal_positions(cfg.n_ctx, cfg.n_embd, args.wpe_init_scale))
    if not args.init_from and args.attn_init_std != 0.02:
        with torch.no_grad():
            for block in model.h:
                block.attn.c_attn.weight.mul_(args.attn_init_std / 0.02)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {cfg}, {n_params} parameters", flush=True)

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.95))

    log, recent = [], []
    for step in range(args.steps + 1):
        if step % args.eval_every == 0 or step == args.steps:
            model.eval()
            point = {"step": step, "train_loss": float(np.mean(recent)) if recent else None,
                     "val_loss": eval_loss(model, val, cfg.n_ctx, args.eval_windows),
                     "seconds": round(time.time() - t_start, 1)}
            scores = head_scores(model, vocab_seen, 50, seed=0)
            point["max_previous_token"] = max(max(r) for r in scores["previous_token"])
            point["max_induction"] = max(max(r) for r in scores["induction"])
            if point["train_loss"] is not None:
                log.append(point)
            print(json.dumps(point), flush=True)
            recent = []
            model.train()
        if step == args.steps:
            break
        for g in opt.param_groups:
            g["lr"] = lr_at(step, args.steps, args.lr, args.warmup)
        loss = None
        if step >= args.drill_only_steps:
            x, y = draw_batch(train, args.batch, cfg.n_ctx, args.repeat_share, args.random_share, vocab_seen, rng)
            loss = batch_loss(model, x, y, vocab_t, remap, min(args.full_vocab_rows, args.batch))
        if args.drills:
            x, y, first, copy_at = draw_drills(vocab_seen, args.drills, args.drill_len, cfg.n_ctx, rng,
                                               args.drill_triples)
            h, att = model.hidden(x, need_attention=args.head_curriculum > 0, first_position=first)
            drill = lm_loss(model, h, y, vocab_t, remap, 0)
            if args.head_curriculum > 0:
                drill = drill + args.head_curriculum * head_curriculum_loss(att, copy_at)
            # Any token the page may meet, most of which the text never trains.
            if args.vocab_drills and args.head_curriculum > 0:
                x, _, first, copy_at = draw_drills(all_tokens, args.vocab_drills, args.drill_len, cfg.n_ctx, rng,
                                                   triple_share=0.0)
                _, att = model.hidden(x, first_position=first)
                drill = drill + args.head_curriculum * head_curriculum_loss(att, copy_at)
            loss = drill if loss is None else (1 - args.drill_weight) * loss + args.drill_weight * drill
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        recent.append(loss.item())

    model.eval()
    train_seconds = time.time() - t_start
    val_ppl = ref.perplexity(model, val.tolist())
    print(f"held-out perplexity (f32, all {len(val)} held-out tokens, windows of {cfg.n_ctx}): {val_ppl:.3f}")
    print(f"wall time: {train_seconds:.0f} s", flush=True)

    os.makedirs(args.out, exist_ok=True)
    ref.save(model, args.out, {"trained_by": "arcscope_reference.train_default_model", "seed": args.seed})
    summary = {"args": {k: v for k, v in vars(args).items() if k != "out"}, "parameters": n_params,
               "tokens": {"train": len(train), "held_out": len(val), "distinct_train": len(vocab_seen)},
               "wall_seconds": round(train_seconds, 1), "held_out_perplexity_f32": val_ppl, "log": log,
               "head_scores": head_scores(model, vocab_seen, 50, seed=0)}
    with open(os.path.join(args.out, "train_log.json"), "w") as f:
        json.dump(summary, f, indent=1)
    write_svg(os.path.join(args.out, "loss.svg"), log,
              f"{cfg.n_layer} layers, {cfg.n_head} heads, n_embd {cfg.n_embd}, n_ctx {cfg.n_ctx} on Tiny Shakespeare")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
