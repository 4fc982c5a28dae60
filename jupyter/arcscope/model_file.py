"""What show() needs to know of an .arcs file before anything is drawn (models/README.md in the repository): the
header (magic ARCSCOPE, u32 format version and weight type, then u32 n_layer, n_head, n_embd, n_ctx, n_vocab,
little-endian) and, from version 3 on, the architecture record after it (its family, key/value heads, and where the
tokenizer the file carries lies), so that show() can refuse a file that is no model, a layer or head it does not
have, and text for a model that carries no tokenizer. The engine checks the rest of the file when it loads it."""

import os
import struct

MAGIC = b"ARCSCOPE"
_HEAD = struct.Struct("<8sII5I")
_HEADER_BYTES = 80
_RECORD = struct.Struct("<2I")            # version 3's record: family, key/value heads
_TOKENIZER = struct.Struct("<2Q")         # the record's tokenizer.json offset and size, at its byte 80
FAMILIES = ("gpt2", "gpt_neox", "llama", "qwen2", "qwen3")


def read_config(path):
    """{architecture, n_layer, n_head, n_kv_head, n_embd, n_ctx, n_vocab, tokenizer} of the .arcs file at path;
    tokenizer is 'gpt2' (built in), 'carried' (the file's own tokenizer.json) or 'none'."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"model must be the path of an .arcs file (a str or a pathlib.Path), or None for the default "
                        f"model; got {type(path).__name__}")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"model {os.fspath(path)!r} is not a file: give the path of an .arcs model file "
                                "(arcscope convert writes one from a Hugging Face checkpoint)")
    with open(path, "rb") as f:
        head = f.read(_HEADER_BYTES + 128)
    if len(head) < _HEAD.size or not head.startswith(MAGIC):
        raise ValueError(f"model {os.fspath(path)!r} is not an .arcs model file: it does not start with {MAGIC!r} "
                         "(convert a Hugging Face checkpoint with arcscope convert)")
    _, version, _dtype, n_layer, n_head, n_embd, n_ctx, n_vocab = _HEAD.unpack_from(head)
    config = {"architecture": "gpt2", "n_layer": n_layer, "n_head": n_head, "n_kv_head": n_head, "n_embd": n_embd,
              "n_ctx": n_ctx, "n_vocab": n_vocab, "tokenizer": "gpt2"}
    if version >= 3:
        if len(head) < _HEADER_BYTES + 128:
            raise ValueError(f"model {os.fspath(path)!r} ends inside its architecture record: the file is truncated")
        family, n_kv_head = _RECORD.unpack_from(head, _HEADER_BYTES)
        _offset, tokenizer_bytes = _TOKENIZER.unpack_from(head, _HEADER_BYTES + 80)
        config.update(architecture=FAMILIES[family] if family < len(FAMILIES) else f"family {family}",
                      n_kv_head=n_kv_head, tokenizer="carried" if tokenizer_bytes else "none")
    return config
