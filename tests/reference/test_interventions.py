"""Interventions (issue 16): python/arcscope_reference/interventions_reference.py checked against itself where the answer is known, then
the engine's `arcscope patch`, `ablate`, `lens` and `attribute` against it.

Self-checks (no engine): zero-ablating a head is silencing it in the plain model (python/arcscope_reference/head_ablation.py), mean-
ablating it is a constant added to c_proj's bias, ablating an MLP is zeroing its c_proj; patching hook_resid_pre at
every position recovers the clean metric exactly, at a position where the prompts agree (or before they first differ)
changes nothing; the direct logit attribution's parts add up to the logit; the logit lens's last layer is the model's
own softmax; on the default model, zero-ablating layer 1 head 0 (the taught induction head) breaks the copy.

Engine vs reference (skipped unless build/native/arcscope lists the four commands):
  GPT-2-small-shaped random checkpoint (test_hooks.py's: 12 layers, 12 heads, n_embd 768, made once in the same
  folder) as f32: every compared value within 1e-4 of the reference, relative to its output's scale; as q8 (int8
  weights and activations, against the reference on the f32 weights): bounds about 3x the differences measured. A
  GPT-2-small pass takes the reference about 0.75 s here (netlib BLAS), so the 144-cell and 192-cell patching grids
  and the 144-cell ablation grids are checked at sampled cells (the engine's largest |value| and some at random),
  besides the resid cells that must be exactly 0 (positions before the first difference, and at layer 0 where the
  prompts agree); clean, corrupted and baseline metrics, the whole lens and the whole attribution are compared.
  Default model (models/shakespeare-4l.q8.arcs through python/arcscope_reference/arcs_file.py, its q8 weights dequantized): every cell
  of every grid, on the induction line.
Prints the largest difference for each output.
Run: /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_interventions.py
"""
import copy
import json
import math
import os
import subprocess
import tempfile
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

# support first: it puts python/, which holds the package arcscope_reference, on the path
from support import CLI, DEFAULT_MODEL, sh, shipped_model as default_model
from arcscope_reference import bpe_tokenizer
from arcscope_reference import gpt2_reference as ref
from arcscope_reference import head_ablation
from arcscope_reference import hooked_reference
from arcscope_reference import interventions_reference as iv
from small_shape import SHAPE, small_shape_files

COMMANDS = ("patch", "ablate", "lens", "attribute")

F32_TOLERANCE = 1e-4  # relative to the output's scale (largest |value|, at least 1); probabilities absolute
# q8 bounds, about 3x the largest differences measured (the printed figures). metric: logit differences, relative to
# the largest |metric| compared (normalized effects likewise, see compare_patch); prob: absolute; part: attribution,
# relative to the largest of |logit| and |part|.
# The GPT-2-small shape's q8 engine (int8 weights, 16-bit activations) against the reference on the f32 weights:
# metric 1.2e-2, part 1.7e-3, prob 1.5e-6 (its lens saturates: nearly every probability is ~0 or ~1). With 8-bit
# activations, over four inputs, they were 8.2e-2, 2.4e-2 and 1.0e-3: the bounds keep room for other inputs.
Q8_SMALL_SHAPE = {"metric": 0.06, "prob": 1e-3, "part": 0.02}
# The default model's q8 engine against the reference on the same (dequantized) weights, so activation rounding alone:
# metric 2.4e-5, prob 1.5e-4, part 2.5e-5 on the induction line (INDUCTION_SEED), metric 1.5e-4 on the IOI prompt;
# with 8-bit activations 8.0e-3, 1.9e-2 and 7.3e-3 on the induction line.
Q8_DEFAULT = {"metric": 5e-4, "prob": 5e-4, "part": 1e-4}

# The induction example's tokens are drawn from this passage (words the default model has read).
PASSAGE = ("To be, or not to be, that is the question: Whether 'tis nobler in the mind to suffer The slings and arrows "
           "of outrageous fortune, Or to take arms against a sea of troubles And by opposing end them. To die: to "
           "sleep; No more; and by a sleep to say we end The heart-ache and the thousand natural shocks That flesh is "
           "heir to.")
INDUCTION_SEED = 4  # the line the engine comparisons use; the ablation test also prints ten others


def engine_commands():
    if not os.path.exists(CLI):
        return set()
    out = subprocess.run([CLI, "help"], capture_output=True, text=True)
    text = out.stdout + out.stderr
    return {c for c in COMMANDS if f"arcscope {c} " in text}


HAVE = engine_commands()
ENGINE = unittest.skipUnless(set(COMMANDS) <= HAVE,
                             f"build/native/arcscope lacks {', '.join(sorted(set(COMMANDS) - HAVE)) or '-'}")


def engine(command, model, *args):
    """`arcscope COMMAND --model MODEL ARGS --out F` -> the JSON it wrote."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        sh(CLI, command, "--model", model, *args, "--out", out)
        with open(out) as f:
            return json.load(f)


def id_list(ids):
    return ",".join(map(str, ids))


_SMALL_SHAPE = {}


def small_shape_model():
    """The checkpoint in the PyTorch reference (loaded once per process)."""
    if "model" not in _SMALL_SHAPE:
        _SMALL_SHAPE["model"] = ref.load(small_shape_files()[0])
    return _SMALL_SHAPE["model"]


def induction_example(tokenizer, seed):
    """12 distinct tokens of PASSAGE, written twice without the second copy's last one: the last position should
    copy it (answer). wrong: another token of the passage; corrupted: the first copy with its answer put as wrong."""
    candidates = sorted(set(tokenizer.encode(PASSAGE)))
    pick = np.random.default_rng(seed).choice(candidates, 13, replace=False).tolist()
    line, wrong = pick[:12], pick[12]
    return {"ids": line + line[:-1], "corrupted": line[:-1] + [wrong] + line[:-1], "answer": line[-1],
            "wrong": wrong, "line": line}


def tiny_model(seed=3):
    torch.manual_seed(0)
    return ref.GPT2(ref.GPT2Config(3, 4, 32, 32, 300)).init_weights(seed, noisy=True).eval()


# ---------------------------------------------------------------- the reference against itself

class ReferenceSelfChecks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)  # small tensors: a second thread only waits here
        cls.model = tiny_model()
        cls.ids = [5, 17, 42, 99, 7, 250, 3, 64, 128, 11]
        cls.corrupted = list(cls.ids)
        cls.corrupted[4] = 201  # one position differs

    def forward(self, model, ids):
        with torch.no_grad():
            return model(torch.tensor(ids))[0]

    def test_zero_ablating_a_head_is_silencing_it(self):
        logits = iv.ablate_heads(self.model, self.ids, [(1, 2)])
        handle = head_ablation.silence(self.model, 1, 2)
        try:
            silenced = self.forward(self.model, self.ids)
        finally:
            handle.remove()
        torch.testing.assert_close(logits, silenced, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(iv.ablate_heads(self.model, self.ids, [2], layer=1), logits, rtol=0, atol=0)

        _, clean = hooked_reference.run(self.model, self.ids)
        _, ablated = hooked_reference.run(self.model, self.ids, iv.ablation_hooks(self.model, [(1, 2)]))
        self.assertTrue(torch.equal(ablated["blocks.1.attn.hook_z"][:, 2],
                                    torch.zeros_like(clean["blocks.1.attn.hook_z"][:, 2])))
        for h in (0, 1, 3):
            self.assertTrue(torch.equal(ablated["blocks.1.attn.hook_z"][:, h], clean["blocks.1.attn.hook_z"][:, h]))
        for name in clean:  # everything before layer 1's attention output is untouched
            if name.startswith("blocks.0.") or name in ("blocks.1.hook_resid_pre", "blocks.1.attn.hook_pattern",
                                                        "blocks.1.attn.hook_q", "blocks.1.attn.hook_k",
                                                        "blocks.1.attn.hook_v"):
                self.assertTrue(torch.equal(ablated[name], clean[name]), name)
        self.assertFalse(torch.equal(ablated["blocks.1.hook_attn_out"], clean["blocks.1.hook_attn_out"]))

    def test_mean_ablating_a_head_is_a_constant_in_c_proj_bias(self):
        _, cache = hooked_reference.run(self.model, self.ids)
        d = self.model.cfg.n_embd // self.model.cfg.n_head
        edited = copy.deepcopy(self.model)
        proj = edited.h[2].attn.c_proj
        with torch.no_grad():
            mean_z = cache["blocks.2.attn.hook_z"][:, 1].mean(dim=0)
            proj.bias += mean_z @ proj.weight[d:2 * d]
            proj.weight[d:2 * d] = 0
        torch.testing.assert_close(iv.ablate_heads(self.model, self.ids, [(2, 1)], kind="mean"),
                                   self.forward(edited, self.ids), rtol=1e-5, atol=1e-5)

    def test_the_mean_is_over_the_same_run(self):
        # Layer 0's ablation changes what reaches layer 2; layer 2's head takes the mean of that, not of the clean run.
        hooks = iv.ablation_hooks(self.model, [(0, 0), (2, 3)], kind="mean")
        _, both = hooked_reference.run(self.model, self.ids, hooks)
        _, first = hooked_reference.run(self.model, self.ids, iv.ablation_hooks(self.model, [(0, 0)], kind="mean"))
        z = both["blocks.2.attn.hook_z"][:, 3]
        torch.testing.assert_close(z, first["blocks.2.attn.hook_z"][:, 3].mean(0).expand_as(z), rtol=0, atol=0)

    def test_ablating_an_mlp_is_zeroing_its_output_projection(self):
        edited = copy.deepcopy(self.model)
        with torch.no_grad():
            edited.h[1].mlp.c_proj.weight.zero_()
            edited.h[1].mlp.c_proj.bias.zero_()
        torch.testing.assert_close(iv.ablate_mlp(self.model, self.ids, 1), self.forward(edited, self.ids),
                                   rtol=1e-5, atol=1e-5)

    def test_the_metric_is_the_plain_models_logit_difference(self):
        plain = self.forward(self.model, self.ids)
        for answer, wrong in ((1, 2), (250, 7)):
            self.assertAlmostEqual(iv.metric(self.model, self.ids, answer, wrong),
                                   iv.logit_diff(plain, answer, wrong), delta=1e-5)

    def test_patching_the_whole_residual_stream_recovers_the_clean_run(self):
        answer, wrong = 9, 31
        _, clean_cache = hooked_reference.run(self.model, self.ids)
        clean = iv.metric(self.model, self.ids, answer, wrong)
        corrupted = iv.metric(self.model, self.corrupted, answer, wrong)
        self.assertNotEqual(clean, corrupted)
        for l in range(self.model.cfg.n_layer):
            hooks = iv.patch_hooks(clean_cache, f"blocks.{l}.hook_resid_pre")
            self.assertEqual(iv.metric(self.model, self.corrupted, answer, wrong, hooks), clean, f"layer {l}")

    def test_patching_sweep_where_the_answer_is_known(self):
        answer, wrong = 9, 31
        sweep = iv.patching_sweep(self.model, self.ids, self.corrupted, answer, wrong)
        L, H, T = self.model.cfg.n_layer, self.model.cfg.n_head, len(self.ids)
        self.assertEqual((len(sweep["heads"]), len(sweep["heads"][0])), (L, H))
        self.assertEqual((len(sweep["resid"]), len(sweep["resid"][0])), (L, T))
        self.assertAlmostEqual(sweep["clean"], iv.logit_diff(self.forward(self.model, self.ids), answer, wrong),
                               delta=1e-5)
        self.assertAlmostEqual(sweep["corrupted"],
                               iv.logit_diff(self.forward(self.model, self.corrupted), answer, wrong), delta=1e-5)
        # the only position that differs carries all of it at layer 0 (within the rounding of the two code paths:
        # the patched pass and the clean one are the same sums only if the BLAS splits them the same way)
        self.assertAlmostEqual(sweep["resid"][0][4], 1.0, delta=1e-3)
        for p in range(T):
            if p != 4:
                self.assertEqual(sweep["resid"][0][p], 0.0, p)  # same token, same residual
        for l in range(L):
            for p in range(4):
                self.assertEqual(sweep["resid"][l][p], 0.0, (l, p))  # before the difference: causal, identical
        # one head cell by hand: the patched run holds the clean head and the corrupted others
        _, clean_cache = hooked_reference.run(self.model, self.ids)
        _, corrupted_cache = hooked_reference.run(self.model, self.corrupted)
        _, patched = hooked_reference.run(self.model, self.corrupted,
                                          iv.patch_hooks(clean_cache, "blocks.2.attn.hook_z", head=1))
        z = patched["blocks.2.attn.hook_z"]
        self.assertTrue(torch.equal(z[:, 1], clean_cache["blocks.2.attn.hook_z"][:, 1]))
        self.assertTrue(torch.equal(z[:, [0, 2, 3]], corrupted_cache["blocks.2.attn.hook_z"][:, [0, 2, 3]]))
        m = iv.metric(self.model, self.corrupted, answer, wrong,
                      iv.patch_hooks(clean_cache, "blocks.2.attn.hook_z", head=1))
        self.assertEqual(sweep["heads"][2][1], (m - sweep["corrupted"]) / (sweep["clean"] - sweep["corrupted"]))
        raw = iv.patching_sweep(self.model, self.ids, self.corrupted, answer, wrong, normalize=False,
                                cells={"heads": [(2, 1)], "resid": [(1, 6)]})
        self.assertEqual(raw["heads"][2][1], m)
        self.assertIsNone(raw["heads"][0][0])
        self.assertAlmostEqual((raw["resid"][1][6] - raw["corrupted"]) / (raw["clean"] - raw["corrupted"]),
                               sweep["resid"][1][6], delta=1e-12)

    def test_ablation_sweep_is_each_head_alone(self):
        sweep = iv.ablation_sweep(self.model, self.ids, 9, 31, kind="mean")
        self.assertEqual(sweep["baseline"], iv.metric(self.model, self.ids, 9, 31))
        self.assertAlmostEqual(sweep["heads"][1][3],
                               iv.logit_diff(iv.ablate_heads(self.model, self.ids, [(1, 3)], "mean"), 9, 31),
                               delta=1e-5)

    def test_bad_input_names_the_problem(self):
        m = self.model
        with self.assertRaisesRegex(ValueError, "same length"):
            iv.patching_sweep(m, self.ids, self.ids[:-1], 1, 2)
        with self.assertRaisesRegex(ValueError, "head 4 of layer 1"):
            iv.ablate_heads(m, self.ids, [(1, 4)])
        with self.assertRaisesRegex(ValueError, "layer 3"):
            iv.ablate_mlp(m, self.ids, 3)
        with self.assertRaisesRegex(ValueError, "ablation 'half'"):
            iv.ablation_sweep(m, self.ids, 1, 2, kind="half")
        with self.assertRaisesRegex(ValueError, "answer id 300"):
            iv.ablation_sweep(m, self.ids, 300, 2)
        with self.assertRaisesRegex(ValueError, "token id 999"):
            iv.logit_lens(m, [1, 999])
        with self.assertRaisesRegex(ValueError, "position 10"):
            iv.direct_logit_attribution(m, self.ids, 1, position=10)

    def test_attribution_adds_up_to_the_logit(self):
        _, cache = hooked_reference.run(self.model, self.ids)
        for token, position in ((9, -1), (123, 3), (299, 0)):
            dla = iv.direct_logit_attribution(self.model, self.ids, token, position)
            self.assertEqual(len(dla["parts"]), 1 + 3 * (4 + 2) + 1)
            self.assertAlmostEqual(iv.residual_of_attribution(dla), 0, delta=1e-5)
            # per layer, the heads and the bias are the attention output's share (centring is linear)
            x = cache["blocks.2.hook_resid_post"][position].double()
            scale = torch.sqrt(x.var(unbiased=False) + self.model.cfg.eps)
            direction = self.model.ln_f.weight.double() * self.model.wte.weight[token].double()
            for l in range(3):
                out = cache[f"blocks.{l}.hook_attn_out"][position].double()
                share = float((out - out.mean()) / scale @ direction)
                parts = sum(dla["parts"][f"blocks.{l}.attn.head.{h}"] for h in range(4))
                self.assertAlmostEqual(parts + dla["parts"][f"blocks.{l}.attn.bias"], share, delta=1e-5)

    def test_the_lens_last_layer_is_the_models_output(self):
        probs = iv.lens_probs(self.model, self.ids)
        logits, _ = hooked_reference.run(self.model, self.ids)
        self.assertTrue(torch.equal(probs[-1], torch.softmax(logits, dim=-1)))
        plain = torch.softmax(self.forward(self.model, self.ids), dim=-1)
        lens = iv.logit_lens(self.model, self.ids, k=3, target_id=77)
        self.assertEqual(len(lens["top"]), 3)
        values, indices = torch.topk(plain, 3, dim=-1)
        for t in range(len(self.ids)):
            self.assertEqual([e["id"] for e in lens["top"][-1][t]], indices[t].tolist())
            np.testing.assert_allclose([e["prob"] for e in lens["top"][-1][t]], values[t].numpy(), atol=1e-6)
            self.assertAlmostEqual(lens["target"][-1][t], float(plain[t, 77]), delta=1e-6)
            for l in range(3):
                p = [e["prob"] for e in lens["top"][l][t]]
                self.assertEqual(p, sorted(p, reverse=True))
        self.assertIsNone(iv.logit_lens(self.model, self.ids, k=1)["target"])


class SmallShapeSelfChecks(unittest.TestCase):
    """The attribution on the GPT-2-small-shaped checkpoint: its parts add up to the logit there too."""

    def test_attribution_adds_up_to_the_logit(self):
        torch.set_num_threads(1)
        model = small_shape_model()
        ids = np.random.default_rng(11).integers(0, SHAPE["vocab"], 16).tolist()
        dla = iv.direct_logit_attribution(model, ids, 1234, -1)
        residual = iv.residual_of_attribution(dla)
        print(f"\n  GPT-2-small shape: logit {dla['logit']:.6f}, parts sum to it within {residual:.2e} "
              f"({len(dla['parts'])} parts, largest |part| {max(map(abs, dla['parts'].values())):.3f})")
        self.assertLessEqual(abs(residual), 1e-4 * max(1.0, abs(dla["logit"])))


class OnDefaultModel(unittest.TestCase):
    """Set-up of the tests on the default model: its dequantized weights in the reference, and the tokenizer."""

    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)
        cls.model = default_model()
        cls.tokenizer = bpe_tokenizer.Tokenizer()


class DefaultModelInduction(OnDefaultModel):
    """On the default model the repeated line is copied through layer 1 head 0; ablating it breaks the copy."""

    def test_ablating_the_induction_head_breaks_the_copy(self):
        ex = induction_example(self.tokenizer, INDUCTION_SEED)
        ids, answer, wrong = ex["ids"], ex["answer"], ex["wrong"]
        sweep = iv.ablation_sweep(self.model, ids, answer, wrong, kind="zero")
        logits, _ = hooked_reference.run(self.model, ids)
        p_before = float(torch.softmax(logits[-1], -1)[answer])
        p_after = float(torch.softmax(iv.ablate_heads(self.model, ids, [(1, 0)])[-1], -1)[answer])
        mean_ablated = iv.logit_diff(iv.ablate_heads(self.model, ids, [(1, 0)], kind="mean"), answer, wrong)
        others = {(l, h): m for l, row in enumerate(sweep["heads"]) for h, m in enumerate(row) if (l, h) != (1, 0)}
        print(f"\n  line {self.tokenizer.decode(ex['line'])!r} twice, answer {self.tokenizer.decode([answer])!r} vs "
              f"{self.tokenizer.decode([wrong])!r}: metric {sweep['baseline']:.3f}, layer 1 head 0 zero-ablated "
              f"{sweep['heads'][1][0]:.3f}, mean-ablated {mean_ablated:.3f}; "
              f"P(answer) {p_before:.4f} -> {p_after:.6f}; "
              f"the other heads' lowest {min(others.values()):.3f} at {min(others, key=others.get)}")
        self.assertGreater(sweep["baseline"] - sweep["heads"][1][0], 5.0)
        self.assertLess(sweep["heads"][1][0], min(others.values()))
        self.assertLess(p_after, p_before / 100)

        patch = iv.patching_sweep(self.model, ids, ex["corrupted"], answer, wrong, cells={"heads": [(1, 0)]})
        print(f"  patching layer 1 head 0 from the clean line into the corrupted one: "
              f"effect {patch['heads'][1][0]:.3f} "
              f"(clean {patch['clean']:.3f}, corrupted {patch['corrupted']:.3f})")
        self.assertGreater(patch["heads"][1][0], 0.8)

        drops = []
        for seed in range(10):
            ex = induction_example(self.tokenizer, seed)
            base = iv.metric(self.model, ex["ids"], ex["answer"], ex["wrong"])
            ablated = iv.metric(self.model, ex["ids"], ex["answer"], ex["wrong"],
                                iv.ablation_hooks(self.model, [(1, 0)]))
            drops.append(base - ablated)
        print("  the drop on ten other lines (seeds 0..9): " + ", ".join(f"{d:.1f}" for d in drops))
        self.assertGreater(float(np.mean(drops)), 3.0)
        self.assertGreaterEqual(sum(d > 0 for d in drops), 8)


# ---------------------------------------------------------------- the engine against the reference

class Worst:
    """The largest difference per output, relative to the output's scale, and its check."""

    def __init__(self, test, title):
        self.test, self.title, self.rows = test, title, []

    def add(self, output, engine_values, reference_values, scale, bound):
        a = np.asarray(engine_values, dtype=np.float64).ravel()
        b = np.asarray(reference_values, dtype=np.float64).ravel()
        self.test.assertEqual(a.shape, b.shape, output)
        diff = float(np.abs(a - b).max()) if a.size else 0.0
        scale = max(1.0, float(scale))
        self.rows.append((output, diff / scale, diff, a.size, bound))
        return diff / scale

    def report_and_check(self):
        print(f"\n  {self.title}: largest difference per output (relative to the output's scale; absolute; values)")
        for output, rel, diff, n, bound in self.rows:
            bounded = "" if bound is None else f"  (bound {bound:.2g})"
            print(f"    {output:46s} {rel:.2e}  {diff:.2e}  {n:4d}{bounded}")
        for output, rel, _, _, bound in self.rows:
            if bound is not None:
                self.test.assertLessEqual(rel, bound, output)


def compare_patch(worst, eng, ref_sweep, cells, bound):
    """Raw metrics (clean, corrupted, each patched cell's m from its effect), relative to the largest of clean and
    corrupted; and the normalized effects where the gap m_clean - m_corrupted is at least 5% of that, relative to
    scale / |gap| (the factor by which normalizing magnifies a metric's error), under the same bound."""
    scale = max(abs(ref_sweep["clean"]), abs(ref_sweep["corrupted"]))
    worst.add("patch clean, corrupted metric", [eng["clean"], eng["corrupted"]],
              [ref_sweep["clean"], ref_sweep["corrupted"]], scale, bound)
    gap_e, gap_r = eng["clean"] - eng["corrupted"], ref_sweep["clean"] - ref_sweep["corrupted"]
    for kind in ("heads", "resid"):
        e = [eng[kind][l][x] for l, x in cells[kind]]
        r = [ref_sweep[kind][l][x] for l, x in cells[kind]]
        worst.add(f"patch {kind} metric ({len(e)} cells)", [eng["corrupted"] + v * gap_e for v in e],
                  [ref_sweep["corrupted"] + v * gap_r for v in r], scale, bound)
        if abs(gap_r) >= 0.05 * max(1.0, scale):
            worst.add(f"patch {kind} effect (x |gap|/scale)", e, r, max(1.0, scale) / abs(gap_r), bound)


def sample_cells(rng, grid, allowed, n_top, n_random):
    """The n_top cells of largest |value| in the engine's grid and n_random others, among allowed."""
    ranked = sorted(allowed, key=lambda c: -abs(grid[c[0]][c[1]]))
    top = ranked[:n_top]
    rest = [c for c in allowed if c not in top]
    picked = [rest[i] for i in rng.choice(len(rest), min(n_random, len(rest)), replace=False)]
    return top + picked


def compare_lens(worst, eng, probs, target_id, bound):
    """Each engine entry (id, prob) against the reference's probabilities probs (L, T, V): its prob within bound of
    the reference's for that id and of the reference's k-best at that rank, the id among the reference's top k within
    bound (so ids may differ only at ties, e.g. probabilities that underflow to 0), most probable first; and the
    target's probability."""
    L, T, _ = probs.shape
    k = len(eng["top"][0][0])
    values, top = torch.topk(probs, k, dim=-1)
    kth = values[..., -1]
    e_probs, r_probs, by_rank, shortfall, differing, informative = [], [], [], [], 0, 0
    worst.test.assertEqual(np.shape(eng["top"])[:2], (L, T))
    for l in range(L):
        for t in range(T):
            entries = eng["top"][l][t]
            worst.test.assertEqual([e["prob"] for e in entries], sorted((e["prob"] for e in entries), reverse=True))
            for rank, entry in enumerate(entries):
                theirs = float(probs[l, t, entry["id"]])
                e_probs.append(entry["prob"])
                r_probs.append(theirs)
                by_rank.append(float(values[l, t, rank]))
                shortfall.append(max(0.0, float(kth[l, t]) - theirs))
                differing += entry["id"] != int(top[l, t, rank])
                informative += 1e-6 < theirs < 1 - 1e-6
    worst.add("lens top-k probs (the reference's for the id)", e_probs, r_probs, 1.0, bound)
    worst.add("lens top-k probs (the reference's at the rank)", e_probs, by_rank, 1.0, bound)
    worst.add("lens top-k: below the reference's k-th", shortfall, [0.0] * len(shortfall), 1.0, bound)
    worst.rows.append((f"lens ids differing by rank: {differing}; probs in (1e-6, 1 - 1e-6): {informative}",
                       0.0, 0.0, len(e_probs), None))
    worst.add("lens target probs", eng["target"], probs[:, :, target_id].numpy(), 1.0, bound)


def compare_attribution(worst, eng, dla, bound):
    worst.test.assertEqual(set(eng["parts"]), set(dla["parts"]))
    scale = max(abs(dla["logit"]), max(map(abs, dla["parts"].values())))
    worst.add("attribute logit", [eng["logit"]], [dla["logit"]], scale, bound)
    names = sorted(dla["parts"])
    worst.add("attribute parts", [eng["parts"][n] for n in names], [dla["parts"][n] for n in names], scale, bound)
    worst.add("attribute engine's parts sum - its logit", [math.fsum(eng["parts"].values())], [eng["logit"]],
              scale, bound)


@ENGINE
class EngineOnSmallShape(unittest.TestCase):
    """GPT-2-small-shaped random checkpoint, f32 and q8, against the reference on its f32 weights. The engine's runs
    (one thread each) go two at a time beside the reference's (one thread)."""
    SEED = 16

    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)  # not slower than 2 here, and the engine's runs share the cores
        start = time.time()
        _, cls.paths = small_shape_files()
        rng = np.random.default_rng(cls.SEED)
        V, T = SHAPE["vocab"], 16
        cls.clean = rng.integers(0, V, T).tolist()
        cls.corrupted = list(cls.clean)
        cls.changed = sorted(rng.choice(T, 2, replace=False).tolist())
        for p in cls.changed:
            cls.corrupted[p] = int(rng.integers(0, V))
        cls.answer, cls.wrong = (int(x) for x in rng.integers(0, V, 2))
        cls.ids = rng.integers(0, V, T).tolist()
        ids, aw = id_list(cls.ids), ["--answer-id", str(cls.answer), "--wrong-id", str(cls.wrong)]
        cls.engine_seconds = {}

        def timed(dtype, name, *args):
            t0 = time.time()
            out = engine(args[0], cls.paths[dtype], *args[1:])
            cls.engine_seconds[(dtype, name)] = time.time() - t0
            return out

        # The f32 grids the reference samples first; q8 compares ablation with zero only (the default model's q8
        # test has mean ablation in full), keeping the file near a minute.
        pool = ThreadPoolExecutor(max_workers=2)
        jobs = {}
        for dtype, name, args in (
                ("f32", "ablate", ["ablate", "--ids", ids, *aw]),
                ("f32", "patch", ["patch", "--clean-ids", id_list(cls.clean), "--corrupted-ids", id_list(cls.corrupted),
                                  *aw]),
                ("f32", "ablate_mean", ["ablate", "--ids", ids, *aw, "--mean"]),
                ("q8", "patch", ["patch", "--clean-ids", id_list(cls.clean), "--corrupted-ids", id_list(cls.corrupted),
                                 *aw]),
                ("q8", "ablate", ["ablate", "--ids", ids, *aw])):
            jobs[dtype, name] = pool.submit(timed, dtype, name, *args)
        cls.model = small_shape_model()
        t0 = time.time()
        # the lens's target (and the attributed token): the reference's second choice at the last position
        cls.lens_probs = iv.lens_probs(cls.model, cls.ids)
        cls.target = int(torch.topk(cls.lens_probs[-1, -1], 2).indices[1])
        for dtype in ("f32", "q8"):
            jobs[dtype, "lens"] = pool.submit(timed, dtype, "lens", "lens", "--ids", ids, "--target-id",
                                              str(cls.target), "--k", "5")
            jobs[dtype, "attribute"] = pool.submit(timed, dtype, "attribute", "attribute", "--ids", ids, "--token-id",
                                                   str(cls.target))
        cls.ref_dla = iv.direct_logit_attribution(cls.model, cls.ids, cls.target)

        # the reference at sampled cells (each costs a GPT-2-small pass in PyTorch): the engine's largest and others
        L, H = SHAPE["n_layer"], SHAPE["n_head"]
        heads = [(l, h) for l in range(L) for h in range(H)]
        cls.ablate_cells, cls.ref_ablate = {}, {}

        def ablation(kind, name):
            cls.ablate_cells[kind] = sample_cells(rng, jobs["f32", name].result()["heads"], heads, 1, 2)
            cls.ref_ablate[kind] = iv.ablation_sweep(cls.model, cls.ids, cls.answer, cls.wrong, kind,
                                                     cls.ablate_cells[kind])
        ablation("zero", "ablate")
        first = cls.changed[0]
        cls.zero_resid = [(l, p) for l in range(L) for p in range(T) if p < first or (l == 0 and p not in cls.changed)]
        live_resid = [(l, p) for l in range(L) for p in range(T) if (l, p) not in cls.zero_resid]
        patch = jobs["f32", "patch"].result()
        cls.patch_cells = {"heads": sample_cells(rng, patch["heads"], heads, 2, 1),
                           "resid": sample_cells(rng, patch["resid"], live_resid, 2, 1)}
        cls.ref_patch = iv.patching_sweep(cls.model, cls.clean, cls.corrupted, cls.answer, cls.wrong,
                                          cells=cls.patch_cells)
        ablation("mean", "ablate_mean")
        cls.reference_seconds = time.time() - t0
        cls.eng = {dtype: {name: jobs[d, name].result() for d, name in jobs if d == dtype} for dtype in ("f32", "q8")}
        pool.shutdown()
        print(f"\n  GPT-2-small shape: setup {time.time() - start:.1f} s (reference {cls.reference_seconds:.1f} s; "
              "engine, two at a time: " + ", ".join(f"{d} {n} {s:.1f} s" for (d, n), s in cls.engine_seconds.items())
              + ")")

    def compare(self, dtype, bounds):
        eng = self.eng[dtype]
        worst = Worst(self, f"GPT-2-small shape, {dtype}")
        L, H, T = SHAPE["n_layer"], SHAPE["n_head"], len(self.clean)
        self.assertEqual(np.shape(eng["patch"]["heads"]), (L, H))
        self.assertEqual(np.shape(eng["patch"]["resid"]), (L, T))
        compare_patch(worst, eng["patch"], self.ref_patch, self.patch_cells, bounds["metric"])
        worst.add(f"patch resid effect, must be 0 ({len(self.zero_resid)})",
                  [eng["patch"]["resid"][l][p] for l, p in self.zero_resid], [0.0] * len(self.zero_resid), 1.0,
                  bounds["metric"])
        for kind, name in (("zero", "ablate"), ("mean", "ablate_mean")):
            if name not in eng:
                continue
            ref_sweep, cells = self.ref_ablate[kind], self.ablate_cells[kind]
            self.assertEqual(np.shape(eng[name]["heads"]), (L, H))
            scale = max(abs(ref_sweep["baseline"]), *(abs(ref_sweep["heads"][l][h]) for l, h in cells))
            worst.add(f"ablate {kind} metric ({len(cells)} cells + baseline)",
                      [eng[name]["baseline"]] + [eng[name]["heads"][l][h] for l, h in cells],
                      [ref_sweep["baseline"]] + [ref_sweep["heads"][l][h] for l, h in cells], scale, bounds["metric"])
        compare_lens(worst, eng["lens"], self.lens_probs, self.target, bounds["prob"])
        compare_attribution(worst, eng["attribute"], self.ref_dla, bounds["part"])
        worst.report_and_check()

    def test_f32(self):
        self.compare("f32", {"metric": F32_TOLERANCE, "prob": F32_TOLERANCE, "part": F32_TOLERANCE})

    def test_q8(self):
        self.compare("q8", Q8_SMALL_SHAPE)


@ENGINE
class EngineOnDefaultModel(OnDefaultModel):
    """The default model (q8; the reference runs its dequantized weights in float32): every cell of every grid."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.ex = induction_example(cls.tokenizer, INDUCTION_SEED)

    def args(self):
        return ["--answer-id", str(self.ex["answer"]), "--wrong-id", str(self.ex["wrong"])]

    def test_every_cell(self):
        ex, m = self.ex, self.model
        ids = id_list(ex["ids"])
        worst = Worst(self, "default model (q8 engine, dequantized float32 reference)")
        b = Q8_DEFAULT

        eng = engine("patch", DEFAULT_MODEL, "--clean-ids", ids, "--corrupted-ids", id_list(ex["corrupted"]),
                     *self.args())
        sweep = iv.patching_sweep(m, ex["ids"], ex["corrupted"], ex["answer"], ex["wrong"])
        L, H, T = m.cfg.n_layer, m.cfg.n_head, len(ex["ids"])
        cells = {"heads": [(l, h) for l in range(L) for h in range(H)],
                 "resid": [(l, p) for l in range(L) for p in range(T)]}
        compare_patch(worst, eng, sweep, cells, b["metric"])
        for kind, flag in (("zero", []), ("mean", ["--mean"])):
            eng = engine("ablate", DEFAULT_MODEL, "--ids", ids, *self.args(), *flag)
            ref_sweep = iv.ablation_sweep(m, ex["ids"], ex["answer"], ex["wrong"], kind)
            scale = max(abs(ref_sweep["baseline"]), float(np.abs(ref_sweep["heads"]).max()))
            worst.add(f"ablate {kind} metric (all + baseline)",
                      [eng["baseline"]] + np.ravel(eng["heads"]).tolist(),
                      [ref_sweep["baseline"]] + np.ravel(ref_sweep["heads"]).tolist(), scale, b["metric"])
            if kind == "zero":
                print(f"\n  engine: metric {eng['baseline']:.3f}, with layer 1 head 0 zero-ablated "
                      f"{eng['heads'][1][0]:.3f} (reference {ref_sweep['baseline']:.3f} -> "
                      f"{ref_sweep['heads'][1][0]:.3f})")
                self.assertGreater(eng["baseline"] - eng["heads"][1][0], 5.0)
        eng = engine("lens", DEFAULT_MODEL, "--ids", ids, "--target-id", str(ex["answer"]), "--k", "5")
        compare_lens(worst, eng, iv.lens_probs(m, ex["ids"]), ex["answer"], b["prob"])
        eng = engine("attribute", DEFAULT_MODEL, "--ids", ids, "--token-id", str(ex["answer"]))
        compare_attribution(worst, eng, iv.direct_logit_attribution(m, ex["ids"], ex["answer"]), b["part"])
        eng = engine("attribute", DEFAULT_MODEL, "--ids", ids, "--token-id", str(ex["wrong"]), "--position", "5")
        compare_attribution(worst, eng, iv.direct_logit_attribution(m, ex["ids"], ex["wrong"], 5), b["part"])
        worst.report_and_check()

    def test_text_prompts_are_the_ids_tokenized(self):
        clean, corrupted = "When Mary and John went to the store, John gave a drink to", \
            "When Mary and John went to the store, Mary gave a drink to"
        eng = engine("patch", DEFAULT_MODEL, "--clean", clean, "--corrupted", corrupted, "--answer", " Mary",
                     "--wrong", " John")
        tok = self.tokenizer
        (mary,), (john,) = tok.encode(" Mary"), tok.encode(" John")
        by_ids = engine("patch", DEFAULT_MODEL, "--clean-ids", id_list(tok.encode(clean)), "--corrupted-ids",
                        id_list(tok.encode(corrupted)), "--answer-id", str(mary), "--wrong-id", str(john))
        self.assertEqual(eng, by_ids)
        sweep = iv.patching_sweep(self.model, tok.encode(clean), tok.encode(corrupted), mary, john,
                                  cells={"heads": [(1, 0)], "resid": [(0, 9)]})
        print(f"\n  IOI prompt on the default model: clean {eng['clean']:.4f} (reference {sweep['clean']:.4f}), "
              f"corrupted {eng['corrupted']:.4f} ({sweep['corrupted']:.4f})")
        scale = max(1.0, abs(sweep["clean"]), abs(sweep["corrupted"]))
        self.assertAlmostEqual(eng["clean"], sweep["clean"], delta=Q8_DEFAULT["metric"] * scale)
        self.assertAlmostEqual(eng["corrupted"], sweep["corrupted"], delta=Q8_DEFAULT["metric"] * scale)

    def test_prompts_of_unequal_length_are_refused(self):
        run = subprocess.run([CLI, "patch", "--model", DEFAULT_MODEL, "--clean-ids", "1,2,3", "--corrupted-ids",
                              "1,2", "--answer-id", "4", "--wrong-id", "5", "--out", os.devnull],
                             capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertTrue(run.stderr.strip(), "no message")
        print(f"\n  unequal lengths: {run.stderr.strip()}")


if __name__ == "__main__":
    unittest.main()
