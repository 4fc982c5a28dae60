"""Read arcscope's `.arcs` model files in plain Python, written from the format's description in models/README.md
(not from the C++ loader), so that tests can check the engine against what the file says.

load(path) -> (config, tensors): config is a Hugging Face config.json dict, tensors maps Hugging Face GPT-2 names
(no `transformer.` prefix) to float32 arrays in Hugging Face's layout (Conv1D weights (in, out)), q8 and q16
matrices dequantized (scale * q). That is a state dict gpt2_reference.py's GPT2 loads as is.
Every field is checked before it is used; a bad file raises ValueError naming what is wrong.
"""
import math
import struct

import numpy as np

MAGIC = b"ARCSCOPE"
VERSIONS = (1, 2)  # 2 added q16; f32 and q8 files are still written as version 1
HEADER_BYTES = 80
ENTRY_BYTES = 96
NAME_BYTES = 64
ALIGN = 64
F32, Q8, Q16 = 0, 1, 2
BLOCK = 32      # weights per scale, along in_features
ROW_GROUP = 8   # rows per packed record
# Per packed type: (the numpy type of a weight, record bytes: 8 f32 scales, then 8 x 32 weights).
PACKED = {Q8: (np.int8, ROW_GROUP * (4 + BLOCK)), Q16: ("<i2", ROW_GROUP * (4 + 2 * BLOCK))}
# The hyperparameter ranges a file may declare (models/README.md: far above GPT-2 xl).
LIMITS = {"n_layer": 256, "n_head": 256, "n_embd": 16384, "n_ctx": 65536, "n_vocab": 1 << 20}
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


def dequantize(dtype, data, rows, cols):
    """Packed q8 or q16 bytes -> (rows, cols) float32. Record (g, b), b fastest, holds rows 8g..8g+7 x cols
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
    if weight_type not in (F32, Q8, Q16) or (weight_type == Q16 and version < 2):
        fail(f"unknown weight type {weight_type} for format version {version}")
    shape = dict(n_layer=n_layer, n_head=n_head, n_embd=n_embd, n_ctx=n_ctx, n_vocab=n_vocab)
    for key, value in shape.items():
        if not 1 <= value <= LIMITS[key]:
            fail(f"{key} {value} is outside 1..{LIMITS[key]}")
    if n_embd % n_head:
        fail(f"n_embd {n_embd} is not divisible by n_head {n_head}")
    if not (eps > 0 and math.isfinite(eps)):
        fail(f"LayerNorm epsilon {eps} is not a positive number")
    if block != (BLOCK if weight_type in PACKED else 0):
        fail(f"block size {block} does not fit weight type {weight_type}")
    if reserved:
        fail("reserved header field is not zero")
    expected = expected_tensors(n_layer, n_embd, n_ctx, n_vocab)
    if n_tensors != len(expected):
        fail(f"{n_tensors} tensors, expected 12 x n_layer + 4 = {len(expected)}")
    if data_offset != align_up(HEADER_BYTES + ENTRY_BYTES * n_tensors):
        fail(f"data offset {data_offset}, expected {align_up(HEADER_BYTES + ENTRY_BYTES * n_tensors)}")
    if data_size % ALIGN or data_offset + data_size != len(blob):
        fail(f"header says {data_offset} + {data_size} = {data_offset + data_size} bytes (data size a multiple of "
             f"{ALIGN}), the file has {len(blob)}")
    if fnv1a64_words(memoryview(blob)[HEADER_BYTES:]) != checksum:
        fail("checksum mismatch")

    entries = []
    for i, (name, shape) in enumerate(expected):
        at = HEADER_BYTES + i * ENTRY_BYTES
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
    by_offset = sorted(entries)
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
        if name.endswith(CONV1D):
            w = w.T
        tensors[name] = np.array(w, dtype=np.float32, order="C")  # a writable copy, for torch
    config = {"n_layer": n_layer, "n_head": n_head, "n_embd": n_embd, "n_positions": n_ctx, "n_ctx": n_ctx,
              "vocab_size": n_vocab, "layer_norm_epsilon": eps}
    return config, tensors
