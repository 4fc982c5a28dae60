"""One PyTorch forward pass for GPT-2, GPT-NeoX (Pythia), Llama (SmolLM2, TinyLlama, Llama 3.2), Qwen2/2.5 and Qwen3,
the architecture read as data (decoder_config.Architecture) and the layers from decoder_layers.py: the independent
reference the engine's general model is checked against. Written from Hugging Face's modeling code, not from the engine.

    model = load("build/smollm2-like")        # config.json + model.safetensors or shards; F32, F16 or BF16
    logits, attention, cache = run(model, ids)  # (T, V), (L, H, T, T), {hook name: tensor}
    logits, attention, _ = run(model, ids, {"blocks.1.attn.hook_z": fn})  # with an edit at one point

Everything is computed in float32 from the stored weights cast up (an F16/BF16 file's values exactly). The hooks carry
TransformerLens's names and shapes, batch dimension dropped:
  hook_embed [T, C] (hook_pos_embed [T, C] with learned positions)
  blocks.{i}.hook_resid_pre [T, C]; ln1.hook_normalized [T, C] (before the norm's weight, and bias)
  attn.hook_q [T, H, d]; attn.hook_k, attn.hook_v [T, KV, d] (the key/value heads only, as in grouped attention);
      with q_norm/k_norm (Qwen3) hook_q and hook_k hold the projections before those norms
  attn.hook_rot_q [T, H, d], attn.hook_rot_k [T, KV, d] where positions rotate (after q_norm/k_norm)
  attn.hook_pattern [H, T, T] (every query head); attn.hook_z [T, H, d]; hook_attn_out [T, C]
  hook_resid_mid [T, C] (sequential blocks only: a parallel block has no point between attention and MLP)
  ln2.hook_normalized [T, C] (of resid_mid, or of resid_pre in a parallel block)
  mlp.hook_pre [T, F] (pre-activation; SwiGLU's gate), mlp.hook_pre_linear [T, F] (SwiGLU's up), mlp.hook_post [T, F]
  hook_mlp_out [T, C]; hook_resid_post [T, C]; ln_final.hook_normalized [T, C]

Tool, from the repository's root:
  PYTHONPATH=python /usr/bin/python3 -m arcscope_reference.decoder_reference --model DIR --ids 1,2,3 [--out out.npz]
"""
import argparse
import json
import os

import numpy as np
import torch

from . import decoder_config
from . import decoder_layers as layers
from . import safetensors_io
from .hook_points import hook_points


class Decoder:
    """An architecture and its float32 weights in one layout for every model_type: nn.Linear's [out, in] matrices
    (y = x W^T + b), q/k/v split out of fused or Conv1D storage. Per block: ln1_w, ln1_b, q_w [H d, C], q_b, k_w
    [KV d, C], k_b, v_w, v_b, o_w [C, H d], o_b, q_norm [d], k_norm [d], ln2_w, ln2_b, up_w [F, C] (the MLP's input
    projection: c_fc, dense_h_to_4h, up_proj), up_b, gate_w [F, C] (SwiGLU), gate_b, down_w [C, F], down_b; absent
    parts are None. Whole model: embed [V, C], pos [N, C] (learned positions) or None, final_w, final_b, head [V, C]."""

    def __init__(self, arch, embed, pos, blocks, final_w, final_b, head):
        self.arch, self.embed, self.pos, self.blocks = arch, embed, pos, blocks
        self.final_w, self.final_b, self.head = final_w, final_b, head
        inv_freq = None
        if arch.positions == "rope":
            inv_freq = layers.rope_inv_freq(arch.rope_theta, arch.rotary_dim)
            if arch.rope_scaling:
                inv_freq = layers.llama3_inv_freq(inv_freq, **arch.rope_scaling)
        self.inv_freq = inv_freq


BLOCK_PARTS = ("ln1_w", "ln1_b", "q_w", "q_b", "k_w", "k_b", "v_w", "v_b", "o_w", "o_b", "q_norm", "k_norm",
               "ln2_w", "ln2_b", "up_w", "up_b", "gate_w", "gate_b", "down_w", "down_b")


# ---------------------------------------------------------------- Hugging Face names -> Decoder

class _Tensors:
    """The checkpoint's tensors, taken one by name (float32 torch, shape checked); what is never taken is reported."""

    def __init__(self, tensors, source, skip=()):
        self.left = dict(tensors)
        self.source = source
        for name in [n for n in self.left if n.endswith(skip)]:
            del self.left[name]

    def take(self, name, shape, optional=False):
        if name not in self.left:
            if optional:
                return None
            raise ValueError(f"{self.source}: tensor {name} is missing")
        arr = self.left.pop(name)
        if list(arr.shape) != list(shape):
            raise ValueError(f"{self.source}: tensor {name}: expected {list(shape)}, got {list(arr.shape)}")
        return torch.from_numpy(np.array(arr, dtype=np.float32))

    def done(self):
        if self.left:
            raise ValueError(f"{self.source}: unexpected tensors {sorted(self.left)[:5]}")


def _gpt2_weights(arch, t):
    C, F = arch.n_embd, arch.ffn
    if any(n.startswith("transformer.") for n in t.left):  # the other HF form
        t.left = {n[len("transformer."):] if n.startswith("transformer.") else n: a for n, a in t.left.items()}
    t.left.pop("lm_head.weight", None)  # tied: a copy of wte when present
    blocks = []
    for i in range(arch.n_layer):
        p = f"h.{i}."
        qkv_w = t.take(p + "attn.c_attn.weight", [C, 3 * C]).t()  # Conv1D (in, out) -> [3C, C], rows [q | k | v]
        qkv_b = t.take(p + "attn.c_attn.bias", [3 * C])
        blocks.append(dict(
            ln1_w=t.take(p + "ln_1.weight", [C]), ln1_b=t.take(p + "ln_1.bias", [C]),
            q_w=qkv_w[:C], k_w=qkv_w[C:2 * C], v_w=qkv_w[2 * C:], q_b=qkv_b[:C], k_b=qkv_b[C:2 * C], v_b=qkv_b[2 * C:],
            o_w=t.take(p + "attn.c_proj.weight", [C, C]).t(), o_b=t.take(p + "attn.c_proj.bias", [C]),
            ln2_w=t.take(p + "ln_2.weight", [C]), ln2_b=t.take(p + "ln_2.bias", [C]),
            up_w=t.take(p + "mlp.c_fc.weight", [C, F]).t(), up_b=t.take(p + "mlp.c_fc.bias", [F]),
            down_w=t.take(p + "mlp.c_proj.weight", [F, C]).t(), down_b=t.take(p + "mlp.c_proj.bias", [C])))
    embed = t.take("wte.weight", [arch.n_vocab, C])
    pos = t.take("wpe.weight", [arch.n_ctx, C])
    final_w, final_b = t.take("ln_f.weight", [C]), t.take("ln_f.bias", [C])
    return Decoder(arch, embed, pos, blocks, final_w, final_b, embed)


def _gpt_neox_weights(arch, t):
    C, H, d, F = arch.n_embd, arch.n_head, arch.head_dim, arch.ffn
    blocks = []
    for i in range(arch.n_layer):
        p = f"gpt_neox.layers.{i}."
        # query_key_value's 3C rows are [head, (q, k, v), head_dim]: head h's q, then its k, then its v
        qkv_w = t.take(p + "attention.query_key_value.weight", [3 * C, C]).reshape(H, 3, d, C)
        qkv_b = t.take(p + "attention.query_key_value.bias", [3 * C], optional=not arch.qkv_bias)
        qkv_b = qkv_b.reshape(H, 3, d) if qkv_b is not None else None
        part_w = [qkv_w[:, j].reshape(H * d, C) for j in range(3)]
        part_b = [qkv_b[:, j].reshape(H * d) if qkv_b is not None else None for j in range(3)]
        blocks.append(dict(
            ln1_w=t.take(p + "input_layernorm.weight", [C]), ln1_b=t.take(p + "input_layernorm.bias", [C]),
            q_w=part_w[0], k_w=part_w[1], v_w=part_w[2], q_b=part_b[0], k_b=part_b[1], v_b=part_b[2],
            o_w=t.take(p + "attention.dense.weight", [C, C]),
            o_b=t.take(p + "attention.dense.bias", [C], optional=not arch.o_bias),
            ln2_w=t.take(p + "post_attention_layernorm.weight", [C]),
            ln2_b=t.take(p + "post_attention_layernorm.bias", [C]),
            up_w=t.take(p + "mlp.dense_h_to_4h.weight", [F, C]), up_b=t.take(p + "mlp.dense_h_to_4h.bias", [F]),
            down_w=t.take(p + "mlp.dense_4h_to_h.weight", [C, F]), down_b=t.take(p + "mlp.dense_4h_to_h.bias", [C])))
    embed = t.take("gpt_neox.embed_in.weight", [arch.n_vocab, C])
    final_w = t.take("gpt_neox.final_layer_norm.weight", [C])
    final_b = t.take("gpt_neox.final_layer_norm.bias", [C])
    head = embed if arch.tied else t.take("embed_out.weight", [arch.n_vocab, C])
    return Decoder(arch, embed, None, blocks, final_w, final_b, head)


def _llama_like_weights(arch, t):
    C, H, KV, d, F = arch.n_embd, arch.n_head, arch.n_kv_head, arch.head_dim, arch.ffn
    blocks = []
    for i in range(arch.n_layer):
        p = f"model.layers.{i}."
        a, m = p + "self_attn.", p + "mlp."

        def linear(name, out, inn, bias):
            return t.take(name + ".weight", [out, inn]), (t.take(name + ".bias", [out]) if bias else None)

        q_w, q_b = linear(a + "q_proj", H * d, C, arch.qkv_bias)
        k_w, k_b = linear(a + "k_proj", KV * d, C, arch.qkv_bias)
        v_w, v_b = linear(a + "v_proj", KV * d, C, arch.qkv_bias)
        o_w, o_b = linear(a + "o_proj", C, H * d, arch.o_bias)
        gate_w, gate_b = linear(m + "gate_proj", F, C, arch.mlp_bias)
        up_w, up_b = linear(m + "up_proj", F, C, arch.mlp_bias)
        down_w, down_b = linear(m + "down_proj", C, F, arch.mlp_bias)
        blocks.append(dict(
            ln1_w=t.take(p + "input_layernorm.weight", [C]), ln2_w=t.take(p + "post_attention_layernorm.weight", [C]),
            q_w=q_w, q_b=q_b, k_w=k_w, k_b=k_b, v_w=v_w, v_b=v_b, o_w=o_w, o_b=o_b,
            q_norm=t.take(a + "q_norm.weight", [d]) if arch.qk_norm else None,
            k_norm=t.take(a + "k_norm.weight", [d]) if arch.qk_norm else None,
            gate_w=gate_w, gate_b=gate_b, up_w=up_w, up_b=up_b, down_w=down_w, down_b=down_b))
    embed = t.take("model.embed_tokens.weight", [arch.n_vocab, C])
    final_w = t.take("model.norm.weight", [C])
    if arch.tied:
        t.left.pop("lm_head.weight", None)  # some files store the tied copy too
        head = embed
    else:
        head = t.take("lm_head.weight", [arch.n_vocab, C])
    return Decoder(arch, embed, None, blocks, final_w, None, head)


# Buffers checkpoints carry that are not weights: GPT-2's causal masks, old GPT-NeoX files' masks and inverse
# frequencies, rotary_emb.inv_freq some Llama conversions kept.
_BUFFERS = (".attn.bias", ".attn.masked_bias", ".attention.bias", ".attention.masked_bias", "rotary_emb.inv_freq")
_WEIGHTS = {"gpt2": _gpt2_weights, "gpt_neox": _gpt_neox_weights, "llama": _llama_like_weights,
            "qwen2": _llama_like_weights, "qwen3": _llama_like_weights}


def from_tensors(config, tensors, source="<tensors>"):
    """A Decoder from config.json's dict and {HF name: array}; unexpected, missing or misshapen tensors are errors."""
    arch = decoder_config.from_hf(config)
    t = _Tensors(tensors, source, skip=_BUFFERS)
    model = _WEIGHTS[arch.model_type](arch, t)
    for block in model.blocks:
        for part in BLOCK_PARTS:
            block.setdefault(part, None)
    t.done()
    return model


def load(folder):
    """A checkpoint folder as Hugging Face serves it: config.json, and model.safetensors or the shards of
    model.safetensors.index.json, in F32, F16 or BF16."""
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    tensors, _ = safetensors_io.load_folder(folder)
    return from_tensors(config, tensors, source=folder)


def in_float64(model):
    """The same model with its weights in float64 (the same values): run() then computes in float64 what float32
    rounds, the yardstick for how close float32 itself can get over many blocks. The rotary angles stay float32's
    (HF computes them in float32: they are part of the model)."""
    cast = lambda t: None if t is None else t.double()  # noqa: E731
    blocks = [{k: cast(v) for k, v in b.items()} for b in model.blocks]
    return Decoder(model.arch, cast(model.embed), cast(model.pos), blocks, cast(model.final_w), cast(model.final_b),
                   cast(model.head))


# ---------------------------------------------------------------- the forward pass

def _linear(x, w, b):
    """x (T, in), w [out, in] -> (T, out)."""
    return x @ w.t() + b if b is not None else x @ w.t()


@torch.no_grad()
def run(model, ids, hooks=None):
    """ids (T,) -> (logits (T, V), attention (L, H, T, T), cache {name: tensor}). hooks {name: fn(tensor) -> tensor or
    None} run at their point in the pass; a returned tensor replaces the activation from there on."""
    point, cache = hook_points(hooks)
    arch = model.arch
    H, KV, d = arch.n_head, arch.n_kv_head, arch.head_dim
    ids = torch.as_tensor(ids, dtype=torch.long)
    T = ids.shape[0]

    def norm(name, x, w, b):
        return layers.norm_finish(point(name, layers.norm_normalized(arch.norm, x, arch.eps)), w, b)

    x = point("hook_embed", model.embed[ids])
    if model.pos is not None:
        x = x + point("hook_pos_embed", model.pos[:T])
    cos_sin = layers.rope_cos_sin(model.inv_freq, T) if model.inv_freq is not None else None
    patterns = []
    for i, w in enumerate(model.blocks):
        b = f"blocks.{i}."
        x = point(b + "hook_resid_pre", x)
        h = norm(b + "ln1.hook_normalized", x, w["ln1_w"], w["ln1_b"])
        q = point(b + "attn.hook_q", _linear(h, w["q_w"], w["q_b"]).reshape(T, H, d))
        k = point(b + "attn.hook_k", _linear(h, w["k_w"], w["k_b"]).reshape(T, KV, d))
        v = point(b + "attn.hook_v", _linear(h, w["v_w"], w["v_b"]).reshape(T, KV, d))
        if w["q_norm"] is not None:  # Qwen3: each head's q and k RMS-normalized over head_dim, before RoPE
            q = layers.rms_norm_normalized(q, arch.eps) * w["q_norm"]
            k = layers.rms_norm_normalized(k, arch.eps) * w["k_norm"]
        if cos_sin is not None:
            q = point(b + "attn.hook_rot_q", layers.rope_forward(q, *cos_sin))
            k = point(b + "attn.hook_rot_k", layers.rope_forward(k, *cos_sin))
        pattern = point(b + "attn.hook_pattern", torch.softmax(layers.causal_scores(q, k), dim=-1))  # (H, T, T)
        patterns.append(pattern)
        z = point(b + "attn.hook_z", layers.attend(pattern, v))  # (T, H, d)
        attn_out = point(b + "hook_attn_out", _linear(z.reshape(T, H * d), w["o_w"], w["o_b"]))
        if arch.parallel_residual:  # x + attn(ln1(x)) + mlp(ln2(x)): both read resid_pre
            mlp_in = x
        else:
            x = point(b + "hook_resid_mid", x + attn_out)
            mlp_in = x
        h2 = norm(b + "ln2.hook_normalized", mlp_in, w["ln2_w"], w["ln2_b"])
        if arch.mlp == "swiglu":
            gate = point(b + "mlp.hook_pre", _linear(h2, w["gate_w"], w["gate_b"]))
            up = point(b + "mlp.hook_pre_linear", _linear(h2, w["up_w"], w["up_b"]))
            post = point(b + "mlp.hook_post", layers.silu(gate) * up)
        else:
            pre = point(b + "mlp.hook_pre", _linear(h2, w["up_w"], w["up_b"]))
            post = point(b + "mlp.hook_post", layers.ACTIVATIONS[arch.mlp](pre))
        mlp_out = point(b + "hook_mlp_out", _linear(post, w["down_w"], w["down_b"]))
        x = point(b + "hook_resid_post", (x + attn_out + mlp_out) if arch.parallel_residual else (x + mlp_out))
    final = norm("ln_final.hook_normalized", x, model.final_w, model.final_b)
    return final @ model.head.t(), torch.stack(patterns), cache


def forward(model, ids):
    """ids (T,) -> logits (T, V), attention (L, H, T, T)."""
    logits, attention, _ = run(model, ids)
    return logits, attention


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="checkpoint folder (config.json + safetensors)")
    ap.add_argument("--ids", required=True, help="comma-separated token ids")
    ap.add_argument("--out", help=".npz with logits (T, V) and attention (L, H, T, T)")
    args = ap.parse_args(argv)
    model = load(args.model)
    ids = [int(s) for s in args.ids.split(",")]
    logits, attention = forward(model, ids)
    if args.out:
        np.savez(args.out, logits=logits.numpy(), attention=attention.numpy())
    print(json.dumps({"model_type": model.arch.model_type, "T": len(ids), "argmax": logits.argmax(-1).tolist(),
                      "logits_last_head": logits[-1, :5].tolist()}))


if __name__ == "__main__":
    main()
