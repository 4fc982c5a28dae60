"""The GPT-2 family against the PyTorch reference: random checkpoints of each size's shape in the exact Hugging Face
layout (scripts/make_checkpoint.py, deterministic seeds), the engine's results on them (native: `arcscope run`; wasm:
tests/reference/wasm_pass.mjs in Node, which converts the checkpoint with engine.convertCheckpoint), the reference's,
and their largest differences. test_gpt2_family.py runs them.

Checkpoints are made once under build/test-models/gpt2-family/ and again only when the generator or its arguments
change; the .arcs files are converted again when the CLI is newer (support.convert)."""
import json
import os
import shutil
import subprocess

import numpy as np
import torch

from support import CLI, ROOT, convert, hook_kind, make_checkpoint, read_cache, sh
from arcscope_reference import gpt2_reference as ref
from arcscope_reference import hooked_reference

# Hugging Face's config numbers for each model; all share n_positions 1024 and the 50257-token vocabulary.
FAMILY = {
    "distilgpt2": dict(n_layer=6, n_head=12, n_embd=768),
    "gpt2": dict(n_layer=12, n_head=12, n_embd=768),
    "gpt2-medium": dict(n_layer=24, n_head=16, n_embd=1024),
    "gpt2-large": dict(n_layer=36, n_head=20, n_embd=1280),
    "gpt2-xl": dict(n_layer=48, n_head=25, n_embd=1600),
}
N_CTX, VOCAB = 1024, 50257
WORK = os.path.join(ROOT, "build", "test-models", "gpt2-family")
GENERATOR = os.path.join(ROOT, "scripts", "make_checkpoint.py")
NODE = shutil.which("node")
WASM_PASS = os.path.join(ROOT, "tests", "reference", "wasm_pass.mjs")
STAGED = os.path.join(ROOT, "build", "lib", "wasm", "arcscope_core.wasm")


def checkpoint(name, seed, qk_scale, n_layer=None, folder=None):
    """The folder (config.json, model.safetensors) of a random checkpoint of name's shape, n_layer blocks (default:
    the model's own), attention scores of standard deviation qk_scale. Made only if missing or stale: its arguments
    are kept beside it, written last, so an interrupted run makes it again."""
    shape = dict(FAMILY[name], n_ctx=N_CTX, vocab=VOCAB)
    if n_layer:
        shape["n_layer"] = n_layer
    folder = folder or os.path.join(WORK, f"{name}-{shape['n_layer']}l-qk{qk_scale:g}")
    made_with = os.path.join(folder, "made-with.json")
    args = dict(shape, seed=seed, qk_scale=qk_scale)
    if os.path.exists(made_with) and os.path.getmtime(made_with) > os.path.getmtime(GENERATOR):
        with open(made_with) as f:
            if json.load(f) == args:
                return folder
    make_checkpoint(folder, seed, shape, "--qk-scale", qk_scale)
    with open(made_with, "w") as f:
        json.dump(args, f)
    return folder


def full_xl():
    """The whole gpt2-xl (48 blocks, 6.4 GB) the opt-in checks use: build/family/gpt2-xl when it is there (seed 0,
    the generator's default scores, as the benchmark makes it), else one made the same way under build/family-ref/."""
    made = os.path.join(ROOT, "build", "family", "gpt2-xl")
    if os.path.exists(os.path.join(made, "model.safetensors")):
        return made
    return checkpoint("gpt2-xl", 0, 1, folder=os.path.join(ROOT, "build", "family-ref", "gpt2-xl"))


def token_ids(T, seed):
    return np.random.default_rng(seed).integers(0, VOCAB, T).tolist()


class Pass:
    """One engine's (or the reference's) results: logits (T, V) and attention (L, H, T, T) of forward, and the hooks
    {name: array} of runWithCache / `run --hooks all`."""

    def __init__(self, logits, attention, hooks):
        self.logits, self.attention, self.hooks = logits, attention, hooks


def reference_pass(ckpt, ids, model=None):
    """The PyTorch GPT-2 (gpt2_reference) for logits and attention, the hooked reference for the hooks."""
    model = model or ref.load(ckpt)
    with torch.no_grad():
        logits, attention = model(torch.tensor(ids, dtype=torch.long))
    _, cache = hooked_reference.run(model, ids)
    return Pass(logits.numpy(), attention.numpy(), {n: v.numpy() for n, v in cache.items()})


def native_file(ckpt, dtype):
    """The checkpoint as an .arcs file of dtype, by `arcscope convert` (again only when stale)."""
    return convert(ckpt, os.path.join(ckpt, f"model.{dtype}.arcs"), dtype)


def native_pass(arcs, ids):
    """`arcscope run --hooks all` on ids."""
    out = arcs + ".run"
    os.makedirs(out, exist_ok=True)
    sh(CLI, "run", "--model", arcs, "--ids", ",".join(map(str, ids)), "--hooks", "all", "--cache-out", out,
       "--logits-bin", os.path.join(out, "logits.f32"), "--out", os.path.join(out, "run.json"))
    with open(os.path.join(out, "run.json")) as f:
        attention = np.asarray(json.load(f)["attention"], dtype=np.float32)
    logits = np.fromfile(os.path.join(out, "logits.f32"), dtype="<f4").reshape(len(ids), -1)
    return Pass(logits, attention, read_cache(out))


def start_wasm_pass(ids, out, ckpt=None, dtypes=("q8",), arcs=(), hooks=True, timed=False):
    """wasm_pass.mjs in the background (the caller computes the reference meanwhile): the checkpoint converted in
    wasm to each of dtypes, or the .arcs files arcs loaded. timed: under /usr/bin/time, which prints its peak RSS."""
    cmd = [NODE, WASM_PASS, "--ids", ",".join(map(str, ids)), "--out", out, "--hooks", "all" if hooks else "none"]
    cmd += ["--ckpt", ckpt, "--dtypes", ",".join(dtypes)] if ckpt else ["--arcs", ",".join(arcs)]
    if timed:
        cmd = ["/usr/bin/time", "-f", "node: %e s, peak RSS %M KB"] + cmd
    return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_wasm_pass(proc):
    """Waits for start_wasm_pass's process; returns what it printed, raises if it failed."""
    stdout, stderr = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"wasm_pass.mjs failed ({proc.returncode}):\n{stdout}\n{stderr}")
    return (stdout + stderr).strip()


def wasm_result(out, dtype):
    """What wasm_pass.mjs wrote for the model of dtype."""
    folder = os.path.join(out, dtype)
    with open(os.path.join(folder, "cache.json")) as f:
        index = json.load(f)
    floats = lambda name: np.fromfile(os.path.join(folder, name + ".f32"), dtype="<f4")  # noqa: E731
    return Pass(floats("logits").reshape(index["logits"]), floats("attention").reshape(index["attention"]),
                read_cache(folder))


def one_minus_cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return 1 - float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def differences(mine, theirs):
    """The largest differences between two passes, by quantity:
      logits: largest |difference|, that relative to the largest logit, and the worst position's 1 - cosine;
      attention: largest |difference| of forward's attention;
      hooks: per kind of hook (attn.hook_z, ...), the largest |difference| relative to the name's largest value (at
      least 1), and the largest 1 - cosine of a name; with the names themselves, which must be the reference's."""
    a, b = mine.logits.astype(np.float64), theirs.logits.astype(np.float64)
    cosines = (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))
    hooks = {}
    for name, want in theirs.hooks.items():
        got = mine.hooks[name]
        if got.shape != want.shape:
            raise AssertionError(f"{name}: shape {got.shape}, the reference's {want.shape}")
        rel = float(np.abs(got - want).max()) / max(1.0, float(np.abs(want).max()))
        rel0, off0 = hooks.get(hook_kind(name), (0.0, 0.0))
        hooks[hook_kind(name)] = (max(rel0, rel), max(off0, one_minus_cosine(got, want)))
    return dict(logits=float(np.abs(a - b).max()), logits_rel=float(np.abs(a - b).max() / np.abs(b).max()),
                logits_cos=float(1 - cosines.min()),
                attention=float(np.abs(mine.attention - theirs.attention).max()),
                hooks_rel=max(v[0] for v in hooks.values()) if hooks else 0.0,
                hooks_cos=max(v[1] for v in hooks.values()) if hooks else 0.0,
                worst_hook=max(hooks, key=lambda k: hooks[k][1]) if hooks else None,
                names=sorted(mine.hooks) == sorted(theirs.hooks))


def sharpness(attention):
    """The mean over layers, heads and query rows past the first quarter of the largest attention weight: about 0.13
    for scores of standard deviation 1 at T = 64, 0.6 for 4 (the first rows are peaked whatever the weights: few keys)."""
    return float(attention[:, :, attention.shape[2] // 4:].max(-1).mean())


def summary(label, d):
    hooks = (f"; hooks: largest relative difference {d['hooks_rel']:.2e}, largest 1 - cosine {d['hooks_cos']:.2e} "
             f"({d['worst_hook']})") if d["worst_hook"] else ""
    return (f"  {label:28s} logits: largest difference {d['logits']:.3g} ({d['logits_rel']:.1e} of the largest), worst "
            f"position's 1 - cosine "
            f"{d['logits_cos']:.2e}; attention: largest difference {d['attention']:.3g}{hooks}")
