"""Where the package's files are: the library's self-host folder (lib/) and the notebook bundles (bundle/), both
laid in by the wheel (scripts/wheel.py) from what scripts/package.mjs builds."""

import json
from functools import lru_cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
LIB = PACKAGE / "lib"        # the self-host folder's lib/: the element, the worker, the wasm, the tokenizer, the model
BUNDLE = PACKAGE / "bundle"  # element.js, worker.js and notebook.json (scripts/notebook-bundles.mjs)
DEFAULT_MODEL = LIB / "models" / "shakespeare-4l.q8.arcs"


@lru_cache(maxsize=None)
def manifest():
    """notebook.json: {version, carry: [lib/ paths the library's payload holds], attributes: [<arc-scope>'s attribute
    names], words: {attribute: [the words it takes]}}."""
    path = BUNDLE / "notebook.json"
    if not path.is_file():
        raise RuntimeError(
            f"arcscope: {path} is missing, so this copy of the package cannot draw: install the wheel that "
            "./scripts/package.sh writes (dist/arcscope-<version>-py3-none-any.whl), not the source folder"
        )
    return json.loads(path.read_text(encoding="utf-8"))
