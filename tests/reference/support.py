"""What the reference tests share: the one path set-up (python/, which holds the package arcscope_reference), where the
repository and the native CLI are, running a command, a random checkpoint from scripts/make_checkpoint.py and its
conversion, reading an engine's hook cache, and the shipped model in the PyTorch reference.

The tests run from the repository's root, all of them or one file:
  /usr/bin/python3 -m unittest discover -s tests/reference -p 'test_*.py'
  /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_engine.py
unittest puts tests/reference on the path, so a test file imports this module as `support`, before arcscope_reference.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from arcscope_reference import arcs_file  # noqa: E402
from arcscope_reference import gpt2_reference as ref  # noqa: E402

CLI = os.path.join(ROOT, "build", "native", "arcscope")  # finds the tokenizer the build put beside it
DEFAULT_MODEL = os.path.join(ROOT, "models", "shakespeare-4l.q8.arcs")


def sh(*args, **kw):
    """Runs a command (its arguments made strings) and returns what it printed; raises if it fails."""
    return subprocess.run([str(a) for a in args], check=True, capture_output=True, text=True, **kw).stdout


def make_checkpoint(out, seed, shape, *extra):
    """scripts/make_checkpoint.py --out OUT --seed SEED, the shape ({"n_layer": 2, ...}) as its flags, then extra."""
    args = ["--out", out, "--seed", seed]
    for k, v in shape.items():
        args += ["--" + k.replace("_", "-"), v]
    sh(sys.executable, os.path.join(ROOT, "scripts", "make_checkpoint.py"), *args, *extra)
    return out


def convert(ckpt, out, dtype):
    """`arcscope convert` of ckpt to out, unless out is newer than both the CLI and the checkpoint."""
    made = os.path.getmtime(out) if os.path.exists(out) else 0
    if made < max(os.path.getmtime(CLI), os.path.getmtime(os.path.join(ckpt, "model.safetensors"))):
        sh(CLI, "convert", "--in", ckpt, "--out", out, "--dtype", dtype)
    return out


def read_cache(folder):
    """{hook name: array in its full shape} from what `arcscope run --hooks ... --cache-out FOLDER` writes (cache.json,
    {"T", "hooks": {name: shape}}, and <name>.f32 each, raw little-endian)."""
    with open(os.path.join(folder, "cache.json")) as f:
        index = json.load(f)
    return {name: np.fromfile(os.path.join(folder, name + ".f32"), dtype="<f4").reshape(shape)
            for name, shape in index["hooks"].items()}


def hook_kind(name):
    """blocks.3.attn.hook_z -> attn.hook_z: what the tests summarise their differences by."""
    return name.split(".", 2)[2] if name.startswith("blocks.") else name


def shipped_model():
    """The shipped file through arcs_file into the PyTorch reference (float32, eval mode)."""
    config, tensors = arcs_file.load(DEFAULT_MODEL)
    model = ref.GPT2(ref.GPT2Config.from_hf(config))
    model.load_state_dict({name: torch.from_numpy(w) for name, w in tensors.items()})  # strict: every name, shape
    return model.eval()
