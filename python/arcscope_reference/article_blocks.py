"""The article's own attention blocks, as "Self-Attention from Scratch" writes them (../shared/seed/
self-attention-from-scratch.txt): SingleHeadAttention, causal_mask, MultiHeadAttention and PositionalEncoding, in
PyTorch, with the article's code and comments unchanged (only the indentation, which the text lost, restored).

tests/reference/test_article_blocks.py loads the tutorial page's weights into these classes and checks that they give
the page's numbers. attention_reference.py is the other PyTorch reference, a plain function the wasm tests call.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SingleHeadAttention(nn.Module):
    def __init__(self, d_model: int, d_head: int):
        super().__init__()
        self.d_head = d_head
        self.W_q = nn.Linear(d_model, d_head, bias=False)
        self.W_k = nn.Linear(d_model, d_head, bias=False)
        self.W_v = nn.Linear(d_model, d_head, bias=False)

    def forward(self, x: torch.Tensor, mask: torch.Tensor = None):
        # x: (batch, seq_len, d_model)
        Q = self.W_q(x)  # (batch, seq_len, d_head)
        K = self.W_k(x)
        V = self.W_v(x)
        # Scaled dot-product attention
        scale = math.sqrt(self.d_head)
        scores = Q @ K.transpose(-2, -1) / scale  # (batch, seq_len, seq_len)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float('-inf'))
        weights = F.softmax(scores, dim=-1)  # (batch, seq_len, seq_len)
        out = weights @ V  # (batch, seq_len, d_head)
        return out, weights


def causal_mask(seq_len: int) -> torch.Tensor:
    """Lower triangular mask: position i can only attend to positions ≤ i."""
    mask = torch.tril(torch.ones(seq_len, seq_len))
    return mask


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        assert d_model % n_heads == 0
        self.d_head = d_model // n_heads
        self.n_heads = n_heads
        # Single projections for efficiency (could also use n_heads × individual heads)
        self.W_q = nn.Linear(d_model, d_model, bias=False)
        self.W_k = nn.Linear(d_model, d_model, bias=False)
        self.W_v = nn.Linear(d_model, d_model, bias=False)
        self.W_o = nn.Linear(d_model, d_model, bias=False)

    def _split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """Reshape (batch, seq, d_model) → (batch, n_heads, seq, d_head)."""
        batch, seq, _ = x.shape
        x = x.view(batch, seq, self.n_heads, self.d_head)
        return x.transpose(1, 2)  # (batch, n_heads, seq, d_head)

    def _merge_heads(self, x: torch.Tensor) -> torch.Tensor:
        """Reverse of _split_heads."""
        batch, n_heads, seq, d_head = x.shape
        x = x.transpose(1, 2)  # (batch, seq, n_heads, d_head)
        return x.contiguous().view(batch, seq, n_heads * d_head)

    def forward(self, x: torch.Tensor, mask: torch.Tensor = None):
        Q = self._split_heads(self.W_q(x))
        K = self._split_heads(self.W_k(x))
        V = self._split_heads(self.W_v(x))
        scale = math.sqrt(self.d_head)
        scores = Q @ K.transpose(-2, -1) / scale
        if mask is not None:
            scores = scores.masked_fill(mask.unsqueeze(1) == 0, float('-inf'))
        weights = F.softmax(scores, dim=-1)  # (batch, n_heads, seq, seq)
        out = weights @ V  # (batch, n_heads, seq, d_head)
        out = self._merge_heads(out)  # (batch, seq, d_model)
        return self.W_o(out)


class PositionalEncoding(nn.Module):
    """Sinusoidal positional encoding from the original Attention Is All You Need."""

    def __init__(self, d_model: int, max_seq_len: int = 2048):
        super().__init__()
        pe = torch.zeros(max_seq_len, d_model)
        position = torch.arange(0, max_seq_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, d_model, 2).float() *
                             (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)  # even dimensions
        pe[:, 1::2] = torch.cos(position * div_term)  # odd dimensions
        self.register_buffer('pe', pe.unsqueeze(0))  # (1, max_seq, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        seq_len = x.shape[1]
        return x + self.pe[:, :seq_len, :]
