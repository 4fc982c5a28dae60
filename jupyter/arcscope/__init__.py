"""arcscope in Jupyter: a model's attention drawn live in a cell's output by the <arc-scope> element, the model (GPT-2,
or a GPT-NeoX, Llama, Qwen2 or Qwen3 converted with its tokenizer) running in the page in WebAssembly, or attention
computed elsewhere (TransformerLens, Hugging Face, grouped-query models' patterns with every query head) drawn by the
same element.

    import arcscope
    arcscope.show("The trophy didn't fit in the bag because it was too big", layer=1, head=0)
    arcscope.show("Once upon a time", model="smollm2-135m.q16.arcs")   # a file arcscope convert wrote
    arcscope.attention(tokens, pattern)          # [L, H, T, T], [H, T, T] or [T, T] weights
    arcscope.save_html("figure.html", arcscope.show("To be, or not to be"))

Needs the standard library only; numpy arrays and torch tensors are read when given. The guide is docs/jupyter.md.
"""

from .figure import Figure, attention, save_html, show
from .files import manifest as _manifest

__version__ = _manifest()["version"]
__all__ = ["show", "attention", "save_html", "Figure", "__version__"]
