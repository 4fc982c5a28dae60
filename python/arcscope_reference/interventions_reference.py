"""Interventions on GPT-2 in PyTorch, TransformerLens-style, built on hooked_reference.py's hooks: head and MLP
ablation, activation patching, ablation sweeps, the logit lens and direct logit attribution. The independent reference
for the engine's interventions (`arcscope patch`, `ablate`, `lens` and `attribute`; include/arcscope/analysis/
interventions.h); nothing here reads the engine's code.

    logit_diff(logits, answer_id, wrong_id)              logits[-1, answer] - logits[-1, wrong], the metric below
    ablate_heads(model, ids, [(1, 0)], kind="mean")      logits with blocks.1.attn.hook_z head 0 replaced by its mean
    ablate_mlp(model, ids, 2)                            logits with blocks.2.hook_mlp_out zeroed
    patching_sweep(model, clean, corrupted, a, w)        {clean, corrupted, heads [L][H], resid [L][T]}, normalized
    ablation_sweep(model, ids, a, w, kind="zero")        {baseline, heads [L][H]}: the metric with each head ablated
    logit_lens(model, ids, k=5, target_id=None)          {top [L][T][k] of {id, prob}, target [L][T] or None}
    direct_logit_attribution(model, ids, token, pos)     {logit, parts {name: value}}: parts sum to the logit

model is gpt2_reference.py's GPT2; ids a sequence of token ids (no batch dimension, as arcscope has none).
Heads are given as (layer, head) pairs. Bad input (a head, layer, position or token out of range, prompts of unequal
length, an unknown ablation) raises ValueError naming the problem.
"""
import math

import torch

from . import hooked_reference

KINDS = ("zero", "mean")


# ---------------------------------------------------------------- checks

def _dims(model):
    cfg = model.cfg
    return cfg.n_layer, cfg.n_head, cfg.n_embd // cfg.n_head


def _check_ids(model, ids, what="ids"):
    ids = [int(i) for i in ids]
    if not ids:
        raise ValueError(f"{what}: no tokens")
    if len(ids) > model.cfg.n_ctx:
        raise ValueError(f"{what}: {len(ids)} tokens, the model's context holds {model.cfg.n_ctx}")
    for i in ids:
        if not 0 <= i < model.cfg.n_vocab:
            raise ValueError(f"{what}: token id {i} is outside the vocabulary (0..{model.cfg.n_vocab - 1})")
    return ids


def _check_token(model, token_id, what):
    if not 0 <= int(token_id) < model.cfg.n_vocab:
        raise ValueError(f"{what} {token_id} is outside the vocabulary (0..{model.cfg.n_vocab - 1})")
    return int(token_id)


def _check_layer(model, layer):
    if not 0 <= int(layer) < model.cfg.n_layer:
        raise ValueError(f"layer {layer} is out of range (the model has {model.cfg.n_layer} layers)")
    return int(layer)


def _check_heads(model, heads, layer=None):
    """heads: (layer, head) pairs, or head numbers when layer is given -> {layer: [heads]}."""
    L, H, _ = _dims(model)
    by_layer = {}
    for item in heads:
        if layer is not None and not isinstance(item, (tuple, list)):
            l, h = layer, item
        else:
            l, h = item
        l, h = _check_layer(model, l), int(h)
        if not 0 <= h < H:
            raise ValueError(f"head {h} of layer {l} is out of range (the model has {H} heads per layer)")
        by_layer.setdefault(l, [])
        if h not in by_layer[l]:
            by_layer[l].append(h)
    return by_layer


def _position(T, position):
    p = int(position)
    if not -T <= p < T:
        raise ValueError(f"position {position} is out of range for {T} tokens")
    return p % T


# ---------------------------------------------------------------- the metric

def logit_diff(logits, answer_id, wrong_id):
    """The logit of answer_id minus that of wrong_id at the last position (logits (T, V))."""
    return float(logits[-1, answer_id] - logits[-1, wrong_id])


class _Final(Exception):
    def __init__(self, normalized):
        super().__init__("ln_final reached")
        self.normalized = normalized


@torch.no_grad()
def metric(model, ids, answer_id, wrong_id, hooks=None):
    """logit_diff(run(model, ids, hooks)[0], answer_id, wrong_id) without the (T, V) unembedding (about a third of
    GPT-2 small's pass at T = 16 on this CPU): the pass stops at ln_final.hook_normalized (hooked_reference.run has no stop_at) and only
    the last position's two logits are made."""
    hooks = dict(hooks or {})
    inner = hooks.get("ln_final.hook_normalized")

    def stop(value):
        if inner is not None:
            edited = inner(value.clone())
            value = value if edited is None else edited
        raise _Final(value)
    hooks["ln_final.hook_normalized"] = stop
    try:
        hooked_reference.run(model, ids, hooks)
    except _Final as reached:
        final = reached.normalized[-1] * model.ln_f.weight + model.ln_f.bias
    else:  # pragma: no cover - run always reaches ln_final
        raise AssertionError("the pass did not reach ln_final.hook_normalized")
    return float(final @ model.wte.weight[answer_id] - final @ model.wte.weight[wrong_id])


# ---------------------------------------------------------------- ablation

def _ablation_hooks(model, by_layer, kind):
    if kind not in KINDS:
        raise ValueError(f"ablation {kind!r}: expected one of {', '.join(KINDS)}")
    hooks = {}
    for l, heads in by_layer.items():
        def edit(z, heads=tuple(heads)):  # z (T, H, d_head)
            for h in heads:
                # mean: over this run's positions, of the z arriving here (earlier layers' edits already applied)
                z[:, h] = 0 if kind == "zero" else z[:, h].mean(dim=0, keepdim=True)
            return z
        hooks[f"blocks.{l}.attn.hook_z"] = edit
    return hooks


def ablation_hooks(model, heads, kind="zero", layer=None):
    """The hooks dict ablate_heads runs with (for hooked_reference.run): heads as for ablate_heads."""
    return _ablation_hooks(model, _check_heads(model, heads, layer), kind)


def ablate_heads(model, ids, heads, kind="zero", layer=None):
    """Logits (T, V) with the given heads' blocks.{l}.attn.hook_z replaced at every position: by 0 (kind 'zero'), or
    by that head's mean over the positions of the same run (kind 'mean'). heads: (layer, head) pairs, or head numbers
    of one layer given as layer=."""
    ids = _check_ids(model, ids)
    hooks = ablation_hooks(model, heads, kind, layer)
    return hooked_reference.run(model, ids, hooks)[0]


def ablate_mlp(model, ids, layer):
    """Logits (T, V) with blocks.{layer}.hook_mlp_out zeroed at every position."""
    ids = _check_ids(model, ids)
    layer = _check_layer(model, layer)
    return hooked_reference.run(model, ids, {f"blocks.{layer}.hook_mlp_out": torch.zeros_like})[0]


def ablation_sweep(model, ids, answer_id, wrong_id, kind="zero", heads=None):
    """{"baseline": the metric, "heads": [L][H] the metric with that one head ablated (kind 'zero' or 'mean')}.
    heads: only these (layer, head) cells (the others are None); default all."""
    ids = _check_ids(model, ids)
    answer_id, wrong_id = _check_token(model, answer_id, "answer id"), _check_token(model, wrong_id, "wrong id")
    if kind not in KINDS:
        raise ValueError(f"ablation {kind!r}: expected one of {', '.join(KINDS)}")
    L, H, _ = _dims(model)
    cells = [(l, h) for l in range(L) for h in range(H)] if heads is None else \
        [(l, h) for l, hs in _check_heads(model, heads).items() for h in hs]
    grid = [[None] * H for _ in range(L)]
    for l, h in cells:
        grid[l][h] = metric(model, ids, answer_id, wrong_id, ablation_hooks(model, [(l, h)], kind))
    return {"baseline": metric(model, ids, answer_id, wrong_id), "heads": grid}


# ---------------------------------------------------------------- activation patching

def patch_hooks(clean_cache, name, head=None, position=None):
    """A hooks dict replacing activation `name` by clean_cache[name]: only head `head` (hook_z, all positions), or
    only position `position` (first axis), or all of it."""
    clean = clean_cache[name]

    def edit(value):
        if head is not None:
            value[:, head] = clean[:, head]
        elif position is not None:
            value[position] = clean[position]
        else:
            value = clean.clone()
        return value
    return {name: edit}


def _normalized(m, clean, corrupted):
    return (m - corrupted) / (clean - corrupted) if clean != corrupted else float("nan")


def patching_sweep(model, clean_ids, corrupted_ids, answer_id, wrong_id, cells=None, normalize=True):
    """Activation patching from a clean into a corrupted run, the metric being logit_diff at the last position.

    heads[l][h]: the corrupted run with blocks.{l}.attn.hook_z head h (every position) taken from the clean run;
    resid[l][p]: the corrupted run with blocks.{l}.hook_resid_pre at position p taken from the clean run.
    Each is normalized, (m - m_corrupted) / (m_clean - m_corrupted): 1 recovers the clean metric, 0 changes nothing
    (NaN when m_clean == m_corrupted); normalize=False gives the metrics m themselves.
    cells {"heads": [(l, h)], "resid": [(l, p)]}: only those cells are computed (the others are None); default all.
    Returns {"clean": m_clean, "corrupted": m_corrupted, "heads": [L][H], "resid": [L][T]}."""
    clean_ids = _check_ids(model, clean_ids, "clean ids")
    corrupted_ids = _check_ids(model, corrupted_ids, "corrupted ids")
    if len(clean_ids) != len(corrupted_ids):
        raise ValueError(f"the clean prompt has {len(clean_ids)} tokens and the corrupted one {len(corrupted_ids)}: "
                         "patching needs prompts of the same length")
    answer_id, wrong_id = _check_token(model, answer_id, "answer id"), _check_token(model, wrong_id, "wrong id")
    L, H, _ = _dims(model)
    T = len(clean_ids)
    if cells is None:
        head_cells = [(l, h) for l in range(L) for h in range(H)]
        resid_cells = [(l, p) for l in range(L) for p in range(T)]
    else:
        head_cells = [(l, h) for l, hs in _check_heads(model, cells.get("heads", ())).items() for h in hs]
        resid_cells = [(_check_layer(model, l), _position(T, p)) for l, p in cells.get("resid", ())]

    clean_logits, clean_cache = hooked_reference.run(model, clean_ids)
    m_clean = logit_diff(clean_logits, answer_id, wrong_id)
    m_corrupted = metric(model, corrupted_ids, answer_id, wrong_id)

    def score(hooks):
        m = metric(model, corrupted_ids, answer_id, wrong_id, hooks)
        return _normalized(m, m_clean, m_corrupted) if normalize else m

    heads = [[None] * H for _ in range(L)]
    for l, h in head_cells:
        heads[l][h] = score(patch_hooks(clean_cache, f"blocks.{l}.attn.hook_z", head=h))
    resid = [[None] * T for _ in range(L)]
    for l, p in resid_cells:
        resid[l][p] = score(patch_hooks(clean_cache, f"blocks.{l}.hook_resid_pre", position=p))
    return {"clean": m_clean, "corrupted": m_corrupted, "heads": heads, "resid": resid}


# ---------------------------------------------------------------- logit lens

def _unembed_normalized(model, x):
    """x (T, C) residual -> logits (T, V) through ln_final with x's own statistics, as the model's last step."""
    normalized = hooked_reference._layer_norm_parts(x, model.cfg.eps)
    return (normalized * model.ln_f.weight + model.ln_f.bias) @ model.wte.weight.t()


@torch.no_grad()
def lens_probs(model, ids):
    """(L, T, V): softmax of each layer's blocks.{l}.hook_resid_post through ln_final and the unembedding."""
    ids = _check_ids(model, ids)
    _, cache = hooked_reference.run(model, ids)
    return torch.stack([torch.softmax(_unembed_normalized(model, cache[f"blocks.{l}.hook_resid_post"]), dim=-1)
                        for l in range(model.cfg.n_layer)])


def logit_lens(model, ids, k=5, target_id=None, probs=None):
    """The logit lens: layer l's residual stream after its block (blocks.{l}.hook_resid_post) through ln_final (its
    own mean and scale, ln_f's weight and bias) and the unembedding, as if the model ended there.
    {"top": [L][T][k] of {"id", "prob"} (most probable first), "target": [L][T] target_id's prob, or None}.
    The last layer's is the model's own output distribution. probs: lens_probs(model, ids) if already computed."""
    k = int(k)
    if not 1 <= k <= model.cfg.n_vocab:
        raise ValueError(f"k {k} is out of range (1..{model.cfg.n_vocab})")
    if target_id is not None:
        target_id = _check_token(model, target_id, "target id")
    probs = lens_probs(model, ids) if probs is None else probs  # (L, T, V)
    values, indices = torch.topk(probs, k, dim=-1)
    top = [[[{"id": int(i), "prob": float(p)} for i, p in zip(indices[l, t], values[l, t])]
            for t in range(probs.shape[1])] for l in range(probs.shape[0])]
    target = None if target_id is None else probs[:, :, target_id].tolist()
    return {"top": top, "target": target}


# ---------------------------------------------------------------- direct logit attribution

@torch.no_grad()
def direct_logit_attribution(model, ids, token_id, position=-1):
    """Each component's direct contribution to token_id's logit at `position`, as TransformerLens's
    apply_ln_to_stack + logit attribution: every component c of the final residual x (sum of all of them) is
    centred (c - mean over C) and divided by ln_final's scale of the clean run, sqrt(var(x) + eps), then multiplied
    by ln_f.weight and dotted with W_U[token] (the tied wte row).
    parts: "embed" (wte[id] + wpe[pos]), "blocks.{l}.attn.head.{h}" (z_h @ W_O^h, the head's rows of c_proj),
    "blocks.{l}.attn.bias" (c_proj.bias), "blocks.{l}.mlp" (hook_mlp_out), "ln_final.bias" (ln_f.bias . W_U[token]).
    They sum to "logit", the model's logit (checked by the tests to float32 rounding).
    Returns {"logit": float, "parts": {name: float}}."""
    ids = _check_ids(model, ids)
    token_id = _check_token(model, token_id, "token id")
    L, H, d = _dims(model)
    T = len(ids)
    p = _position(T, position)
    logits, cache = hooked_reference.run(model, ids)

    x = cache[f"blocks.{L - 1}.hook_resid_post"][p].double()
    scale = torch.sqrt(((x - x.mean()) ** 2).mean() + model.cfg.eps)
    direction = model.ln_f.weight.double() * model.wte.weight[token_id].double()  # (C,)

    def through_ln(c):
        c = c.double()
        return float((c - c.mean()) / scale @ direction)

    parts = {"embed": through_ln(model.wte.weight[ids[p]] + model.wpe.weight[p])}
    for l, block in enumerate(model.h):
        z = cache[f"blocks.{l}.attn.hook_z"][p]  # (H, d)
        w_o = block.attn.c_proj.weight  # (C, C): rows h*d .. (h+1)*d read head h
        for h in range(H):
            parts[f"blocks.{l}.attn.head.{h}"] = through_ln(z[h] @ w_o[h * d:(h + 1) * d])
        parts[f"blocks.{l}.attn.bias"] = through_ln(block.attn.c_proj.bias)
        parts[f"blocks.{l}.mlp"] = through_ln(cache[f"blocks.{l}.hook_mlp_out"][p])
    parts["ln_final.bias"] = float(model.ln_f.bias.double() @ model.wte.weight[token_id].double())
    return {"logit": float(logits[p, token_id]), "parts": parts}


def residual_of_attribution(attribution):
    """logit - sum(parts): how far the parts miss the logit (float32 rounding in a correct attribution)."""
    return attribution["logit"] - math.fsum(attribution["parts"].values())
