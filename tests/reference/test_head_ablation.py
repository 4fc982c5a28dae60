"""python/arcscope_reference/head_ablation.py: silencing a head removes exactly that head's output, and only while it
is silenced."""
import unittest

import torch

# support first: it puts python/, which holds the package arcscope_reference, on the path
import support  # noqa: F401
from arcscope_reference import gpt2_reference as ref
from arcscope_reference import head_ablation


class Silence(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.model = ref.GPT2(ref.GPT2Config(2, 2, 16, 32, 300)).init_weights(3, noisy=True).eval()
        self.seqs = torch.randint(0, 299, (3, 10))

    def test_a_head_that_writes_nothing_changes_nothing_when_silenced(self):
        with torch.no_grad():
            self.model.h[1].attn.c_proj.weight[8:16] = 0  # head 1 of layer 1 (inputs 8..15 of c_proj) writes nothing
        whole = head_ablation.copy_losses(self.model, self.seqs)
        handle = head_ablation.silence(self.model, 1, 1)
        self.assertEqual(head_ablation.copy_losses(self.model, self.seqs), whole)
        handle.remove()

    def test_silencing_changes_the_losses_until_removed(self):
        whole = head_ablation.copy_losses(self.model, self.seqs)
        handle = head_ablation.silence(self.model, 0, 0)
        without = head_ablation.copy_losses(self.model, self.seqs)
        handle.remove()
        self.assertNotEqual(without, whole)
        self.assertEqual(head_ablation.copy_losses(self.model, self.seqs), whole)


if __name__ == "__main__":
    unittest.main()
