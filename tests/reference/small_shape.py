"""The reference tests' GPT-2-small-shaped random checkpoint (12 layers, 12 heads, n_embd 768, GPT-2's vocabulary;
n_ctx 64 keeps it at 470 MB), made once under build/ and converted again whenever the engine is newer
than the files (f32, q8 and q16): test_hooks.py and the two test_interventions_*.py share it."""
import os

from support import CLI, ROOT, convert, make_checkpoint
from arcscope_reference import gpt2_reference as ref

WORK = os.path.join(ROOT, "build", "test-models", "hooks-gpt2-small-shape")
SHAPE = dict(n_layer=12, n_head=12, n_embd=768, n_ctx=64, vocab=50257)


def small_shape_files():
    """(checkpoint folder, {dtype: .arcs path}); the .arcs files only when the CLI is built."""
    os.makedirs(WORK, exist_ok=True)
    ckpt = os.path.join(WORK, "ckpt")
    if not os.path.exists(os.path.join(ckpt, "model.safetensors")):
        make_checkpoint(ckpt, 5, SHAPE)
    paths = {}
    if os.path.exists(CLI):
        for dtype in ("f32", "q8", "q16"):
            paths[dtype] = convert(ckpt, os.path.join(WORK, f"model.{dtype}.arcs"), dtype)
    return ckpt, paths


_SMALL_SHAPE = {}


def small_shape_model():
    """The checkpoint in the PyTorch reference (loaded once per process)."""
    if "model" not in _SMALL_SHAPE:
        _SMALL_SHAPE["model"] = ref.load(small_shape_files()[0])
    return _SMALL_SHAPE["model"]
