"""A decoder's architecture as data, read from a Hugging Face config.json: what decoder_reference.py runs.

Written from transformers' configuration and modeling code for each model_type (its defaults included), not from the
C++ engine. Every architecture is the same few choices:

  norm        "layernorm" (mean and variance, weight and bias) or "rmsnorm" (x * rsqrt(mean(x^2) + eps) * w)
  positions   "learned" (GPT-2's wpe) or "rope" on the first rotary_dim dimensions of each head, pairs (i, i + r/2)
  attention   n_head query heads over n_kv_head key/value heads (query head h reads h // (n_head / n_kv_head)),
              optional biases on q/k/v and on o, optional per-head RMSNorm of q and k before RoPE (Qwen3)
  mlp         "gelu_tanh" (GPT-2), "gelu" (exact erf, GPT-NeoX) or "swiglu" down(silu(gate(x)) * up(x))
  residual    sequential x + attn(ln1(x)), then + mlp(ln2(.)); or parallel x + attn(ln1(x)) + mlp(ln2(x)) (Pythia)
  head        tied to the token embedding, or its own matrix

Anything else a config asks for (sliding windows, an unknown rope_type, mixtures of experts) is refused by name.
"""
from dataclasses import dataclass
from typing import Optional

ROPE_TYPES = ("default", "llama3")


@dataclass
class Architecture:
    model_type: str = "gpt2"
    n_layer: int = 12          # blocks
    n_embd: int = 768          # residual width C
    n_head: int = 12           # query heads H
    n_kv_head: int = 12        # key/value heads (H for multi-head attention)
    head_dim: int = 64         # d_head (not always C / H: Qwen3-0.6B is 1024 wide with 16 heads of 128)
    ffn: int = 3072            # MLP hidden width
    n_vocab: int = 50257
    n_ctx: int = 1024          # max_position_embeddings
    norm: str = "layernorm"    # or "rmsnorm"
    eps: float = 1e-5
    positions: str = "learned"  # or "rope"
    rope_theta: float = 10000.0
    rotary_dim: int = 0        # rotating dimensions per head (even; head_dim unless partial, Pythia's 16 of 64)
    # llama3: factor, low_freq_factor, high_freq_factor, original_max_position_embeddings
    rope_scaling: Optional[dict] = None
    qkv_bias: bool = True
    o_bias: bool = True
    qk_norm: bool = False      # Qwen3: RMSNorm over head_dim of each q and k head, before RoPE
    mlp: str = "gelu_tanh"     # or "gelu", "swiglu"
    mlp_bias: bool = True
    parallel_residual: bool = False
    tied: bool = True


def _get(cfg, key, default=None, required=False):
    if key in cfg and cfg[key] is not None:
        return cfg[key]
    if required:
        raise ValueError(f"config.json: {key} is missing")
    return default


def _rope_scaling(cfg):
    """None, or the llama3 parameters; any other rope_type is refused (as the engine refuses it)."""
    scaling = cfg.get("rope_scaling")
    if not scaling:
        return None
    rope_type = scaling.get("rope_type", scaling.get("type", "default"))  # "type" is the older key
    if rope_type == "default":
        return None
    if rope_type != "llama3":
        raise ValueError(f"config.json: rope_scaling.rope_type '{rope_type}' is not supported "
                         f"(supported: {', '.join(ROPE_TYPES)})")
    keys = ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings")
    missing = [k for k in keys if k not in scaling]
    if missing:
        raise ValueError(f"config.json: rope_scaling of rope_type llama3 lacks {', '.join(missing)}")
    return {k: float(scaling[k]) for k in keys}


def _gpt2(cfg):
    C = int(cfg["n_embd"])
    act = cfg.get("activation_function", "gelu_new")
    if act != "gelu_new":
        raise ValueError(f"config.json: activation_function '{act}' is not supported (supported: gelu_new)")
    return Architecture(
        model_type="gpt2", n_layer=int(cfg["n_layer"]), n_embd=C, n_head=int(cfg["n_head"]),
        n_kv_head=int(cfg["n_head"]), head_dim=C // int(cfg["n_head"]), ffn=int(_get(cfg, "n_inner", 4 * C)),
        n_vocab=int(cfg["vocab_size"]), n_ctx=int(_get(cfg, "n_positions", _get(cfg, "n_ctx", 1024))),
        norm="layernorm", eps=float(_get(cfg, "layer_norm_epsilon", 1e-5)), positions="learned",
        mlp="gelu_tanh", tied=True)


def _gpt_neox(cfg):
    C, H = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
    head_dim = C // H
    # Older configs say rotary_pct / rotary_emb_base; newer transformers call them partial_rotary_factor / rope_theta.
    pct = float(_get(cfg, "rotary_pct", _get(cfg, "partial_rotary_factor", 0.25)))
    act = _get(cfg, "hidden_act", "gelu")
    mlp = {"gelu": "gelu", "gelu_new": "gelu_tanh"}.get(act)
    if mlp is None:
        raise ValueError(f"config.json: hidden_act '{act}' is not supported for gpt_neox (supported: gelu, gelu_new)")
    if _rope_scaling(cfg):
        raise ValueError("config.json: gpt_neox with rope_scaling is not supported")
    bias = bool(_get(cfg, "attention_bias", True))
    return Architecture(
        model_type="gpt_neox", n_layer=int(cfg["num_hidden_layers"]), n_embd=C, n_head=H, n_kv_head=H,
        head_dim=head_dim, ffn=int(_get(cfg, "intermediate_size", 4 * C)), n_vocab=int(cfg["vocab_size"]),
        n_ctx=int(_get(cfg, "max_position_embeddings", 2048)), norm="layernorm",
        eps=float(_get(cfg, "layer_norm_eps", 1e-5)), positions="rope",
        rope_theta=float(_get(cfg, "rotary_emb_base", _get(cfg, "rope_theta", 10000.0))),
        rotary_dim=int(head_dim * pct), qkv_bias=bias, o_bias=bias, mlp=mlp, mlp_bias=True,
        parallel_residual=bool(_get(cfg, "use_parallel_residual", True)),
        tied=bool(_get(cfg, "tie_word_embeddings", False)))


def _llama_like(cfg, model_type):
    """llama, qwen2 and qwen3: RMSNorm, RoPE on the whole head, grouped-query attention, SwiGLU."""
    C, H = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
    act = _get(cfg, "hidden_act", "silu")
    if act != "silu":
        raise ValueError(f"config.json: hidden_act '{act}' is not supported (supported: silu)")
    if _get(cfg, "use_sliding_window", False):
        raise ValueError("config.json: use_sliding_window true is not supported (sliding-window attention)")
    if model_type == "qwen3":
        head_dim = int(_get(cfg, "head_dim", 128))  # Qwen3Config's default, whatever hidden_size / heads is
    elif model_type == "qwen2":
        head_dim = C // H
    else:
        head_dim = int(_get(cfg, "head_dim", C // H))
    bias = bool(_get(cfg, "attention_bias", False))
    scaling = _rope_scaling(cfg)
    if scaling and model_type != "llama":
        raise ValueError(f"config.json: rope_scaling on {model_type} is not supported")
    return Architecture(
        model_type=model_type, n_layer=int(cfg["num_hidden_layers"]), n_embd=C, n_head=H,
        n_kv_head=int(_get(cfg, "num_key_value_heads", H)), head_dim=head_dim, ffn=int(cfg["intermediate_size"]),
        n_vocab=int(cfg["vocab_size"]), n_ctx=int(_get(cfg, "max_position_embeddings", 2048)), norm="rmsnorm",
        eps=float(_get(cfg, "rms_norm_eps", 1e-6)), positions="rope",
        rope_theta=float(_get(cfg, "rope_theta", 10000.0)), rotary_dim=head_dim, rope_scaling=scaling,
        qkv_bias=True if model_type == "qwen2" else bias, o_bias=False if model_type == "qwen2" else bias,
        qk_norm=model_type == "qwen3", mlp="swiglu", mlp_bias=bool(_get(cfg, "mlp_bias", False)),
        parallel_residual=False, tied=bool(_get(cfg, "tie_word_embeddings", False)))


def from_hf(cfg):
    """An Architecture from config.json's dict; a model_type or feature outside the five is a ValueError naming it."""
    model_type = cfg.get("model_type", "gpt2")
    if model_type == "gpt2":
        arch = _gpt2(cfg)
    elif model_type == "gpt_neox":
        arch = _gpt_neox(cfg)
    elif model_type in ("llama", "qwen2", "qwen3"):
        arch = _llama_like(cfg, model_type)
    else:
        raise ValueError(f"config.json: model_type '{model_type}' is not supported "
                         "(supported: gpt2, gpt_neox, llama, qwen2, qwen3)")
    if arch.n_head % arch.n_kv_head:
        raise ValueError(f"config.json: {arch.n_head} heads do not share {arch.n_kv_head} key/value heads evenly")
    if arch.positions == "rope" and (arch.rotary_dim % 2 or not 0 < arch.rotary_dim <= arch.head_dim):
        raise ValueError(f"config.json: {arch.rotary_dim} rotating dimensions of a {arch.head_dim}-dimensional head")
    return arch
