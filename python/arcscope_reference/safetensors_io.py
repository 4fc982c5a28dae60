"""Read and write .safetensors files in plain Python (no `safetensors` package).

Layout: 8-byte little-endian header length N, then N bytes of JSON
{name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, "__metadata__": {...}},
then the raw little-endian tensor bytes; offsets are relative to the end of the header.

A checkpoint folder holds one `model.safetensors`, or shards `model-0000i-of-0000N.safetensors` listed in
`model.safetensors.index.json` ({"metadata": {"total_size": bytes of tensor data}, "weight_map": {name: file}}), as
Hugging Face writes them: load_folder reads either, save_folder writes either.
"""
import json
import os
import struct

import numpy as np

# safetensors dtype name -> numpy dtype (little-endian)
_DTYPES = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2",
    "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1", "U8": "u1", "BOOL": "?",
}
# bfloat16 has no numpy type: its bits travel as this one-field structured type (see bf16()), read back as float32.
BF16 = np.dtype([("bf16", "<u2")])
_NAMES = {np.dtype(v): k for k, v in _DTYPES.items()}
_NAMES[BF16] = "BF16"
INDEX = "model.safetensors.index.json"
SINGLE = "model.safetensors"


def bf16(tensor):
    """A float tensor (torch or numpy) rounded to bfloat16 as torch rounds it (to nearest, ties to even), as an array
    save() writes with dtype BF16."""
    import torch
    t = torch.as_tensor(tensor).to(torch.float32).to(torch.bfloat16)
    return t.view(torch.int16).numpy().view("<u2").view(BF16)


def load(path):
    """Return (tensors: dict name -> numpy array, metadata: dict) from a .safetensors file."""
    with open(path, "rb") as f:
        blob = f.read()
    return loads(blob, source=path)


def loads(blob, source="<bytes>"):
    """Parse safetensors bytes; every offset is checked against the buffer before use."""
    if len(blob) < 8:
        raise ValueError(f"{source}: too short for a safetensors header ({len(blob)} bytes)")
    (n,) = struct.unpack("<Q", blob[:8])
    if 8 + n > len(blob):
        raise ValueError(f"{source}: header length {n} runs past the end of the file ({len(blob)} bytes)")
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    data = memoryview(blob)[8 + n:]
    metadata = header.pop("__metadata__", {}) or {}
    tensors = {}
    for name, info in header.items():
        dtype = info["dtype"]
        if dtype == "BF16":
            raw = np.frombuffer(_slice(data, info, source, name), dtype="<u2")
            arr = (raw.astype(np.uint32) << 16).view(np.float32)
        elif dtype in _DTYPES:
            arr = np.frombuffer(_slice(data, info, source, name), dtype=_DTYPES[dtype])
        else:
            raise ValueError(f"{source}: tensor {name}: unsupported dtype {dtype}")
        shape = [int(s) for s in info["shape"]]
        if arr.size != int(np.prod(shape, dtype=np.int64)):
            raise ValueError(f"{source}: tensor {name}: {arr.size} values do not fill shape {shape}")
        tensors[name] = arr.reshape(shape)
    return tensors, metadata


def _slice(data, info, source, name):
    begin, end = (int(v) for v in info["data_offsets"])
    if not (0 <= begin <= end <= len(data)):
        raise ValueError(f"{source}: tensor {name}: data_offsets [{begin}, {end}] outside data of {len(data)} bytes")
    return data[begin:end]


def _layout(tensors, metadata):
    """-> (header bytes with its length prefix, [(name, little-endian contiguous array)] in file order)."""
    header, arrays, offset = {}, [], 0
    for name in sorted(tensors):
        arr = tensors[name]
        if hasattr(arr, "detach"):  # torch tensor
            arr = arr.detach().cpu().numpy()
        arr = np.ascontiguousarray(arr)
        dt = arr.dtype.newbyteorder("<") if arr.dtype.byteorder == ">" else arr.dtype
        if np.dtype(dt) not in _NAMES:
            raise ValueError(f"tensor {name}: unsupported dtype {arr.dtype}")
        arr = arr.astype(dt, copy=False)
        header[name] = {"dtype": _NAMES[np.dtype(dt)], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + arr.nbytes]}
        arrays.append((name, arr))
        offset += arr.nbytes
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # pad so the data starts 8-byte aligned
    return struct.pack("<Q", len(text)) + text, arrays


def dumps(tensors, metadata=None):
    """Serialize dict name -> numpy array (or torch tensor) to safetensors bytes, names sorted."""
    head, arrays = _layout(tensors, metadata)
    return head + b"".join(arr.tobytes() for _, arr in arrays)


def save(path, tensors, metadata=None):
    """Write dict name -> array to a .safetensors file, a tensor at a time (GPT-2 XL's 6.4 GB is never copied whole)."""
    head, arrays = _layout(tensors, metadata)
    with open(path, "wb") as f:
        f.write(head)
        for _, arr in arrays:
            f.write(memoryview(arr.reshape(-1)).cast("B"))


def shard_name(i, n):
    """Hugging Face's name of shard i (0-based) of n: model-00001-of-00002.safetensors."""
    return f"model-{i + 1:05d}-of-{n:05d}.safetensors"


def load_folder(folder):
    """Every tensor of a checkpoint folder, sharded or not -> (dict name -> numpy array, metadata of the first file).
    A name in two shards, or a shard the index names that lacks its tensor, is an error."""
    index_path = os.path.join(folder, INDEX)
    if not os.path.exists(index_path):
        return load(os.path.join(folder, SINGLE))
    with open(index_path) as f:
        weight_map = json.load(f)["weight_map"]
    tensors, metadata = {}, None
    for file in sorted(set(weight_map.values())):
        part, meta = load(os.path.join(folder, file))
        metadata = meta if metadata is None else metadata
        for name, arr in part.items():
            if name in tensors:
                raise ValueError(f"{folder}: tensor {name} is in two shards")
            if weight_map.get(name) != file:
                raise ValueError(f"{folder}: tensor {name} is in {file} but the index says {weight_map.get(name)}")
            tensors[name] = arr
    missing = sorted(set(weight_map) - set(tensors))
    if missing:
        raise ValueError(f"{folder}: the index lists tensors no shard holds: {missing[:5]}")
    return tensors, metadata or {}


def save_folder(folder, tensors, shards=1, metadata=None):
    """Write tensors (dict name -> array, in the order to split them) as model.safetensors (shards=1) or as `shards`
    files of about equal size, consecutive in that order, plus the index. Returns the files written."""
    arrays = {name: arr if isinstance(arr, np.ndarray) else arr.detach().cpu().numpy() for name, arr in tensors.items()}
    if shards == 1:
        save(os.path.join(folder, SINGLE), arrays, metadata)
        return [SINGLE]
    names = list(arrays)
    if not 1 <= shards <= len(names):
        raise ValueError(f"cannot split {len(names)} tensors into {shards} shards")
    total = sum(arrays[n].nbytes for n in names)
    groups, done = [], 0
    for k, name in enumerate(names):
        left = len(names) - k  # tensors still to place, this one included
        # a new shard once this one holds its share of the bytes, or when every later shard needs one of the rest
        full = done >= len(groups) * total / shards
        if not groups or (len(groups) < shards and (full or left == shards - len(groups))):
            groups.append([])
        groups[-1].append(name)
        done += arrays[name].nbytes
    files, weight_map = [], {}
    for i, group in enumerate(groups):
        file = shard_name(i, shards)
        save(os.path.join(folder, file), {n: arrays[n] for n in group}, metadata)
        files.append(file)
        weight_map.update({n: file for n in group})
    with open(os.path.join(folder, INDEX), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2, sort_keys=True)
        f.write("\n")
    return files + [INDEX]
