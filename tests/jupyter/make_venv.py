"""Makes build/jupyter/venv afresh: python3 -m venv --system-site-packages (Debian's IPython, nbclient, nbconvert,
notebook and numpy/torch show through), the wheel installed offline (pip --no-index: no package index is asked), and
the venv's own kernel spec, so notebooks run by nbclient and the Notebook server started from the venv run their
cells in its Python. The jupyter suite runs in it: build/jupyter/venv/bin/python -m unittest discover -s tests/jupyter
Usage: /usr/bin/python3 tests/jupyter/make_venv.py
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / "build" / "jupyter" / "venv"
VERSION = json.loads((ROOT / "package.json").read_text())["version"]
WHEEL = ROOT / "dist" / f"arcscope-{VERSION}-py3-none-any.whl"


def main():
    if not WHEEL.is_file():
        sys.exit(f"venv: {WHEEL.relative_to(ROOT)} is missing; run ./scripts/package.sh")
    shutil.rmtree(VENV, ignore_errors=True)
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(VENV)], check=True)
    python = str(VENV / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet", str(WHEEL)], check=True)
    quiet = {**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1"}  # ipykernel's debugger warns about frozen modules
    subprocess.run([python, "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3"], check=True,
                   stdout=subprocess.DEVNULL, env=quiet)
    print(f"venv: {VENV.relative_to(ROOT)} with {WHEEL.name} installed offline")


if __name__ == "__main__":
    main()
