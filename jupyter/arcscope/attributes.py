"""Python values -> <arc-scope>'s attribute strings, refused here when they cannot be right.

The names, and the words each attribute takes, are the element's own declarations (web/lib/element/, written into
notebook.json when the package is built). The element reads every value again and says what is wrong inside itself;
these checks only make the same mistakes Python errors, raised before anything is drawn.
"""

import numbers

from . import files


def names():
    return files.manifest()["attributes"]


def _words(name):
    return files.manifest()["words"].get(name, [])


def _either(items):
    items = [repr(i) for i in items]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _count(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _index(name, value, n):
    """layer or head: an index below n (when n is known) or one of the attribute's words."""
    words = _words(name)
    if isinstance(value, str) and value in words:
        return value
    if _count(value) and 0 <= value and (n is None or value < n):
        return str(int(value))
    span = f"an integer from 0 to {n - 1}" if n is not None else "an integer from 0 up"
    raise ValueError(f"{name}={value!r} is not valid: use {span}, or {_either(words)}")


def _word(name, value):
    if isinstance(value, str) and value in _words(name):
        return value
    raise ValueError(f"{name}={value!r} is not valid: use {_either(_words(name))}")


def _topk(name, value):
    if value == "auto" or (_count(value) and value >= 0):
        return str(value)
    raise ValueError(f"{name}={value!r} is not valid: use an integer from 0 up (0 draws every arc) or 'auto'")


def _fraction(name, value):
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 <= value <= 1:
        return repr(float(value))
    raise ValueError(f"{name}={value!r} is not valid: use a number from 0 to 1")


def _text(name, value):
    if isinstance(value, str):
        return value
    raise TypeError(f"{name} must be a str, got {type(value).__name__}")


# How each attribute's value is read; one the package does not know yet (a newer element's) goes as str(value) for
# the element to read.
_READERS = {"mode": _word, "theme": _word, "loading": _word, "ablate": _word, "sink": _word, "topk": _topk,
            "threshold": _fraction, "text": _text, "answer": _text, "wrong": _text}


def element_attributes(given, layers=None, heads=None, caller="show"):
    """{name: value} -> {name: attribute string}; None leaves an attribute out (its default)."""
    known = names()
    out = {}
    for name, value in given.items():
        if name not in known:
            raise TypeError(f"{caller}() got an unknown attribute {name!r}: <arc-scope>'s attributes are "
                            f"{', '.join(known)}")
        if value is None:
            continue
        if name in ("layer", "head"):
            out[name] = _index(name, value, layers if name == "layer" else heads)
        elif name in _READERS:
            out[name] = _READERS[name](name, value)
        elif isinstance(value, (str, numbers.Real)) and not isinstance(value, bool):
            out[name] = str(value)
        else:
            raise TypeError(f"{name} must be a str or a number, got {type(value).__name__}")
    return out
