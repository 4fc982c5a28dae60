"""Attention given from Python -> float32 values in [layer, head, query, key] order, and the shape [L, H, T, T].

Takes nested lists, numpy arrays and torch tensors (neither is imported here: an array is read through its own
methods) of [L, H, T, T], [H, T, T] or [T, T]; a TransformerLens cache's stacked pattern,
cache.stack_activation("pattern"), [L, batch, H, T, T] with batch 1; and a Hugging Face output_attentions tuple, one
[batch, H, T, T] tensor per layer with batch 1. Every weight must be a finite number from 0 to 1, as the element
requires: a wrong one is a ValueError naming where it is. True and False are not weights, in lists as in arrays and
tensors of bools: they are refused.
"""

import math
import numbers
import sys
from array import array


def _is_array(x):
    return hasattr(x, "shape") and hasattr(x, "tolist")


# The most axes a pattern has: TransformerLens's stacked [layer, batch, head, query, key].
MAX_AXES = 5


def _refuse_bools(kind, dtype):
    """A numpy dtype kind 'b' or a torch bool tensor: refused, as True and False are in lists."""
    if kind == "b":
        raise TypeError(f"pattern holds {dtype} values (True and False), not attention weights: give numbers from 0 "
                        "to 1 (a mask is not a pattern; convert it with .astype(float) if that is what you mean)")


def _array_values(x):
    """(array('f') of x's values in C order, shape) of a numpy array or torch tensor."""
    shape = [int(n) for n in x.shape]
    if hasattr(x, "detach"):  # torch: off the graph and the device, as float32
        if str(x.dtype) == "torch.bool":  # checked before .float(), which would read True as 1
            _refuse_bools("b", x.dtype)
        if x.is_complex():
            raise TypeError(f"pattern holds {x.dtype} values, not real numbers")
        x = x.detach().cpu().float()
        try:
            x = x.numpy()
        except (RuntimeError, ImportError):  # torch without numpy
            return array("f", x.flatten().tolist()), shape
    dtype = getattr(x, "dtype", None)
    _refuse_bools(getattr(dtype, "kind", "f"), dtype)
    if getattr(dtype, "kind", "f") not in "fiu":
        raise TypeError(f"pattern holds {dtype} values, not real numbers")
    values = array("f")
    values.frombytes(x.astype("<f4").tobytes())
    if sys.byteorder == "big":
        values.byteswap()
    return values, shape


def _nested_values(x):
    """(array('f'), shape) of nested lists or tuples of numbers; ragged ones, and nesting deeper than a pattern has
    (or a list that holds itself), are refused before anything is walked."""
    shape, node = [], x
    while isinstance(node, (list, tuple)):  # the shape, along the first entries
        if len(shape) == MAX_AXES:
            raise ValueError(f"pattern is nested more than {MAX_AXES} lists deep: give [layer, head, query, key], "
                             "[head, query, key] or [query, key] weights (or TransformerLens's [layer, batch, head, "
                             "query, key])")
        shape.append(len(node))
        node = node[0] if node else None
    values = array("f")

    def walk(node, path, depth):
        if depth < len(shape):
            if not isinstance(node, (list, tuple)) or len(node) != shape[depth]:
                got = f"{len(node)} entries" if isinstance(node, (list, tuple)) else "a number"
                raise ValueError(f"pattern is ragged: {path} has {got}, pattern{'[0]' * depth} {shape[depth]} entries")
            for i, child in enumerate(node):
                walk(child, f"{path}[{i}]", depth + 1)
        elif isinstance(node, (list, tuple)):
            raise ValueError(f"pattern is ragged: {path} is a list where pattern{'[0]' * depth} is a number")
        elif isinstance(node, bool) or not isinstance(node, numbers.Real):
            raise TypeError(f"{path} is {node!r}, not a number")
        else:
            values.append(float(node))

    walk(x, "pattern", 0)
    return values, shape


def _layers(tensors):
    """A Hugging Face output_attentions tuple (or a list of per-layer arrays) -> (values, [L, H, T, T])."""
    values, shape = array("f"), None
    for layer, t in enumerate(tensors):
        v, s = _array_values(t)
        if len(s) == 4:
            if s[0] != 1:
                raise ValueError(f"pattern[{layer}] has a batch of {s[0]} sequences ({s}, [batch, head, query, key]): "
                                 "draw one, e.g. [a[i:i+1] for a in outputs.attentions]")
            s = s[1:]
        if len(s) != 3:
            raise ValueError(f"pattern[{layer}] has shape {s}: a tuple of layers holds one [batch, head, query, key] "
                             "(or [head, query, key]) array per layer")
        if shape is not None and s != shape:
            raise ValueError(f"pattern[{layer}] has shape {s}, pattern[0] {shape}: every layer must have the same")
        shape = s
        values.extend(v)
    if shape is None:
        raise ValueError("pattern is an empty tuple: give at least one layer")
    return values, [len(tensors), *shape]


def read(pattern, n_tokens):
    """(array('f') of [L, H, T, T] values, [L, H, T, T]) of pattern, checked against n_tokens."""
    if _is_array(pattern):
        values, shape = _array_values(pattern)
    elif isinstance(pattern, (list, tuple)) and pattern and all(_is_array(p) for p in pattern):
        values, shape = _layers(pattern)
    elif isinstance(pattern, (list, tuple)):
        values, shape = _nested_values(pattern)
    else:
        raise TypeError(f"pattern must be an array of [layer, head, query, key] weights (nested lists, a numpy "
                        f"array or a torch tensor), a TransformerLens cache.stack_activation('pattern') or a Hugging "
                        f"Face outputs.attentions tuple; got {type(pattern).__name__}")
    given = list(shape)
    if len(shape) == 5:  # TransformerLens's stacked pattern: [layer, batch, head, query, key]
        if shape[1] != 1:
            raise ValueError(f"pattern has shape {given}, [layer, batch, head, query, key] with a batch of {shape[1]} "
                             "sequences: draw one, e.g. pattern[:, i:i+1]")
        shape = [shape[0], *shape[2:]]
    if not 2 <= len(shape) <= 4:
        raise ValueError(f"pattern has shape {given}: give [layer, head, query, key], [head, query, key] or "
                         "[query, key] weights")
    shape = [1] * (4 - len(shape)) + shape
    L, H, T, K = shape
    if T != K:
        raise ValueError(f"pattern has shape {given}: its last two sizes, query and key, must be equal")
    if T != n_tokens:
        raise ValueError(f"pattern has shape {given}, for {T} tokens, but {n_tokens} tokens were given")
    if 0 in shape:
        raise ValueError(f"pattern has shape {given}: it holds no weights")
    for i, v in enumerate(values):
        if not 0.0 <= v <= 1.0:  # NaN too
            l, rest = divmod(i, H * T * T)
            h, rest = divmod(rest, T * T)
            q, k = divmod(rest, T)
            what = "not a finite number" if math.isnan(v) or math.isinf(v) else "outside 0 to 1"
            raise ValueError(f"pattern[{l}][{h}][{q}][{k}] (layer, head, query, key) is {v}, {what}: attention "
                             "weights are from 0 to 1")
    return values, shape
