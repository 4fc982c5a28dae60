"""The wheel as pip installed it into the fresh venv (make_venv.py): its files and RECORD, the package found in the
venv's site-packages and not in the source tree, and nothing imported beyond the standard library.
Run in the venv: build/jupyter/venv/bin/python -m unittest discover -s tests/jupyter"""

import base64
import hashlib
import json
import subprocess
import sys
import unittest
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION = json.loads((ROOT / "package.json").read_text())["version"]
WHEEL = ROOT / "dist" / f"arcscope-{VERSION}-py3-none-any.whl"
SELF_HOST = ROOT / "dist" / f"arcscope-{VERSION}"


class Wheel(unittest.TestCase):
    def test_record_lists_every_file_with_its_sha256(self):
        with zipfile.ZipFile(WHEEL) as whl:
            names = set(whl.namelist())
            record = whl.read(f"arcscope-{VERSION}.dist-info/RECORD").decode().splitlines()
            listed = set()
            for line in record:
                path, digest, size = line.rsplit(",", 2)
                listed.add(path)
                if path.endswith("/RECORD"):
                    continue
                data = whl.read(path)
                expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual((digest, int(size)), (f"sha256={expected}", len(data)), path)
            self.assertEqual(listed, names)
            metadata = whl.read(f"arcscope-{VERSION}.dist-info/METADATA").decode()
        self.assertIn(f"\nVersion: {VERSION}\n", metadata)
        self.assertNotIn("Requires-Dist", metadata)  # the standard library only

    def test_it_holds_the_self_host_folder(self):
        with zipfile.ZipFile(WHEEL) as whl:
            for file in sorted((SELF_HOST / "lib").rglob("*")):
                if file.is_file():
                    path = f"arcscope/lib/{file.relative_to(SELF_HOST / 'lib').as_posix()}"
                    self.assertEqual(whl.read(path), file.read_bytes(), path)
            for name in ("element.js", "worker.js", "notebook.json"):
                self.assertIn(f"arcscope/bundle/{name}", whl.namelist())

    def test_the_same_inputs_write_the_same_bytes(self):
        before = WHEEL.read_bytes()
        subprocess.run(["/usr/bin/python3", str(ROOT / "scripts" / "wheel.py")], check=True, stdout=subprocess.DEVNULL)
        self.assertEqual(hashlib.sha256(WHEEL.read_bytes()).hexdigest(), hashlib.sha256(before).hexdigest())


class Installed(unittest.TestCase):
    def test_the_package_comes_from_the_venv(self):
        import arcscope
        self.assertTrue(Path(arcscope.__file__).is_relative_to(Path(sys.prefix)), arcscope.__file__)
        self.assertEqual(arcscope.__version__, VERSION)

    def test_drawing_imports_nothing_beyond_the_standard_library(self):
        code = ("import sys, arcscope\n"
                "arcscope.show('To be, or not to be')._repr_html_()\n"
                "arcscope.attention(['a', 'b'], [[1, 0], [0.5, 0.5]])._repr_html_()\n"
                "print(sorted(m for m in ('numpy', 'torch', 'IPython') if m in sys.modules))\n")
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
        self.assertEqual(out.strip(), "[]")


if __name__ == "__main__":
    unittest.main()
