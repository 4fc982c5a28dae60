"""The hyperparameters at the head of an .arcs file (models/README.md in the repository: magic ARCSCOPE, u32 format
version and weight type, then u32 n_layer, n_head, n_embd, n_ctx, n_vocab, little-endian), so that show() can refuse
a file that is no model, and a layer or head it does not have, before anything is drawn. The engine checks the rest
of the file when it loads it."""

import os
import struct

MAGIC = b"ARCSCOPE"
_HEAD = struct.Struct("<8sII5I")


def read_config(path):
    """{n_layer, n_head, n_embd, n_ctx, n_vocab} of the .arcs file at path."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"model must be the path of an .arcs file (a str or a pathlib.Path), or None for the default "
                        f"model; got {type(path).__name__}")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"model {os.fspath(path)!r} is not a file: give the path of an .arcs model file "
                                "(arcscope convert writes one from a Hugging Face GPT-2 checkpoint)")
    with open(path, "rb") as f:
        head = f.read(_HEAD.size)
    if len(head) < _HEAD.size or not head.startswith(MAGIC):
        raise ValueError(f"model {os.fspath(path)!r} is not an .arcs model file: it does not start with {MAGIC!r} "
                         "(convert a Hugging Face GPT-2 checkpoint with arcscope convert)")
    _, _version, _dtype, n_layer, n_head, n_embd, n_ctx, n_vocab = _HEAD.unpack(head)
    return {"n_layer": n_layer, "n_head": n_head, "n_embd": n_embd, "n_ctx": n_ctx, "n_vocab": n_vocab}
