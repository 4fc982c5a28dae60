"""Read and write .safetensors files in plain Python (no `safetensors` package).

Layout: 8-byte little-endian header length N, then N bytes of JSON
{name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, "__metadata__": {...}},
then the raw little-endian tensor bytes; offsets are relative to the end of the header.
"""
import json
import struct

import numpy as np

# safetensors dtype name -> numpy dtype (little-endian)
_DTYPES = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2",
    "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1", "U8": "u1", "BOOL": "?",
}
_NAMES = {np.dtype(v): k for k, v in _DTYPES.items()}


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
