"""Read arcscope's `.arcs` model files in plain Python, written from the format's description in models/README.md
(not from the C++ loader), so that tests can check the engine against what the file says.

load(path) -> (config, tensors), q8 and q16 matrices dequantized (scale * q):
- GPT-2 (versions 1 and 2): config is a Hugging Face config.json dict, tensors maps Hugging Face GPT-2 names (no
  `transformer.` prefix) to float32 arrays in Hugging Face's layout (Conv1D weights (in, out)). That is a state dict
  gpt2_reference.py's GPT2 loads as is.
- Every other architecture (version 3, its architecture record): config holds decoder_config.Architecture's fields
  (Architecture(**config) builds one), tensors the file's own names in its orientation, every matrix (out, in).
Every field is checked before it is used; a bad file raises ValueError naming what is wrong.
"""
import math
import struct

import numpy as np

MAGIC = b"ARCSCOPE"
VERSIONS = (1, 2, 3, 4)  # 2 added q16 (f32 and q8 GPT-2 files are still version 1), 3 the architecture record, 4
# 16-bit q16
HEADER_BYTES = 80
ARCH_RECORD_BYTES = 128  # version 3, right after the header
ENTRY_BYTES = 96
NAME_BYTES = 64
ALIGN = 64
F32, Q8, Q16, Q16_FULL = 0, 1, 2, 3  # Q16: 14-bit weights in int16; Q16_FULL: all 16 bits (version 4)
BLOCK = 32      # weights per scale, along in_features
ROW_GROUP = 8   # rows per packed record
# Per packed type: (the numpy type of a weight, record bytes: 8 f32 scales, then 8 x 32 weights).
PACKED = {Q8: (np.int8, ROW_GROUP * (4 + BLOCK)), Q16: ("<i2", ROW_GROUP * (4 + 2 * BLOCK)),
          Q16_FULL: ("<i2", ROW_GROUP * (4 + 2 * BLOCK))}
# The hyperparameter ranges a file may declare (models/README.md: far above GPT-2 xl).
LIMITS = {"n_layer": 256, "n_head": 256, "n_embd": 16384, "n_ctx": 65536, "n_vocab": 1 << 20}
ROTARY_CTX_LIMIT = 1 << 20  # rotary positions have no table, so their context may be longer
# The architecture record's enumerations, in models/README.md's order, named as decoder_config.Architecture names them.
FAMILIES = ("gpt2", "gpt_neox", "llama", "qwen2", "qwen3")
NORMS = ("layernorm", "rmsnorm")
POSITIONS = ("learned", "rope")
MLPS = ("gelu_tanh", "gelu", "swiglu")
FLAGS = (("parallel_residual", 1), ("tied", 2), ("qkv_bias", 4), ("o_bias", 8), ("mlp_bias", 16), ("qk_norm", 32))
# The matrices .arcs stores (out_features, in_features), i.e. Hugging Face's Conv1D weights transposed.
CONV1D = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight")


def align_up(n, a=ALIGN):
    return (n + a - 1) // a * a


def packed_bytes(dtype, rows, cols):
    """ceil(rows/8) x ceil(cols/32) records (288 bytes for q8, 544 for q16), rounded up to 64."""
    return align_up(-(-rows // ROW_GROUP) * -(-cols // BLOCK) * PACKED[dtype][1])


def fnv1a64_words(data):
    """FNV-1a 64 over little-endian 64-bit words (the header's checksum)."""
    h = 0xcbf29ce484222325
    for word in np.frombuffer(data, dtype="<u8").tolist():  # a plain loop: each step depends on the last
        h = ((h ^ word) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def expected_tensors(n_layer, n_embd, n_ctx, n_vocab):
    """[(name, (rows, cols))] in table order, .arcs shapes; cols = 0 for vectors."""
    C = n_embd
    layer = [("ln_1.weight", (C, 0)), ("ln_1.bias", (C, 0)),
             ("attn.c_attn.weight", (3 * C, C)), ("attn.c_attn.bias", (3 * C, 0)),
             ("attn.c_proj.weight", (C, C)), ("attn.c_proj.bias", (C, 0)),
             ("ln_2.weight", (C, 0)), ("ln_2.bias", (C, 0)),
             ("mlp.c_fc.weight", (4 * C, C)), ("mlp.c_fc.bias", (4 * C, 0)),
             ("mlp.c_proj.weight", (C, 4 * C)), ("mlp.c_proj.bias", (C, 0))]
    names = [("wte.weight", (n_vocab, C)), ("wpe.weight", (n_ctx, C))]
    for i in range(n_layer):
        names += [(f"h.{i}.{name}", shape) for name, shape in layer]
    return names + [("ln_f.weight", (C, 0)), ("ln_f.bias", (C, 0))]


def read_architecture(blob, shape, eps, fail):
    """Version 3's record at offset 80 -> decoder_config.Architecture's fields (shape: the header's sizes)."""
    if len(blob) < HEADER_BYTES + ARCH_RECORD_BYTES:
        fail("the file ends inside its architecture record")
    at = HEADER_BYTES
    family, n_kv_head, head_dim, ffn, norm, positions, mlp, flags, rotary_dim, scaling = \
        struct.unpack_from("<10I", blob, at)
    theta, factor, low, high, original = struct.unpack_from("<5d", blob, at + 40)
    if any(blob[at + 112:at + ARCH_RECORD_BYTES]):  # 80-111: where the tokenizer's files are (loads reads them)
        fail("the architecture record's reserved bytes are not zero")
    for what, value, names in (("family", family, FAMILIES), ("norm", norm, NORMS),
                               ("positions", positions, POSITIONS), ("MLP kind", mlp, MLPS)):
        if value >= len(names):
            fail(f"architecture record: {what} {value} is unknown")
    if flags & ~63:
        fail(f"architecture record: unknown flags {flags}")
    arch = dict(model_type=FAMILIES[family], n_layer=shape["n_layer"], n_embd=shape["n_embd"],
                n_head=shape["n_head"], n_kv_head=n_kv_head, head_dim=head_dim, ffn=ffn, n_vocab=shape["n_vocab"],
                n_ctx=shape["n_ctx"], norm=NORMS[norm], eps=eps, positions=POSITIONS[positions], rope_theta=theta,
                rotary_dim=rotary_dim, rope_scaling=None, mlp=MLPS[mlp])
    arch.update({name: bool(flags & bit) for name, bit in FLAGS})
    if not (1 <= n_kv_head <= shape["n_head"] and shape["n_head"] % n_kv_head == 0 and 1 <= head_dim <= 1024
            and 1 <= ffn <= 1 << 17):
        fail(f"architecture record: {n_kv_head} key/value heads of {head_dim} for {shape['n_head']} heads, or an "
             f"MLP of {ffn}, is out of range")
    if arch["positions"] == "rope":
        if not (rotary_dim % 2 == 0 and 2 <= rotary_dim <= head_dim and math.isfinite(theta) and theta > 1):
            fail(f"architecture record: rotary dimensions {rotary_dim} of {head_dim}, theta {theta}")
        if scaling not in (0, 1):
            fail(f"architecture record: rope scaling {scaling} is unknown")
        if scaling == 1:
            arch["rope_scaling"] = dict(factor=factor, low_freq_factor=low, high_freq_factor=high,
                                        original_max_position_embeddings=original)
    elif rotary_dim or scaling:
        fail("architecture record: rotary numbers in a model with learned positions")
    return arch


def architecture_tensors(a):
    """[(name, (rows, cols))] of a version 3 file, in table order (models/README.md), cols = 0 for vectors."""
    C, F, d = a["n_embd"], a["ffn"], a["head_dim"]
    q, kv = a["n_head"] * d, a["n_kv_head"] * d
    norm = (lambda n: [(n + ".weight", (C, 0)), (n + ".bias", (C, 0))]) if a["norm"] == "layernorm" else \
        (lambda n: [(n + ".weight", (C, 0))])

    def linear(name, rows, cols, bias):
        return [(name + ".weight", (rows, cols))] + ([(name + ".bias", (rows, 0))] if bias else [])

    names = [("wte.weight", (a["n_vocab"], C))]
    if a["positions"] == "learned":
        names.append(("wpe.weight", (a["n_ctx"], C)))
    for i in range(a["n_layer"]):
        p = f"h.{i}."
        names += norm(p + "ln_1") + linear(p + "attn.c_attn", q + 2 * kv, C, a["qkv_bias"])
        if a["qk_norm"]:
            names += [(p + "attn.q_norm.weight", (d, 0)), (p + "attn.k_norm.weight", (d, 0))]
        names += linear(p + "attn.c_proj", C, q, a["o_bias"]) + norm(p + "ln_2")
        names += linear(p + "mlp.c_fc", F, C, a["mlp_bias"])
        if a["mlp"] == "swiglu":
            names += linear(p + "mlp.gate", F, C, a["mlp_bias"])
        names += linear(p + "mlp.c_proj", C, F, a["mlp_bias"])
    names += norm("ln_f")
    if not a["tied"]:
        names.append(("lm_head.weight", (a["n_vocab"], C)))
    return names


def dequantize(dtype, data, rows, cols):
    """Packed q8 or q16 (14- or 16-bit) bytes -> (rows, cols) float32. Record (g, b), b fastest, holds rows 8g..8g+7 x cols
    32b..32b+31: scale[r] (f32), then q[p][r][i] = weight(8g + r, 32b + 2p + i) (int8, or little-endian int16);
    padding rows and cols are cut off."""
    weight, record_bytes = PACKED[dtype]
    groups, blocks = -(-rows // ROW_GROUP), -(-cols // BLOCK)
    records = np.frombuffer(data, dtype=np.uint8, count=groups * blocks * record_bytes)
    records = records.reshape(groups, blocks, record_bytes)
    scale = records[:, :, :4 * ROW_GROUP].copy().view("<f4")                                # (g, b, r)
    q = records[:, :, 4 * ROW_GROUP:].copy().view(weight).reshape(groups, blocks, BLOCK // 2, ROW_GROUP, 2)
    q = q.transpose(0, 3, 1, 2, 4).reshape(groups, ROW_GROUP, blocks, BLOCK)                  # (g, r, b, col)
    w = q.astype(np.float32) * scale.transpose(0, 2, 1)[:, :, :, None]
    return w.reshape(groups * ROW_GROUP, blocks * BLOCK)[:rows, :cols]


def load(path):
    with open(path, "rb") as f:
        return loads(f.read(), source=path)


def loads(blob, source="<bytes>"):
    """.arcs bytes -> (Hugging Face config dict, {name: float32 array}); see the module's docstring."""
    def fail(message):
        raise ValueError(f"{source}: {message}")

    if len(blob) < HEADER_BYTES:
        fail(f"{len(blob)} bytes, shorter than the {HEADER_BYTES}-byte header")
    if blob[:8] != MAGIC:
        fail(f"not an .arcs file (magic {blob[:8]!r}, expected {MAGIC!r})")
    version, weight_type, n_layer, n_head, n_embd, n_ctx, n_vocab = struct.unpack_from("<7I", blob, 8)
    (eps,) = struct.unpack_from("<f", blob, 36)
    n_tensors, block = struct.unpack_from("<2I", blob, 40)
    data_offset, data_size, checksum, reserved = struct.unpack_from("<4Q", blob, 48)
    if version not in VERSIONS:
        fail(f"format version {version}, this reader knows {VERSIONS}")
    if weight_type not in (F32, Q8, Q16, Q16_FULL) or (weight_type == Q16 and version < 2) or \
            (weight_type == Q16_FULL and version < 4):
        fail(f"unknown weight type {weight_type} for format version {version}")
    shape = dict(n_layer=n_layer, n_head=n_head, n_embd=n_embd, n_ctx=n_ctx, n_vocab=n_vocab)
    arch = read_architecture(blob, shape, eps, fail) if version >= 3 else None
    rotary = arch is not None and arch["positions"] == "rope"
    for key, value in shape.items():
        limit = ROTARY_CTX_LIMIT if key == "n_ctx" and rotary else LIMITS[key]
        if not 1 <= value <= limit:
            fail(f"{key} {value} is outside 1..{limit}")
    if arch is None and n_embd % n_head:
        fail(f"n_embd {n_embd} is not divisible by n_head {n_head}")
    if not (eps > 0 and math.isfinite(eps)):
        fail(f"norm epsilon {eps} is not a positive number")
    if block != (BLOCK if weight_type in PACKED else 0):
        fail(f"block size {block} does not fit weight type {weight_type}")
    if reserved:
        fail("reserved header field is not zero")
    expected = architecture_tensors(arch) if arch else expected_tensors(n_layer, n_embd, n_ctx, n_vocab)
    if n_tensors != len(expected):
        fail(f"{n_tensors} tensors, expected {len(expected)}")
    table = HEADER_BYTES + (ARCH_RECORD_BYTES if arch else 0)
    if data_offset != align_up(table + ENTRY_BYTES * n_tensors):
        fail(f"data offset {data_offset}, expected {align_up(table + ENTRY_BYTES * n_tensors)}")
    if data_size % ALIGN or data_offset + data_size != len(blob):
        fail(f"header says {data_offset} + {data_size} = {data_offset + data_size} bytes (data size a multiple of "
             f"{ALIGN}), the file has {len(blob)}")
    if fnv1a64_words(memoryview(blob)[HEADER_BYTES:]) != checksum:
        fail("checksum mismatch")

    entries = []
    for i, (name, shape) in enumerate(expected):
        at = table + i * ENTRY_BYTES
        raw_name = blob[at:at + NAME_BYTES]
        if raw_name != name.encode().ljust(NAME_BYTES, b"\0"):
            fail(f"table entry {i} is {raw_name.rstrip(bytes(1))!r}, expected {name!r}")
        dtype, ndim, rows, cols, offset, size = struct.unpack_from("<4I2Q", blob, at + NAME_BYTES)
        if (rows, cols) != shape or ndim != (2 if cols else 1):
            fail(f"tensor {name}: expected shape {list(shape)} ({2 if shape[1] else 1} dimensions), "
                 f"got {[rows, cols]} ({ndim})")
        want_type = weight_type if cols else F32  # LayerNorm parameters and biases are always f32
        if dtype != want_type:
            fail(f"tensor {name}: type {dtype}, expected {want_type}")
        want_size = packed_bytes(dtype, rows, cols) if dtype in PACKED else 4 * rows * max(cols, 1)
        if size != want_size:
            fail(f"tensor {name}: {size} bytes, expected {want_size}")
        if offset % ALIGN or offset + size > data_size:
            fail(f"tensor {name}: bytes [{offset}, {offset + size}) are unaligned or beyond the data section "
                 f"({data_size} bytes)")
        entries.append((offset, size, name, dtype, rows, cols))
    carried = []  # the tokenizer's files a version 3 file carries after its tensors: (offset, size, name)
    regions = struct.unpack_from("<4Q", blob, HEADER_BYTES + 80) if arch else ()
    for offset, size, name in zip(regions[0::2], regions[1::2], ("tokenizer.json", "tokenizer_config.json")):
        if size and (offset % ALIGN or offset + size > data_size):
            fail(f"{name}: bytes [{offset}, {offset + size}) are unaligned or beyond the data ({data_size} bytes)")
        if size:
            carried.append((offset, size, name))
    by_offset = sorted([e[:3] for e in entries] + carried)
    for (offset, size, a, *_), (next_offset, _, b, *_) in zip(by_offset, by_offset[1:]):
        if offset + size > next_offset:
            fail(f"tensors {a} and {b} overlap")

    tensors = {}
    for offset, size, name, dtype, rows, cols in entries:
        data = memoryview(blob)[data_offset + offset:data_offset + offset + size]
        if dtype in PACKED:
            w = dequantize(dtype, data, rows, cols)
        else:
            w = np.frombuffer(data, dtype="<f4").reshape((rows, cols) if cols else (rows,))
        if not np.isfinite(w).all():
            fail(f"tensor {name} holds a non-finite value")
        if arch is None and name.endswith(CONV1D):  # GPT-2's state dict: Conv1D (in, out)
            w = w.T
        tensors[name] = np.array(w, dtype=np.float32, order="C")  # a writable copy, for torch
    if arch is not None:
        return arch, tensors
    config = {"n_layer": n_layer, "n_head": n_head, "n_embd": n_embd, "n_positions": n_ctx, "n_ctx": n_ctx,
              "vocab_size": n_vocab, "layer_norm_epsilon": eps}
    return config, tensors
