"""The files a notebook carries, and which output carries them.

A payload is one <script type="application/json" data-arcscope-payload="ID"> in an output: the library (the two
bundles, the CSS, the wasm and the tokenizer, about 0.6 MB) or one .arcs model (the default one is 8 MB). Each
payload travels once per kernel session, in the first output that needs it; every output's script looks for it in
the page (output.js). The kernel cannot see the page, so it re-sends a payload when the cell that carried it runs
again, since that replaces its output: the cell is known by the id the front end sends with the code (JupyterLab,
Notebook 7, VS Code) or, when it sends none (classic Notebook, nbclient), by its code. A kernel restart starts afresh,
so "Restart & Run All" always saves a notebook that draws when opened anew.
"""

import base64
import gzip
import hashlib
import json
import os
import sys
from functools import lru_cache

from . import files

MIME = {".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm"}


class Payload:
    def __init__(self, payload_id, contents):
        self.id = payload_id
        # {path: {type, gzip}}; base64 and JSON escape nothing that could end the <script> element
        body = json.dumps({"files": contents}, separators=(",", ":"))
        self.html = f'<script type="application/json" data-arcscope-payload="{payload_id}">{body}</script>'


def _packed(data, mime):
    return {"type": mime, "gzip": base64.b64encode(gzip.compress(data, 6, mtime=0)).decode("ascii")}


@lru_cache(maxsize=None)
def library():
    """The library: bundle/element.js and bundle/worker.js, and the lib/ files the manifest lists."""
    manifest = files.manifest()
    contents = {}
    for name in ("element.js", "worker.js"):
        contents[f"bundle/{name}"] = _packed((files.BUNDLE / name).read_bytes(), MIME[".js"])
    for path in manifest["carry"]:
        file = files.LIB / path
        contents[path] = _packed(file.read_bytes(), MIME.get(file.suffix, "application/octet-stream"))
    digest = hashlib.sha256(json.dumps(contents, sort_keys=True).encode()).hexdigest()[:16]
    return Payload(f"arcscope-{manifest['version']}-{digest}", contents)


class ModelPayload(Payload):
    """An .arcs file; key is what the element's model attribute names it by once the worker holds its bytes
    (local:NAME:SIZE, as the tutorial names a picked file: the caption shows NAME)."""

    def __init__(self, path, data):
        self.name = os.path.basename(path)
        self.key = f"local:{self.name}:{len(data)}"
        super().__init__(f"model-{hashlib.sha256(data).hexdigest()[:16]}",
                         {"model": _packed(data, "application/octet-stream")})


@lru_cache(maxsize=8)
def _model(path, _size, _mtime):
    with open(path, "rb") as f:
        return ModelPayload(path, f.read())


def model(path):
    """The payload of the .arcs file at path, read again when the file changed."""
    stat = os.stat(path)
    return _model(os.path.abspath(path), stat.st_size, stat.st_mtime_ns)


# payload id -> (execution, cell) of the output that carried it in this kernel session
_carried = {}


def _running():
    """(execution, cell) of the code running now: the execute request's message id, and its cell's id or, when the
    front end sends none, its code. (None, None) outside a kernel."""
    ipython = sys.modules.get("IPython")  # a kernel has imported it; anywhere else there is no cell to know
    get_ipython = getattr(ipython, "get_ipython", None)
    kernel = getattr(get_ipython(), "kernel", None) if get_ipython else None
    get_parent = getattr(kernel, "get_parent", None)
    parent = get_parent("shell") if get_parent else getattr(kernel, "_parent_header", None)
    if not parent:
        return None, None
    execution = (parent.get("header") or {}).get("msg_id")
    cell = (parent.get("metadata") or {}).get("cellId") or (parent.get("content") or {}).get("code")
    return execution, cell


def carry(payload):
    """Whether the output being written now must carry payload, and if so notes that it does."""
    execution, cell = _running()
    before = _carried.get(payload.id)
    if before is not None and (before[1] != cell or before[0] == execution or cell is None):
        return False
    _carried[payload.id] = (execution, cell)
    return True
