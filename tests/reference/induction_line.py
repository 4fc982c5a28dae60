"""The default model's induction example, shared by test_interventions_reference.py and test_interventions_engine.py:
a line of tokens from PASSAGE written twice, whose last token the model should copy, and the set-up of the tests that
run it (the shipped model's dequantized weights in the PyTorch reference, and the tokenizer)."""
import unittest

import numpy as np
import torch

from support import shipped_model
from arcscope_reference import bpe_tokenizer

# The induction example's tokens are drawn from this passage (words the default model has read).
PASSAGE = ("To be, or not to be, that is the question: Whether 'tis nobler in the mind to suffer The slings and arrows "
           "of outrageous fortune, Or to take arms against a sea of troubles And by opposing end them. To die: to "
           "sleep; No more; and by a sleep to say we end The heart-ache and the thousand natural shocks That flesh is "
           "heir to.")
INDUCTION_SEED = 4  # the line the engine comparisons use; the ablation test also prints ten others


def induction_example(tokenizer, seed):
    """12 distinct tokens of PASSAGE, written twice without the second copy's last one: the last position should
    copy it (answer). wrong: another token of the passage; corrupted: the first copy with its answer put as wrong."""
    candidates = sorted(set(tokenizer.encode(PASSAGE)))
    pick = np.random.default_rng(seed).choice(candidates, 13, replace=False).tolist()
    line, wrong = pick[:12], pick[12]
    return {"ids": line + line[:-1], "corrupted": line[:-1] + [wrong] + line[:-1], "answer": line[-1],
            "wrong": wrong, "line": line}


class OnDefaultModel(unittest.TestCase):
    """Set-up of the tests on the default model: its dequantized weights in the reference, and the tokenizer."""

    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)
        cls.model = shipped_model()
        cls.tokenizer = bpe_tokenizer.Tokenizer()
