"""What python/arcscope_reference/train_default_model.py feeds the model: the scored targets of each kind of window
follow the rule its docstring states, and a drill placed at a later position sees exactly those position embeddings."""
import unittest

import numpy as np
import torch

# support first: it puts python/, which holds the package arcscope_reference, on the path
import support  # noqa: F401
from arcscope_reference import gpt2_reference as ref
from arcscope_reference import train_default_model as train

VOCAB = np.arange(1000, 3000)


class Drills(unittest.TestCase):
    def setUp(self):
        self.ids, self.targets, self.first, self.copy_at = train.draw_drills(VOCAB, 30, 32, 256, np.random.default_rng(5))

    def test_shapes_and_positions(self):
        self.assertEqual(tuple(self.ids.shape), (30, 32))
        self.assertEqual(tuple(self.targets.shape), (30, 32))
        self.assertTrue(bool(((self.first >= 0) & (self.first <= 256 - 32)).all()))

    def test_triples_score_the_token_before(self):
        for b in range(0, 30, 3):
            scored = (self.targets[b] != train.IGNORE).nonzero().flatten().tolist()
            self.assertEqual(scored, list(range(1, 33, 3)))  # 11 triples fill the 33 tokens
            for p in scored:  # at y in (x, y, x) the answer is x, the token just before
                self.assertEqual(int(self.targets[b, p]), int(self.ids[b, p - 1]))

    def test_triple_share_spreads_the_kinds(self):
        self.assertEqual([b for b in range(30) if train.is_triple(b, 1 / 3)], list(range(0, 30, 3)))
        self.assertTrue(all(train.is_triple(b, 1.0) for b in range(30)))
        self.assertFalse(any(train.is_triple(b, 0.0) for b in range(30)))
        _, targets, _, _ = train.draw_drills(VOCAB, 6, 32, 256, np.random.default_rng(5), triple_share=1.0)
        for row in targets:
            self.assertEqual((row != train.IGNORE).nonzero().flatten().tolist(), list(range(1, 33, 3)))

    def test_runs_score_what_followed_the_token_last_time(self):
        for b in [b for b in range(30) if b % 3]:
            scored = (self.targets[b] != train.IGNORE).nonzero().flatten().tolist()
            self.assertGreaterEqual(len(scored), 3)
            self.assertEqual(scored, list(range(scored[0], scored[-1] + 1)))  # one stretch: the second copy
            n = len(scored) + 1
            for p in scored:
                self.assertEqual(int(self.ids[b, p]), int(self.ids[b, p - n]))
                self.assertEqual(int(self.targets[b, p]), int(self.ids[b, p - n + 1]))


    def test_copy_at_points_to_the_answer_s_first_copy(self):
        for b in range(30):
            marked = (self.copy_at[b] >= 0).nonzero().flatten().tolist()
            scored = (self.targets[b] != train.IGNORE).nonzero().flatten().tolist()
            self.assertEqual(marked, [] if b % 3 == 0 else scored)  # runs only; triples have no first copy
            for p in marked:
                self.assertLess(int(self.copy_at[b, p]), p)
                self.assertEqual(int(self.ids[b, self.copy_at[b, p]]), int(self.targets[b, p]))

    def test_head_curriculum_loss_is_zero_only_on_the_taught_patterns(self):
        count, length = len(self.ids), self.ids.shape[1]
        att = torch.zeros(count, 2, 2, length, length)
        att[:, :, :, 0, 0] = 1
        i = torch.arange(1, length)
        att[:, 0, 0, i, i - 1] = 1                    # the previous-token head looks one back
        b, q = (self.copy_at >= 0).nonzero(as_tuple=True)
        att[:, 1, 0] = torch.eye(length)
        att[b, 1, 0, q, q] = 0
        att[b, 1, 0, q, self.copy_at[b, q]] = 1       # the induction head looks at the answer's first copy
        self.assertLess(train.head_curriculum_loss(att, self.copy_at).item(), 1e-5)
        causal_uniform = torch.tril(torch.ones(length, length)) / torch.arange(1, length + 1)[:, None]
        flat = causal_uniform.expand(count, 2, 2, length, length)
        self.assertGreater(train.head_curriculum_loss(flat, self.copy_at).item(), 2.0)


class TextWindows(unittest.TestCase):
    def test_random_runs_leave_their_first_copy_unscored(self):
        text = np.arange(5000, 5000 + 600)
        x, y = train.draw_batch(text, 12, 64, 0.0, 1.0, VOCAB, np.random.default_rng(2))
        for b in range(12):
            unscored = (y[b] == train.IGNORE).nonzero().flatten().tolist()
            self.assertEqual(unscored, list(range(unscored[0], unscored[-1] + 1)))  # one stretch
            if unscored[0] == 0:
                continue  # a run at the window's start: its length is not recoverable from the mask
            at, n = unscored[0] + 1, len(unscored)  # targets[at - 1 : at + n - 1] predict the first copy
            self.assertGreaterEqual(n, 8)
            second = x[b, at + n:min(at + 2 * n, 64)]
            self.assertTrue(torch.equal(x[b, at:at + len(second)], second))
            self.assertTrue(bool((y[b, at + n - 1:] != train.IGNORE).all()), "the second copy is scored")

    def test_plain_windows_are_the_text(self):
        text = np.arange(5000, 5000 + 600)
        x, y = train.draw_batch(text, 4, 64, 0.0, 0.0, VOCAB, np.random.default_rng(3))
        self.assertTrue(torch.equal(x[:, 1:], y[:, :-1]))
        self.assertTrue(bool(((y - x) == 1).all()))


class FirstPosition(unittest.TestCase):
    def test_a_sequence_placed_later_uses_those_positions(self):
        cfg = ref.GPT2Config(2, 2, 16, 40, 50)
        model = ref.GPT2(cfg).init_weights(1, noisy=True).eval()
        ids = torch.randint(0, 50, (2, 8), generator=torch.Generator().manual_seed(0))
        at = torch.tensor([[0], [17]])
        with torch.no_grad():
            got, _ = model.hidden(ids, need_attention=False, first_position=at)
            plain, _ = model.hidden(ids[:1], need_attention=False)
            # row 1 by hand: the same blocks on wte + wpe[17:25]
            x = model.wte(ids[1:]) + model.wpe.weight[17:25]
            for block in model.h:
                x, _ = block(x)
            want = model.ln_f(x)
        self.assertTrue(torch.allclose(got[:1], plain, atol=1e-6))
        self.assertTrue(torch.allclose(got[1:], want, atol=1e-6))


if __name__ == "__main__":
    unittest.main()
