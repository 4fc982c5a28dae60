"""python/arcscope_reference/interventions_reference.py checked against itself and against plain passes, where the
answer is known; no engine runs here (test_interventions_engine.py compares the engine's interventions with it).

Zero-ablating a head is silencing it in the plain model (python/arcscope_reference/head_ablation.py), mean-ablating it
is a constant added to c_proj's bias, ablating an MLP is zeroing its c_proj; patching hook_resid_pre at every position
recovers the clean metric exactly, at a position where the prompts agree (or before they first differ) changes
nothing; the direct logit attribution's parts add up to the logit (also on small_shape.py's GPT-2-small-shaped
checkpoint); the logit lens's last layer is the model's own softmax; on the default model, zero-ablating layer 1
head 0 (the taught induction head) breaks the copy.
Run: /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_interventions_reference.py
"""
import copy
import unittest

import numpy as np
import torch

# support first: it puts python/, which holds the package arcscope_reference, on the path
import support  # noqa: F401
from arcscope_reference import gpt2_reference as ref
from arcscope_reference import head_ablation
from arcscope_reference import hooked_reference
from arcscope_reference import interventions_reference as iv
from induction_line import INDUCTION_SEED, OnDefaultModel, induction_example
from small_shape import SHAPE, small_shape_model


def tiny_model(seed=3):
    torch.manual_seed(0)
    return ref.GPT2(ref.GPT2Config(3, 4, 32, 32, 300)).init_weights(seed, noisy=True).eval()


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


if __name__ == "__main__":
    unittest.main()
