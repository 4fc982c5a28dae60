"""The default model's training text: where it is, how it is read, and where it is cut into training and held-out
tokens (train_default_model.py trains on the first part; head_ablation.py draws from it)."""
import os
import urllib.request

import numpy as np

from . import REPO

DEFAULT_DATA = os.path.join(REPO, "..", "shared", "data", "tinyshakespeare.txt")


def read_text(source):
    """A text file's contents, or an http(s) URL's."""
    if source.startswith("http://") or source.startswith("https://"):
        with urllib.request.urlopen(source) as r:
            return r.read().decode("utf-8")
    with open(source, encoding="utf-8") as f:
        return f.read()


def split_tokens(ids):
    """The first 90% of the tokens train, the last 10% are held out (the C++ held_out_tokens() cuts the same way)."""
    cut = len(ids) * 9 // 10
    return np.array(ids[:cut], dtype=np.int64), np.array(ids[cut:], dtype=np.int64)
