"""arcscope.show, attention and save_html as installed in the venv: what each accepts (nested lists, numpy, torch,
TransformerLens's stacked pattern, Hugging Face's output_attentions tuple), what reaches the element (the data in
the output, decoded back here), and the errors bad input gets before anything is drawn.
Run in the venv: build/jupyter/venv/bin/python -m unittest discover -s tests/jupyter"""

import base64
import json
import re
import subprocess
import tempfile
import unittest
from array import array
from pathlib import Path

import numpy as np
import torch

import arcscope


def spec_of(figure):
    """The spec the output's script receives: {attributes, model, data} (figure.py's arcscopeOutput call)."""
    html = figure.html()
    call = html[html.rindex("arcscopeOutput(") + len("arcscopeOutput("):]
    return json.loads(call[:call.rindex(");\n})();</script>")])


def drawn_values(figure):
    spec = spec_of(figure)
    values = array("f")
    values.frombytes(base64.b64decode(spec["data"]["attention"]))
    return spec["data"]["shape"], np.array(values).reshape(spec["data"]["shape"])


def causal(L, H, T, seed=0):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(L, H, T, T))
    scores[..., np.triu_indices(T, 1)[0], np.triu_indices(T, 1)[1]] = -np.inf
    p = np.exp(scores - scores.max(-1, keepdims=True))
    return p / p.sum(-1, keepdims=True)


TOKENS = ["The", " cat", " sat", " down"]


class Attention(unittest.TestCase):
    def test_every_form_reaches_the_element_as_the_same_weights(self):
        p = causal(2, 3, 4)
        forms = {
            "numpy [L, H, T, T]": p,
            "nested lists": p.tolist(),
            "torch float16": torch.tensor(p, dtype=torch.float16),
            "Hugging Face tuple of [1, H, T, T]": tuple(torch.tensor(p[l][None]) for l in range(2)),
            "TransformerLens stacked [L, 1, H, T, T]": torch.tensor(p[:, None]),
        }
        for name, form in forms.items():
            shape, values = drawn_values(arcscope.attention(TOKENS, form))
            self.assertEqual(shape, [2, 3, 4, 4], name)
            tolerance = 1e-3 if "float16" in name else 1e-7
            self.assertLess(np.abs(values - p).max(), tolerance, name)

    def test_fewer_axes_are_one_layer_and_one_head(self):
        p = causal(1, 1, 4)
        self.assertEqual(drawn_values(arcscope.attention(TOKENS, p[0]))[0], [1, 1, 4, 4])
        self.assertEqual(drawn_values(arcscope.attention(TOKENS, p[0, 0].tolist()))[0], [1, 1, 4, 4])

    def test_layer_and_head_become_attributes(self):
        spec = spec_of(arcscope.attention(TOKENS, causal(2, 3, 4), layer=1, head="mean"))
        self.assertEqual(spec["attributes"], {"layer": "1", "head": "mean"})
        self.assertIsNone(spec["model"])  # no worker, no wasm, no model

    def test_bad_input_is_refused_saying_what_was_expected(self):
        p = causal(2, 3, 4)
        nan = p.copy()
        nan[1, 2, 3, 0] = np.nan
        cases = [
            (lambda: arcscope.attention(TOKENS, p[:, :, :3]), ValueError, r"query and key, must be equal"),
            (lambda: arcscope.attention(TOKENS[:3], p), ValueError, r"for 4 tokens, but 3 tokens were given"),
            (lambda: arcscope.attention(TOKENS, nan), ValueError, r"pattern\[1\]\[2\]\[3\]\[0\] .* not a finite number"),
            (lambda: arcscope.attention(TOKENS, p * 2), ValueError, r"outside 0 to 1"),
            (lambda: arcscope.attention(TOKENS, [[1, 0], [0.5]]), ValueError, r"ragged"),
            (lambda: arcscope.attention(TOKENS, [["a"]]), TypeError, r"not a number"),
            (lambda: arcscope.attention("The cat", p), TypeError, r"tokens must be a list of str"),
            (lambda: arcscope.attention([1, 2, 3, 4], p), TypeError, r"tokens\[0\] is 1"),
            (lambda: arcscope.attention(TOKENS, {"a": 1}), TypeError, r"pattern must be an array"),
            (lambda: arcscope.attention(TOKENS, np.zeros((1, 1, 1, 1, 4, 4))), ValueError, r"give \[layer, head, query, key\]"),
            (lambda: arcscope.attention(TOKENS, torch.tensor(np.stack([p, p], 1))), ValueError, r"batch of 2"),
            (lambda: arcscope.attention(TOKENS, tuple(torch.tensor(np.stack([p[l], p[l]])) for l in range(2))),
             ValueError, r"batch of 2 sequences"),
            (lambda: arcscope.attention(TOKENS, p, layer=2), ValueError, r"layer=2 is not valid: use an integer from 0 to 1"),
            (lambda: arcscope.attention(TOKENS, p, head="all heads"), ValueError, r"'all', 'mean' or 'max'"),
        ]
        for call, error, message in cases:
            with self.subTest(message), self.assertRaisesRegex(error, message):
                call()


class Classes(unittest.TestCase):
    """Whole classes of input, not one example each: None for any argument with a default, any nesting depth, bools
    in every container a pattern comes in."""

    def test_none_for_any_argument_with_a_default_means_that_default(self):
        import inspect
        calls = {"show": (lambda **kw: arcscope.show("To be", **kw)),
                 "attention": (lambda **kw: arcscope.attention(TOKENS, causal(2, 3, 4), **kw))}
        for name, call in calls.items():
            defaults = [p.name for p in inspect.signature(getattr(arcscope, name)).parameters.values()
                        if p.default is not inspect.Parameter.empty]
            self.assertTrue(defaults, name)
            plain = spec_of(call())
            for param in defaults:
                with self.subTest(f"{name}({param}=None)"):
                    given = spec_of(call(**{param: None}))
                    self.assertEqual(given["attributes"], plain["attributes"])
                    self.assertEqual(given["data"], plain["data"])
        # show() takes the element's other attributes too: each None at once, src included, is each one's default.
        every = {a: None for a in arcscope.attributes.names() if a not in ("text", "model")}
        self.assertEqual(spec_of(arcscope.show("To be", **every))["attributes"], spec_of(arcscope.show("To be"))["attributes"])
        with tempfile.TemporaryDirectory() as d:
            named, untitled = Path(d) / "a.html", Path(d) / "b.html"
            arcscope.save_html(named, arcscope.show("To be"))
            arcscope.save_html(untitled, arcscope.show("To be"), title=None)
            self.assertIn("<title>arcscope</title>", untitled.read_text())
            arcscope.save_html(named, arcscope.show("To be"), title="Mine & yours")
            self.assertIn("<title>Mine &amp; yours</title>", named.read_text())
        with self.assertRaisesRegex(TypeError, r"title must be a str \(or None for 'arcscope'\), got int"):
            arcscope.save_html("never.html", arcscope.show("To be"), title=5)

    def test_any_nesting_depth_is_refused_without_recursion(self):
        for depth in (6, 50, 10_000, 1_000_000):
            deep = 0.5
            for _ in range(depth):
                deep = [deep]
            with self.subTest(depth=depth), self.assertRaisesRegex(ValueError, r"nested more than 5 lists deep"):
                arcscope.attention(["a"], deep)
        itself = []
        itself.append(itself)
        with self.assertRaisesRegex(ValueError, r"nested more than 5 lists deep"):
            arcscope.attention(["a"], itself)
        # Five levels is TransformerLens's stacked pattern, as lists: taken.
        self.assertEqual(drawn_values(arcscope.attention(TOKENS, causal(2, 3, 4)[:, None].tolist()))[0], [2, 3, 4, 4])

    def test_bools_are_refused_in_every_container(self):
        mask = np.tril(np.ones((4, 4), dtype=bool))
        forms = {
            "a list of lists": mask.tolist(),
            "a tuple of tuples": tuple(tuple(row) for row in mask.tolist()),
            "a numpy bool array": mask,
            "a numpy bool array [L, H, T, T]": mask[None, None],
            "a torch bool tensor": torch.tensor(mask),
            "a Hugging Face tuple of bool tensors": (torch.tensor(mask[None, None]),),
            "a tuple of numpy bool arrays": (mask[None], mask[None]),
            "numpy bool scalars in a list": [list(row) for row in mask],
        }
        for name, form in forms.items():
            with self.subTest(name), self.assertRaisesRegex(TypeError, r"True|bool"):
                arcscope.attention(TOKENS, form)
        # Numbers that happen to be 0 and 1 are weights.
        self.assertEqual(drawn_values(arcscope.attention(TOKENS, mask.astype(float)))[0], [1, 1, 4, 4])
        self.assertEqual(drawn_values(arcscope.attention(TOKENS, torch.tensor(mask).float()))[0], [1, 1, 4, 4])


class Show(unittest.TestCase):
    def test_attributes_reach_the_element(self):
        spec = spec_of(arcscope.show("To be", layer=0, head="all", mode="matrix", theme="dark", threshold=0.05, topk=0,
                                     sink="shown"))
        self.assertEqual(spec["attributes"], {"text": "To be", "layer": "0", "head": "all", "mode": "matrix",
                                              "theme": "dark", "threshold": "0.05", "topk": "0", "sink": "shown",
                                              "model": "local:shakespeare-4l.q8.arcs:8192384"})
        self.assertEqual(spec["model"]["name"], "shakespeare-4l.q8.arcs")

    def test_another_arcs_file_travels_under_its_own_name(self):
        with tempfile.TemporaryDirectory() as d:
            copy = Path(d) / "mine.q8.arcs"
            copy.write_bytes(Path(arcscope.files.DEFAULT_MODEL).read_bytes())
            spec = spec_of(arcscope.show("To be", model=copy))
        self.assertEqual(spec["attributes"]["model"], "local:mine.q8.arcs:8192384")

    def test_bad_input_is_refused_saying_what_was_expected(self):
        with tempfile.NamedTemporaryFile(suffix=".arcs") as not_a_model:
            not_a_model.write(b"not a model at all, just some bytes long enough")
            not_a_model.flush()
            cases = [
                (lambda: arcscope.show("To be", colour="red"), TypeError, r"unknown attribute 'colour'.*text, model, src"),
                (lambda: arcscope.show("To be", layer=4), ValueError, r"layer=4 is not valid: use an integer from 0 to 3"),
                (lambda: arcscope.show("To be", layer=True), ValueError, r"layer=True"),
                (lambda: arcscope.show("To be", head=-1), ValueError, r"head=-1"),
                (lambda: arcscope.show("To be", mode="graph"), ValueError, r"'arcs', 'matrix' or 'ablation'"),
                (lambda: arcscope.show("To be", threshold=2), ValueError, r"a number from 0 to 1"),
                (lambda: arcscope.show("To be", theme="Dark"), ValueError, r"'auto', 'light' or 'dark'"),
                (lambda: arcscope.show("To be", sink="off"), ValueError, r"sink='off' is not valid: use 'auto', 'shown' or 'hidden'"),
                (lambda: arcscope.show("To be", mode="ablation", answer=" be"), ValueError, r"needs wrong"),
                (lambda: arcscope.show("To be", src="a.json"), TypeError, r"arcscope.attention"),
                (lambda: arcscope.show(""), ValueError, r"text is empty"),
                (lambda: arcscope.show(["To", " be"]), TypeError, r"text must be a str"),
                (lambda: arcscope.show("To be", model="no/such.arcs"), FileNotFoundError, r"is not a file"),
                (lambda: arcscope.show("To be", model=not_a_model.name), ValueError, r"is not an .arcs model file"),
                (lambda: arcscope.show("To be", model=3), TypeError, r"path of an .arcs file"),
            ]
            for call, error, message in cases:
                with self.assertRaisesRegex(error, message):
                    call()


class ShowDecoders(unittest.TestCase):
    """A Llama-layout model converted with Llama 2's real tokenizer files: show() takes it (the element reads its text
    with the tokenizer the file carries); the same model converted without them is refused in words."""

    @classmethod
    def setUpClass(cls):
        root = Path(__file__).resolve().parents[2]
        cls.dir = tempfile.TemporaryDirectory()
        ckpt = Path(cls.dir.name) / "llama"
        subprocess.run(["/usr/bin/python3", str(root / "scripts" / "make_checkpoint.py"), "--arch", "llama", "--out",
                        str(ckpt), "--n-layer", "2", "--n-head", "4", "--n-kv-head", "2", "--n-embd", "64", "--ffn",
                        "96", "--n-ctx", "64", "--vocab", "32000", "--seed", "3"], check=True, capture_output=True)
        cli = str(root / "build" / "native" / "arcscope")
        cls.bare = Path(cls.dir.name) / "bare.q8.arcs"
        subprocess.run([cli, "convert", "--in", str(ckpt), "--out", str(cls.bare), "--dtype", "q8"], check=True,
                       capture_output=True)
        files = root / "node_modules" / "@lenml" / "tokenizer-llama2" / "models"
        for name in ("tokenizer.json", "tokenizer_config.json"):
            (ckpt / name).write_bytes((files / name).read_bytes())
        cls.carried = Path(cls.dir.name) / "tinyllama-shaped.q8.arcs"
        subprocess.run([cli, "convert", "--in", str(ckpt), "--out", str(cls.carried), "--dtype", "q8"], check=True,
                       capture_output=True)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_a_model_that_carries_its_tokenizer_is_shown(self):
        figure = arcscope.show("Once upon a time", model=self.carried, layer=1, head=3)
        spec = spec_of(figure)
        self.assertEqual(spec["attributes"]["model"], f"local:tinyllama-shaped.q8.arcs:{self.carried.stat().st_size}")
        self.assertEqual(spec["attributes"]["head"], "3")
        self.assertIn("(llama), 2 layers x 4 heads", repr(figure))
        with self.assertRaisesRegex(ValueError, r"head=4 is not valid"):
            arcscope.show("Once", model=self.carried, head=4)

    def test_a_model_without_one_is_refused_in_words(self):
        with self.assertRaisesRegex(ValueError, r"is a llama model that carries no tokenizer, so its text cannot be "
                                                r"read: convert it again with the checkpoint's tokenizer.json"):
            arcscope.show("Once upon a time", model=self.bare)

    def test_a_grouped_query_models_pattern_is_drawn_with_every_query_head(self):
        # Hugging Face's output_attentions for a grouped-query model: one [batch, query heads, T, T] per layer (9
        # query heads over 3 key/value heads, as SmolLM2's), each head its own weights.
        pattern = causal(2, 9, 4, seed=5)
        shape, drawn = drawn_values(arcscope.attention(TOKENS, tuple(torch.tensor(p[None]) for p in pattern)))
        self.assertEqual(shape, [2, 9, 4, 4])
        np.testing.assert_array_equal(drawn, pattern.astype(np.float32))


class SaveHtml(unittest.TestCase):
    def test_a_page_carries_each_payload_once(self):
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "figures.html"
            saved = arcscope.save_html(path, arcscope.show("To be"), arcscope.show("or not"),
                                       arcscope.attention(TOKENS, causal(1, 2, 4)))
            page = path.read_text()
        payloads = re.findall(r'data-arcscope-payload="([^"]+)">', page)
        self.assertEqual(len(payloads), 2)
        self.assertEqual(len(set(payloads)), 2)
        self.assertEqual(page.count('class="arcscope-output"'), 3)
        self.assertIn("saved 3 figures", saved._repr_html_())

    def test_it_takes_figures_only(self):
        with self.assertRaisesRegex(TypeError, "figure 0 is a str"):
            arcscope.save_html("x.html", "To be")
        with self.assertRaisesRegex(ValueError, "at least one figure"):
            arcscope.save_html("x.html")


if __name__ == "__main__":
    unittest.main()
