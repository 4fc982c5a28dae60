"""Writes dist/arcscope-<version>-py3-none-any.whl, the Python package for Jupyter (jupyter/arcscope/), with the
standard library alone: a wheel is a zip of the package and a .dist-info folder (METADATA, WHEEL, and RECORD with
each file's sha256). Offline, and the same bytes from the same inputs (fixed dates and order). It holds:
  arcscope/*.py, output.js   the package (jupyter/arcscope/)
  arcscope/lib/              the self-host folder's lib/ (dist/arcscope-<version>/lib: scripts/package.mjs)
  arcscope/bundle/           the notebook bundles and notebook.json (build/notebook: scripts/notebook-bundles.mjs)
The version is package.json's. Run by scripts/package.mjs: /usr/bin/python3 scripts/wheel.py
"""

import base64
import hashlib
import json
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: the wheel's bytes depend on its inputs only


def files(version):
    """[(path in the wheel, bytes)], sorted."""
    sources = [(ROOT / "jupyter" / "arcscope", "arcscope"),
               (ROOT / "dist" / f"arcscope-{version}" / "lib", "arcscope/lib"),
               (ROOT / "build" / "notebook", "arcscope/bundle")]
    out = []
    for folder, prefix in sources:
        if not folder.is_dir():
            sys.exit(f"wheel: {folder} is missing; run ./scripts/package.sh")
        for file in sorted(folder.rglob("*")):
            if file.is_file() and "__pycache__" not in file.parts and file.suffix != ".pyc":
                out.append((f"{prefix}/{file.relative_to(folder).as_posix()}", file.read_bytes()))
    if not any(p == "arcscope/bundle/notebook.json" for p, _ in out):
        sys.exit("wheel: build/notebook/notebook.json is missing; run node scripts/notebook-bundles.mjs")
    return sorted(out)


def metadata(manifest, version):
    guide = (ROOT / "docs" / "jupyter.md").read_text(encoding="utf-8")
    return (f"Metadata-Version: 2.1\nName: arcscope\nVersion: {version}\nSummary: {manifest['description']}, in "
            f"Jupyter notebooks\nLicense: {manifest['license']}\nRequires-Python: >=3.8\n"
            f"Description-Content-Type: text/markdown\n\n{guide}").encode()


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def main():
    manifest = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    version = manifest["version"]
    info = f"arcscope-{version}.dist-info"
    entries = files(version) + [
        (f"{info}/METADATA", metadata(manifest, version)),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: arcscope scripts/wheel.py\nRoot-Is-Purelib: true\n"
                          b"Tag: py3-none-any\n"),
        (f"{info}/top_level.txt", b"arcscope\n"),
        (f"{info}/LICENSE", (ROOT / "LICENSE").read_bytes()),
    ]
    record = "\n".join([record_line(p, d) for p, d in entries] + [f"{info}/RECORD,,"]) + "\n"
    entries.append((f"{info}/RECORD", record.encode()))
    out = ROOT / "dist" / f"arcscope-{version}-py3-none-any.whl"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as whl:
        for path, data in entries:
            entry = zipfile.ZipInfo(path, DATE)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(entry, data)
    print(f"wheel: dist/{out.name} ({out.stat().st_size / 1e6:.2f} MB, {len(entries)} files)")


if __name__ == "__main__":
    main()
