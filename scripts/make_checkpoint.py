#!/usr/bin/python3
"""Write a deterministic random decoder checkpoint in exactly the Hugging Face layout, for tests and benchmarks.

  /usr/bin/python3 scripts/make_checkpoint.py --out DIR --n-layer 12 --n-head 12 --n-embd 768 --n-ctx 1024 \
      --vocab 50257 --seed 0
  /usr/bin/python3 scripts/make_checkpoint.py --arch llama --out DIR --n-layer 2 --n-head 9 --n-kv-head 3 \
      --n-embd 576 --ffn 1536 --vocab 49152 --n-ctx 8192 --rope-theta 100000 --dtype BF16 --qk-scale 4  # SmolLM2's

--arch gpt2 (the default): config.json and model.safetensors as HF ships GPT-2: Conv1D weights stored (in, out), no
lm_head (tied to wte), and the h.{i}.attn.bias causal-mask buffers (1, 1, n_ctx, n_ctx) plus h.{i}.attn.masked_bias,
which a converter must skip.
--arch gpt_neox (Pythia), llama (SmolLM2, TinyLlama, Llama 3.2), qwen2 (Qwen2/2.5), qwen3: the tensor names, shapes
([out, in] nn.Linear weights) and config.json keys that transformers writes for that model_type. gpt_neox's fused
attention.query_key_value rows are laid out [head, (q, k, v), head_dim], and each layer also carries the buffers old
Pythia files hold (attention.bias, attention.masked_bias, attention.rotary_emb.inv_freq). qwen2 has q/k/v biases,
qwen3 per-head q_norm/k_norm; --attention-bias gives llama and qwen3 biases on q, k, v and o, as their config key does.
--dtype F32|F16|BF16 stores the weights in that type (bfloat16 rounded as torch rounds); --shards N writes
model-0000i-of-0000N.safetensors and model.safetensors.index.json instead of model.safetensors.
The same arguments always give the same bytes.

Scales are chosen so every part of the network matters and no two correct implementations disagree: LayerNorm
gains near 1, small random biases, value/MLP weights ~ 1/sqrt(fan_in) so each block moves the residual stream, and
Q/K weights sized so the attention scores have standard deviation --qk-scale (default 1): peaked enough to be
interesting, far from the chaotic regime that large random Q/K weights reach in deep stacks. The other decoders
follow the same rule: their norms (LayerNorm or RMSNorm) hand each projection inputs of unit mean square, RoPE's
rotations keep a vector's norm, so Q/K weights of std sqrt(qk_scale / n_embd) give scores of std qk_scale whatever
the positions; Qwen3's q_norm/k_norm rescale every head's q and k to unit mean square, so there the scale sits in
their weights instead (about sqrt(qk_scale) each).
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from arcscope_reference import safetensors_io  # noqa: E402


def make_state(L, H, C, N, V, seed, qk_scale):
    g = torch.Generator().manual_seed(seed)

    def randn(*shape, std=1.0, mean=0.0):
        return torch.randn(*shape, generator=g) * std + mean

    state = {
        "wte.weight": randn(V, C, std=0.5),
        "wpe.weight": randn(N, C, std=0.2),
    }
    qk_std = math.sqrt(qk_scale / C)  # score = q.k / sqrt(hd) then has std ~ C * qk_std^2 = qk_scale
    mask = torch.tril(torch.ones(N, N)).reshape(1, 1, N, N)
    for i in range(L):
        p = f"h.{i}."
        c_attn = torch.cat([randn(C, C, std=qk_std), randn(C, C, std=qk_std), randn(C, C, std=1 / math.sqrt(C))], 1)
        state.update({
            p + "ln_1.weight": randn(C, std=0.1, mean=1.0), p + "ln_1.bias": randn(C, std=0.05),
            p + "attn.c_attn.weight": c_attn,  # Conv1D: (in C, out 3C) = [q | k | v]
            p + "attn.c_attn.bias": randn(3 * C, std=0.05),
            p + "attn.c_proj.weight": randn(C, C, std=0.5 / math.sqrt(C)), p + "attn.c_proj.bias": randn(C, std=0.05),
            p + "ln_2.weight": randn(C, std=0.1, mean=1.0), p + "ln_2.bias": randn(C, std=0.05),
            p + "mlp.c_fc.weight": randn(C, 4 * C, std=1 / math.sqrt(C)), p + "mlp.c_fc.bias": randn(4 * C, std=0.05),
            p + "mlp.c_proj.weight": randn(4 * C, C, std=0.5 / math.sqrt(4 * C)),
            p + "mlp.c_proj.bias": randn(C, std=0.05),
            p + "attn.bias": mask,  # buffers HF checkpoints carry
            p + "attn.masked_bias": torch.tensor(-1e4),
        })
    state["ln_f.weight"] = randn(C, std=0.1, mean=1.0)
    state["ln_f.bias"] = randn(C, std=0.05)
    return state


# Per model_type: HF's class name, its default ids of the first and last token (Pythia/SmolLM2 0, Qwen 151643 and
# 151643 / 151645), whether its head is tied by default, and its RMSNorm/LayerNorm epsilon key and value.
ARCHS = {
    "gpt_neox": dict(cls="GPTNeoXForCausalLM", bos=0, eos=0, tied=False),
    "llama": dict(cls="LlamaForCausalLM", bos=0, eos=0, tied=True),
    "qwen2": dict(cls="Qwen2ForCausalLM", bos=151643, eos=151643, tied=True),
    "qwen3": dict(cls="Qwen3ForCausalLM", bos=151643, eos=151645, tied=True),
}


def make_decoder_state(a):
    """The state dict of a random --arch gpt_neox/llama/qwen2/qwen3 model, HF's names, nn.Linear weights [out, in],
    in the order HF's modules hold them (the order --shards splits it in)."""
    g = torch.Generator().manual_seed(a.seed)

    def randn(*shape, std=1.0, mean=0.0):
        return torch.randn(*shape, generator=g) * std + mean

    C, H, KV, hd, F, V, N = a.n_embd, a.n_head, a.n_kv_head, a.head_dim, a.ffn, a.vocab, a.n_ctx
    qk_std = math.sqrt(a.qk_scale / C)  # scores of std qk_scale (the module's docstring)
    gain = dict(std=0.1, mean=1.0)      # norm weights near 1
    if a.arch == "gpt_neox":
        rot = int(hd * a.rotary_pct)
        state = {"gpt_neox.embed_in.weight": randn(V, C, std=0.5)}
        mask = torch.tril(torch.ones(N, N, dtype=torch.bool)).reshape(1, 1, N, N)
        inv_freq = 1.0 / (a.rope_theta ** (torch.arange(0, rot, 2).float() / rot))
        for i in range(a.n_layer):
            p = f"gpt_neox.layers.{i}."
            q, k, v = randn(H, hd, C, std=qk_std), randn(H, hd, C, std=qk_std), randn(H, hd, C, std=1 / math.sqrt(C))
            state.update({
                p + "input_layernorm.weight": randn(C, **gain), p + "input_layernorm.bias": randn(C, std=0.05),
                p + "post_attention_layernorm.weight": randn(C, **gain),
                p + "post_attention_layernorm.bias": randn(C, std=0.05),
                p + "attention.bias": mask,  # buffers old Pythia files carry
                p + "attention.masked_bias": torch.tensor(-1e9),
                p + "attention.rotary_emb.inv_freq": inv_freq,
                p + "attention.query_key_value.weight": torch.stack([q, k, v], 1).reshape(3 * C, C),  # [H, 3, hd] rows
                p + "attention.query_key_value.bias": randn(3 * C, std=0.05),
                p + "attention.dense.weight": randn(C, C, std=0.5 / math.sqrt(C)),
                p + "attention.dense.bias": randn(C, std=0.05),
                p + "mlp.dense_h_to_4h.weight": randn(F, C, std=1 / math.sqrt(C)),
                p + "mlp.dense_h_to_4h.bias": randn(F, std=0.05),
                p + "mlp.dense_4h_to_h.weight": randn(C, F, std=0.5 / math.sqrt(F)),
                p + "mlp.dense_4h_to_h.bias": randn(C, std=0.05),
            })
        state["gpt_neox.final_layer_norm.weight"] = randn(C, **gain)
        state["gpt_neox.final_layer_norm.bias"] = randn(C, std=0.05)
        state["embed_out.weight"] = randn(V, C, std=1 / math.sqrt(C))
        return state

    qk_norm = a.arch == "qwen3"
    qkv_bias = a.arch == "qwen2" or a.attention_bias
    o_bias = a.attention_bias  # Qwen2's o_proj has none; llama/qwen3's attention_bias covers q, k, v and o
    proj_std = 1 / math.sqrt(C) if qk_norm else qk_std
    norm_gain = dict(std=0.1 * math.sqrt(a.qk_scale), mean=math.sqrt(a.qk_scale))
    state = {"model.embed_tokens.weight": randn(V, C, std=0.5)}
    for i in range(a.n_layer):
        p = f"model.layers.{i}."
        state[p + "input_layernorm.weight"] = randn(C, **gain)
        state[p + "self_attn.q_proj.weight"] = randn(H * hd, C, std=proj_std)
        if qkv_bias:
            state[p + "self_attn.q_proj.bias"] = randn(H * hd, std=0.1)
        state[p + "self_attn.k_proj.weight"] = randn(KV * hd, C, std=proj_std)
        if qkv_bias:
            state[p + "self_attn.k_proj.bias"] = randn(KV * hd, std=0.1)
        state[p + "self_attn.v_proj.weight"] = randn(KV * hd, C, std=1 / math.sqrt(C))
        if qkv_bias:
            state[p + "self_attn.v_proj.bias"] = randn(KV * hd, std=0.1)
        state[p + "self_attn.o_proj.weight"] = randn(C, H * hd, std=0.5 / math.sqrt(H * hd))
        if o_bias:
            state[p + "self_attn.o_proj.bias"] = randn(C, std=0.05)
        if qk_norm:
            state[p + "self_attn.q_norm.weight"] = randn(hd, **norm_gain)
            state[p + "self_attn.k_norm.weight"] = randn(hd, **norm_gain)
        state[p + "post_attention_layernorm.weight"] = randn(C, **gain)
        state[p + "mlp.gate_proj.weight"] = randn(F, C, std=1 / math.sqrt(C))
        state[p + "mlp.up_proj.weight"] = randn(F, C, std=1 / math.sqrt(C))
        state[p + "mlp.down_proj.weight"] = randn(C, F, std=0.5 / math.sqrt(F))
    state["model.norm.weight"] = randn(C, **gain)
    if not a.tie_word_embeddings:
        state["lm_head.weight"] = randn(V, C, std=1 / math.sqrt(C))
    return state


def decoder_config(a):
    """config.json of an --arch gpt_neox/llama/qwen2/qwen3 checkpoint: the keys transformers writes for the
    model_type (as in Pythia-70m's, SmolLM2's / Llama 3.2's, Qwen2.5's and Qwen3's own files)."""
    info = ARCHS[a.arch]
    torch_dtype = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[a.dtype]
    common = {
        "architectures": [info["cls"]], "model_type": a.arch,
        "bos_token_id": min(info["bos"], a.vocab - 1), "eos_token_id": min(info["eos"], a.vocab - 1),
        "hidden_size": a.n_embd, "intermediate_size": a.ffn, "initializer_range": 0.02,
        "max_position_embeddings": a.n_ctx, "num_attention_heads": a.n_head, "num_hidden_layers": a.n_layer,
        "tie_word_embeddings": a.tie_word_embeddings, "torch_dtype": torch_dtype, "use_cache": True,
        "vocab_size": a.vocab,
    }
    if a.arch == "gpt_neox":
        specific = {"hidden_act": "gelu", "layer_norm_eps": 1e-5, "rotary_emb_base": a.rope_theta,
                    "rotary_pct": a.rotary_pct, "use_parallel_residual": a.parallel_residual}
    else:
        specific = {"attention_dropout": 0.0, "hidden_act": "silu", "num_key_value_heads": a.n_kv_head,
                    "rms_norm_eps": 1e-5 if a.arch == "llama" else 1e-6, "rope_theta": a.rope_theta}
        if a.arch != "qwen2":  # Qwen2's has neither: its head_dim is hidden_size / heads, its q/k/v always biased
            specific.update({"attention_bias": a.attention_bias, "head_dim": a.head_dim, "rope_scaling": None})
        if a.arch == "llama":
            specific.update({"mlp_bias": False, "pretraining_tp": 1})
        else:
            specific.update({"max_window_layers": a.n_layer, "use_sliding_window": False,
                             "sliding_window": a.n_ctx if a.arch == "qwen2" else None})
        if a.llama3_scaling:
            factor, low, high, original = a.llama3_scaling
            specific["rope_scaling"] = {"factor": factor, "high_freq_factor": high, "low_freq_factor": low,
                                        "original_max_position_embeddings": int(original), "rope_type": "llama3"}
    config = dict(common, **specific)
    return {k: config[k] for k in sorted(config)}  # transformers writes its keys sorted


def stored(tensor, dtype):
    """A tensor in the checkpoint's storage type: floats as dtype, the boolean mask buffers as they are."""
    if tensor.dtype == torch.bool:
        return tensor.numpy()
    if dtype == "BF16":
        return safetensors_io.bf16(tensor)
    return tensor.numpy().astype(np.float16 if dtype == "F16" else np.float32, copy=False)


def llama3_scaling(text):
    parts = [float(x) for x in text.split(",")]
    if len(parts) != 4:
        raise argparse.ArgumentTypeError("expected FACTOR,LOW_FREQ_FACTOR,HIGH_FREQ_FACTOR,ORIGINAL_MAX_POSITIONS")
    return parts


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="directory to write config.json and the weights into")
    ap.add_argument("--arch", choices=["gpt2"] + sorted(ARCHS), default="gpt2", help="the model_type to write")
    ap.add_argument("--n-layer", type=int, default=2, help="num_hidden_layers")
    ap.add_argument("--n-head", type=int, default=4, help="num_attention_heads")
    ap.add_argument("--n-embd", type=int, default=128, help="hidden_size")
    ap.add_argument("--n-ctx", type=int, default=128, help="max_position_embeddings")
    ap.add_argument("--vocab", type=int, default=50257, help="vocab_size")
    ap.add_argument("--n-kv-head", type=int, help="num_key_value_heads (llama, qwen2, qwen3; default --n-head)")
    ap.add_argument("--head-dim", type=int, help="head_dim (llama, qwen3; default n_embd / n_head)")
    ap.add_argument("--ffn", type=int, help="intermediate_size (not gpt2; default 4 n_embd)")
    ap.add_argument("--rope-theta", type=float, default=10000.0, help="rope_theta (gpt_neox: rotary_emb_base)")
    ap.add_argument("--llama3-scaling", type=llama3_scaling, metavar="F,LOW,HIGH,ORIG",
                    help="llama: rope_scaling of rope_type llama3, e.g. 32,1,4,8192 (Llama 3.2's)")
    ap.add_argument("--rotary-pct", type=float, default=0.25, help="gpt_neox: share of head_dim that rotates")
    ap.add_argument("--no-parallel-residual", dest="parallel_residual", action="store_false",
                    help="gpt_neox: use_parallel_residual false")
    ap.add_argument("--attention-bias", action="store_true", help="llama, qwen3: biases on q, k, v and o")
    ap.add_argument("--tie-word-embeddings", choices=["true", "false"],
                    help="not gpt2 (always tied): the LM head is the embedding (default: the model_type's usual)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--qk-scale", type=float, default=1.0, help="std of the attention scores (default 1)")
    ap.add_argument("--dtype", type=str.upper, choices=["F32", "F16", "BF16"], default="F32",
                    help="storage type of the weights (f32, f16 and bf16 too)")
    ap.add_argument("--shards", type=int, default=1, help="split the weights into this many files plus an index")
    ap.add_argument("--prefix", action="store_true", help="gpt2: name tensors 'transformer.*' (the other HF form)")
    a = ap.parse_args(argv)
    if a.n_embd % a.n_head:
        ap.error("--n-embd must be divisible by --n-head")
    a.n_kv_head = a.n_kv_head or a.n_head
    a.head_dim = a.head_dim or a.n_embd // a.n_head
    a.ffn = a.ffn or 4 * a.n_embd
    if a.arch == "gpt2":
        extra = [k for k in ("n_kv_head", "head_dim", "ffn") if getattr(a, k) != dict(
            n_kv_head=a.n_head, head_dim=a.n_embd // a.n_head, ffn=4 * a.n_embd)[k]]
        if extra or a.llama3_scaling or a.attention_bias or a.tie_word_embeddings:
            ap.error("--arch gpt2 takes only --n-layer, --n-head, --n-embd, --n-ctx, --vocab and the storage options")
        return a
    if a.prefix:
        ap.error("--prefix is for --arch gpt2")
    if a.n_head % a.n_kv_head:
        ap.error("--n-head must be a multiple of --n-kv-head")
    if a.arch == "gpt_neox" and (a.n_kv_head != a.n_head or a.head_dim != a.n_embd // a.n_head):
        ap.error("gpt_neox has as many key/value heads as heads, of n_embd / n_head dimensions")
    if a.arch == "qwen2" and a.head_dim != a.n_embd // a.n_head:
        ap.error("qwen2's config has no head_dim: it is n_embd / n_head")
    if a.llama3_scaling and a.arch != "llama":
        ap.error("--llama3-scaling is for --arch llama")
    if a.arch == "gpt_neox" and a.attention_bias:
        ap.error("gpt_neox's attention is always biased")
    tied = ARCHS[a.arch]["tied"] if a.tie_word_embeddings is None else a.tie_word_embeddings == "true"
    a.tie_word_embeddings = tied
    return a


def main(argv=None):
    a = parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    if a.arch == "gpt2":
        state = make_state(a.n_layer, a.n_head, a.n_embd, a.n_ctx, a.vocab, a.seed, a.qk_scale)
        tensors = {("transformer." if a.prefix else "") + k: stored(v.float(), a.dtype) for k, v in state.items()}
        config = {
            "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new",
            "n_layer": a.n_layer, "n_head": a.n_head, "n_embd": a.n_embd, "n_positions": a.n_ctx, "n_ctx": a.n_ctx,
            "vocab_size": a.vocab, "layer_norm_epsilon": 1e-5, "bos_token_id": 50256, "eos_token_id": 50256,
            "n_inner": None, "tie_word_embeddings": True,
        }
        buffers = (".attn.bias", "masked_bias")  # not c_attn.bias
    else:
        state = make_decoder_state(a)
        tensors = {k: stored(v, a.dtype) for k, v in state.items()}
        config = decoder_config(a)
        buffers = (".attention.bias", "masked_bias", "inv_freq")
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    files = safetensors_io.save_folder(a.out, tensors, a.shards, {"format": "pt"})
    n_params = sum(v.numel() for k, v in state.items() if not k.endswith(buffers))
    shape = (f"{a.n_layer} layers, {a.n_head} heads, n_embd {a.n_embd}, n_ctx {a.n_ctx}, vocab {a.vocab}" if
             a.arch == "gpt2" else f"{a.arch}: {a.n_layer} layers, {a.n_head} heads ({a.n_kv_head} key/value) of "
             f"{a.head_dim}, hidden {a.n_embd}, ffn {a.ffn}, n_ctx {a.n_ctx}, vocab {a.vocab}, {a.dtype}, "
             f"{'one file' if len(files) == 1 else f'{len(files) - 1} shards'}")
    print(f"wrote {a.out}: {shape}, {n_params:,} parameters, seed {a.seed}")


if __name__ == "__main__":
    main()
