"""Which outputs carry the payloads, in a real kernel of the venv's Python (jupyter_client, as a front end talks to
it): the first output of a session that needs each, again when the cell that carried it runs again, and no other.
A cell is known by the id the front end sends (JupyterLab, Notebook 7, VS Code) or else by its code (classic
Notebook, nbclient). Run in the venv: build/jupyter/venv/bin/python -m unittest discover -s tests/jupyter"""

import os
import re
import unittest

from jupyter_client.manager import start_new_kernel

os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")


class Kernel:
    def __init__(self):
        self.km, self.kc = start_new_kernel(kernel_name="python3")

    def run(self, code, cell_id=None):
        """The payloads each arcscope output of one execution carries: [[ids of the first], [of the second], ...]."""
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False}
        msg = self.kc.session.msg("execute_request", content, metadata={"cellId": cell_id} if cell_id else {})
        self.kc.shell_channel.send(msg)
        outputs = []
        while True:
            reply = self.kc.get_iopub_msg(timeout=300)
            if reply["parent_header"].get("msg_id") != msg["header"]["msg_id"]:
                continue
            kind, c = reply["msg_type"], reply["content"]
            if kind == "error":
                raise AssertionError("\n".join(c["traceback"]))
            if kind in ("display_data", "execute_result") and "text/html" in c["data"]:
                outputs.append(re.findall(r'data-arcscope-payload="([^"]+)">', c["data"]["text/html"]))
            if kind == "status" and c["execution_state"] == "idle":
                return [[p.split("-")[0] for p in o] for o in outputs]

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


BOTH = ["arcscope", "model"]
TWO = "import arcscope\ndisplay(arcscope.show('To be'))\ndisplay(arcscope.show('or not to be'))"


class Carrying(unittest.TestCase):
    def setUp(self):
        self.kernel = Kernel()
        self.addCleanup(self.kernel.close)

    def test_cells_known_by_their_code(self):
        run = self.kernel.run
        self.assertEqual(run(TWO), [BOTH, []])                       # first in the session, once
        self.assertEqual(run("arcscope.attention(['a'], [[1.0]])"), [[]])
        self.assertEqual(run(TWO), [BOTH, []])                       # the carrying cell again: its output is replaced
        self.assertEqual(run("arcscope.show('To be', layer=0)"), [[]])

    def test_cells_known_by_their_id(self):
        run = self.kernel.run
        self.assertEqual(run("import arcscope\narcscope.attention(['a'], [[1.0]])", "c1"), [["arcscope"]])
        self.assertEqual(run("arcscope.show('To be')", "c2"), [["model"]])
        self.assertEqual(run("arcscope.show('To be')", "c3"), [[]])       # the same code in another cell
        self.assertEqual(run("arcscope.show('To be', layer=1)", "c2"), [["model"]])  # c2 edited and run again


if __name__ == "__main__":
    unittest.main()
