"""show(), attention() and save_html(): each figure is an object whose _repr_html_ is the cell's output: a <div> that
the output's script (output.js) fills with a live <arc-scope>, preceded by the payloads this output must carry."""

import base64
import html
import json
import os
import uuid
from functools import lru_cache

from . import attributes, files, model_file, payload, pattern as patterns

FALLBACK = ("arcscope draws here with JavaScript. If this stays, the notebook's outputs are not trusted (classic "
            "Notebook: File &rarr; Trust Notebook, then run the cell again) or this front end does not run the "
            "scripts of outputs.")


@lru_cache(maxsize=None)
def _output_js():
    """output.js without its whole-line comments, which every output would repeat."""
    lines = (files.PACKAGE / "output.js").read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith("//"))


def _script_json(value):
    """JSON that is safe inside a <script> element: no '<', '>' or '&' left to end it."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


class Figure:
    """One <arc-scope>: a live model's (show) or precomputed attention (attention). Display it, or pass it to
    save_html()."""

    def __init__(self, attributes, model=None, data=None, summary=""):
        self.attributes = attributes  # {name: attribute string}
        self.model = model            # payload.ModelPayload, or None for precomputed attention
        self.data = data              # {tokens, shape, attention: base64 float32}, or None
        self.summary = summary

    def payloads(self):
        return [payload.library()] + ([self.model] if self.model else [])

    def html(self, carried=()):
        """The output: the payloads in carried, the element's <div> and the script that draws it."""
        output = f"arcscope-{uuid.uuid4().hex}"
        attrs = dict(self.attributes)
        model = None
        if self.model:
            attrs["model"] = self.model.key
            model = {"payload": self.model.id, "key": self.model.key, "name": self.model.name}
        spec = {"output": output, "library": payload.library().id, "model": model, "attributes": attrs,
                "data": self.data}
        return "".join([
            *(p.html for p in carried),
            f'<div id="{output}" class="arcscope-output" data-arcscope="waiting"><p style="font-family: sans-serif; '
            f'color: #666;">{FALLBACK}</p></div>',
            f"<script>(() => {{\n{_output_js()}\narcscopeOutput({_script_json(spec)});\n}})();</script>",
        ])

    def _repr_html_(self):
        return self.html([p for p in self.payloads() if payload.carry(p)])

    def __repr__(self):
        return f"<arcscope figure: {self.summary}>"


def show(text, model=None, layer=None, head=None, mode="arcs", **attributes_):
    """A live <arc-scope>: the model (the shipped default, or an .arcs file's path) runs on text in the page, in
    WebAssembly, and its attention is drawn. layer, head, mode and the other attributes are the element's
    (docs/embedding.md): layer an integer or 'mean'/'max', head an integer or 'all'/'mean'/'max'."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if not text.strip():
        raise ValueError("text is empty: give the text to run through the model")
    if attributes_.get("src") is not None:
        raise TypeError("show() runs a model on text, and src is precomputed attention: draw that with "
                        "arcscope.attention(tokens, pattern)")
    path = files.DEFAULT_MODEL if model is None else model
    mode = "arcs" if mode is None else mode  # None is each argument's default
    config = model_file.read_config(path)
    if config["tokenizer"] == "none":
        raise ValueError(f"model {os.fspath(path)!r} is a {config['architecture']} model that carries no tokenizer, "
                         "so its text cannot be read: convert it again with the checkpoint's tokenizer.json beside "
                         "its config.json (arcscope convert carries it into the file)")
    attrs = attributes.element_attributes({"text": text, "layer": layer, "head": head, "mode": mode, **attributes_},
                                          layers=config["n_layer"], heads=config["n_head"])
    if attrs.get("mode") == "ablation":
        missing = [n for n in ("answer", "wrong") if n not in attrs]
        if missing:
            raise ValueError(f"mode='ablation' needs {' and '.join(missing)}: one token each (answer=' dog', "
                             "wrong=' cat'), the metric being logit(answer) - logit(wrong) after the text")
    shown = text if len(text) <= 40 else text[:37] + "..."
    return Figure(attrs, model=payload.model(path),
                  summary=f"show({shown!r}) on {os.path.basename(path)} ({config['architecture']}), "
                          f"{config['n_layer']} layers x {config['n_head']} heads")


def attention(tokens, pattern, layer=None, head=None):
    """Precomputed attention drawn by <arc-scope> without a model: tokens, each token's text (as the tokenizer split
    it), and pattern, the weights (pattern.py says which forms)."""
    if isinstance(tokens, str) or not isinstance(tokens, (list, tuple)):
        raise TypeError(f"tokens must be a list of str, each token's text (TransformerLens: model.to_str_tokens(text); "
                        f"Hugging Face: [tokenizer.decode([i]) for i in ids]); got {type(tokens).__name__}")
    bad = next((i for i, t in enumerate(tokens) if not isinstance(t, str)), None)
    if bad is not None:
        raise TypeError(f"tokens[{bad}] is {tokens[bad]!r}: each token must be its text, a str")
    if not tokens:
        raise ValueError("tokens is empty: give each token's text")
    values, shape = patterns.read(pattern, len(tokens))
    attrs = attributes.element_attributes({"layer": layer, "head": head}, layers=shape[0], heads=shape[1],
                                          caller="attention")
    data = {"tokens": list(tokens), "shape": shape,
            "attention": base64.b64encode(values.tobytes()).decode("ascii")}
    return Figure(attrs, data=data, summary=f"attention over {len(tokens)} tokens, shape {shape}")


class SavedPage:
    """What save_html() wrote: its path and size; shown in a notebook as a line saying so."""

    def __init__(self, path, size, count):
        self.path, self.size, self.count = path, size, count

    def _repr_html_(self):
        return (f'<p style="font-family: sans-serif;">arcscope: saved {self.count} figure'
                f'{"s" if self.count != 1 else ""} to <code>{html.escape(self.path)}</code> '
                f'({self.size / 1e6:.1f} MB): it draws in a browser opened on the file alone, offline.</p>')

    def __repr__(self):
        return f"<arcscope page {self.path!r}: {self.count} figures, {self.size} bytes>"


def save_html(path, *figures, title=None):
    """Writes a standalone HTML page of figures (from show() and attention()), carrying the payloads they need once.
    title: the page's title, "arcscope" when None."""
    if title is None:
        title = "arcscope"
    if not isinstance(title, str):
        raise TypeError(f"title must be a str (or None for 'arcscope'), got {type(title).__name__}")
    if not figures:
        raise ValueError("save_html(path, *figures) needs at least one figure from arcscope.show() or "
                         "arcscope.attention()")
    for i, f in enumerate(figures):
        if not isinstance(f, Figure):
            raise TypeError(f"figure {i} is a {type(f).__name__}: pass what arcscope.show() or arcscope.attention() "
                            "returns")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or a pathlib.Path, got {type(path).__name__}")
    seen, body = set(), []
    for f in figures:
        carried = [p for p in f.payloads() if p.id not in seen]
        seen.update(p.id for p in carried)
        body.append(f.html(carried))
    page = (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f'</head>\n<body>\n' + "\n".join(body) + "\n</body></html>\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    return SavedPage(os.fspath(path), os.path.getsize(path), len(figures))
