"""The layer kinds of today's decoders as small PyTorch functions, float32 throughout, written from the semantics of
Hugging Face's modeling code (modeling_llama, modeling_gpt_neox, modeling_qwen2/3, modeling_rope_utils), not from the
C++ engine. decoder_reference.py composes them; tests/reference/test_decoder_reference.py checks each against plain
math. Shapes: T positions, C channels, H query heads, KV key/value heads, d head_dim, r rotating dims, F MLP width.
"""
import math

import torch


# ---------------------------------------------------------------- norms

def layer_norm_normalized(x, eps):
    """x (..., C) -> (x - mean) / sqrt(var + eps): LayerNorm before its weight and bias (TransformerLens's
    hook_normalized). The variance is the biased one, as torch.nn.LayerNorm's."""
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps)


def rms_norm_normalized(x, eps):
    """x (..., C) -> x * rsqrt(mean(x^2) + eps): RMSNorm before its weight. HF computes this in float32 whatever the
    model's dtype (LlamaRMSNorm casts up, normalizes, casts back, then multiplies by the weight)."""
    x = x.to(torch.promote_types(x.dtype, torch.float32))  # float32 at least (float64 for in_float64's model)
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)


def norm_normalized(kind, x, eps):
    return layer_norm_normalized(x, eps) if kind == "layernorm" else rms_norm_normalized(x, eps)


def norm_finish(normalized, weight, bias=None):
    """The weight (and LayerNorm's bias) applied to a normalized x."""
    return normalized * weight + bias if bias is not None else normalized * weight


# ---------------------------------------------------------------- rotary positions

def rope_inv_freq(theta, r):
    """(r/2,) inverse frequencies 1 / theta^(2j / r), j = 0 .. r/2 - 1, computed in float32 as HF does
    (base ** (arange(0, r, 2).float() / r), then 1.0 / that)."""
    return 1.0 / (theta ** (torch.arange(0, r, 2, dtype=torch.int64).float() / r))


def llama3_inv_freq(inv_freq, factor, low_freq_factor, high_freq_factor, original_max_position_embeddings):
    """Llama 3.1/3.2's rope_scaling "llama3" of (r/2,) inverse frequencies, in float32 like HF's
    _compute_llama3_parameters. With wavelength w = 2 pi / f and L = original_max_position_embeddings:
      w < L / high_freq_factor   (high frequencies)  f unchanged
      w > L / low_freq_factor    (low frequencies)   f / factor
      otherwise                  s = (L / w - low_freq_factor) / (high_freq_factor - low_freq_factor),
                                 f * ((1 - s) / factor + s)"""
    L = original_max_position_embeddings
    low_freq_wavelen = L / low_freq_factor
    high_freq_wavelen = L / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = (wavelen >= high_freq_wavelen) & (wavelen <= low_freq_wavelen)
    return torch.where(medium, smoothed, scaled)


def rope_cos_sin(inv_freq, T, first_position=0):
    """-> cos, sin (T, r): angle[t, j] = (first_position + t) * inv_freq[j] (a float32 product, as HF's), repeated
    for the two halves [j | j + r/2] that rotate_half pairs."""
    positions = torch.arange(first_position, first_position + T, dtype=torch.int64).float()
    freqs = positions[:, None] * inv_freq[None, :]  # (T, r/2)
    emb = torch.cat([freqs, freqs], dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    """(..., r): [x1 | x2] -> [-x2 | x1], halves of r/2: dimension i turns with dimension i + r/2."""
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def rope_forward(x, cos, sin):
    """x (T, heads, d), cos/sin (T, r) -> x with its first r dims of every head rotated by position, the other d - r
    passed through (GPT-NeoX's partial rotary; r = d elsewhere)."""
    r = cos.shape[-1]
    rot, rest = x[..., :r], x[..., r:]
    cos, sin = cos[:, None, :], sin[:, None, :]
    return torch.cat([rot * cos + rotate_half(rot) * sin, rest], dim=-1)


# ---------------------------------------------------------------- attention

def causal_scores(q, k):
    """q (T, H, d), k (T, KV, d) -> scores (H, T, T) = q . k / sqrt(d), query head h against key/value head
    h // (H / KV) (HF's repeat_kv, TransformerLens's repeat_interleave), future keys at -inf."""
    T, H, d = q.shape
    group = H // k.shape[1]
    k = k.repeat_interleave(group, dim=1)  # (T, H, d)
    scores = torch.einsum("qhd,khd->hqk", q, k) / math.sqrt(d)
    causal = torch.tril(torch.ones(T, k.shape[0], dtype=torch.bool))
    return scores.masked_fill(~causal, float("-inf"))


def attend(pattern, v):
    """pattern (H, T, T), v (T, KV, d) -> z (T, H, d): each query head mixes its group's value head."""
    group = pattern.shape[0] // v.shape[1]
    return torch.einsum("hqk,khd->qhd", pattern, v.repeat_interleave(group, dim=1))


# ---------------------------------------------------------------- MLP activations

def gelu_tanh(x):
    """GPT-2's "gelu_new": the tanh approximation."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))


def gelu_erf(x):
    """GPT-NeoX's "gelu": exact, x * Phi(x) = x/2 (1 + erf(x / sqrt 2))."""
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def silu(x):
    """SwiGLU's gate: x * sigmoid(x)."""
    return x * torch.sigmoid(x)


ACTIVATIONS = {"gelu_tanh": gelu_tanh, "gelu": gelu_erf, "swiglu": silu}
