"""The engine's interventions, `arcscope patch`, `ablate`, `lens` and `attribute`, against the PyTorch reference's
(python/arcscope_reference/interventions_reference.py, itself checked in test_interventions_reference.py). Skipped
unless build/native/arcscope lists the four commands.

  GPT-2-small-shaped random checkpoint (small_shape.py's, shared with test_hooks.py: 12 layers, 12 heads,
  n_embd 768, made once) as f32: every compared value within 1e-4 of the reference, relative to its output's scale;
  as q8 (int8 weights and activations, against the reference on the f32 weights): bounds about 3x the differences
  measured. A GPT-2-small pass takes the reference about 0.75 s here (netlib BLAS), so the 144-cell and 192-cell
  patching grids and the 144-cell ablation grids are checked at sampled cells (the engine's largest |value| and some
  at random), besides the resid cells that must be exactly 0 (positions before the first difference, and at layer 0
  where the prompts agree); clean, corrupted and baseline metrics, the whole lens and the whole attribution are
  compared.
  Default model (models/shakespeare-4l.q8.arcs through python/arcscope_reference/arcs_file.py, its q8 weights
  dequantized): every cell of every grid, on the induction line (induction_line.py).
Prints the largest difference for each output.
Run: /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_interventions_engine.py
"""
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
from support import CLI, DEFAULT_MODEL, sh
from arcscope_reference import interventions_reference as iv
from induction_line import INDUCTION_SEED, OnDefaultModel, induction_example
from small_shape import SHAPE, small_shape_files, small_shape_model

COMMANDS = ("patch", "ablate", "lens", "attribute")

F32_TOLERANCE = 1e-4  # relative to the output's scale (largest |value|, at least 1); probabilities absolute
# q8 bounds, about 3x the largest differences measured (the printed figures). metric: logit differences, relative to
# the largest |metric| compared (normalized effects likewise, see compare_patch); prob: absolute; part: attribution,
# relative to the largest of |logit| and |part|.
# The GPT-2-small shape's q8 engine (int8 weights, 14-bit activations) against the reference on the f32 weights:
# metric 1.2e-2, part 1.8e-3, prob 1.5e-6 (its lens saturates: nearly every probability is ~0 or ~1). With 8-bit
# activations, over four inputs, they were 8.2e-2, 2.4e-2 and 1.0e-3: the bounds keep room for other inputs.
Q8_SMALL_SHAPE = {"metric": 0.06, "prob": 1e-3, "part": 0.02}
# The default model's q8 engine against the reference on the same (dequantized) weights, so activation rounding alone:
# with 14-bit activations (what q8 rounds to since its relaxed-SIMD kernel) metric 9.7e-5, prob 4.5e-4, part 1.3e-4
# on the induction line (INDUCTION_SEED); with 16-bit ones they were 2.4e-5, 1.5e-4 and 2.5e-5, with 8-bit ones
# 8.0e-3, 1.9e-2 and 7.3e-3.
Q8_DEFAULT = {"metric": 5e-4, "prob": 1.5e-3, "part": 4e-4}


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
