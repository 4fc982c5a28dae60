"""Runs the example notebook (jupyter/examples/arcscope.ipynb) as nbclient runs any notebook, in a kernel of the
venv's Python, and writes to build/jupyter/example/:
  arcscope.ipynb         the notebook with its outputs, as Jupyter would save it
  arcscope.html          the same exported by nbconvert (its default template), to be opened with nothing else
  given.json             what the notebook's attention() cell was given (tokens, pattern), read by a cell run after
                         the notebook's own and left out of both files
  arcscope-figures.html  what its save_html() cell wrote
Run with the venv's Python (tests/jupyter/make_venv.py): build/jupyter/venv/bin/python tests/jupyter/execute_example.py
"""

import copy
import json
import os
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "jupyter" / "examples" / "arcscope.ipynb"
OUT = ROOT / "build" / "jupyter" / "example"
# ipykernel's debugger warns about frozen modules on every start: quiet
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(EXAMPLE, as_version=4)
    probe = nbformat.v4.new_code_cell('import json\nprint(json.dumps({"tokens": tokens, "pattern": pattern.tolist()}))')
    nb.cells.append(probe)
    started = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(OUT)}}).execute()
    seconds = time.perf_counter() - started
    given = "".join(o.get("text", "") for o in nb.cells.pop().outputs)
    (OUT / "given.json").write_text(given)
    nbformat.write(nb, OUT / "arcscope.ipynb")
    body, _ = HTMLExporter().from_notebook_node(copy.deepcopy(nb))
    (OUT / "arcscope.html").write_text(body, encoding="utf-8")
    print(f"execute_example: ran {EXAMPLE.relative_to(ROOT)} in {seconds:.1f} s; arcscope.ipynb "
          f"{(OUT / 'arcscope.ipynb').stat().st_size / 1e6:.2f} MB, arcscope.html "
          f"{(OUT / 'arcscope.html').stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
