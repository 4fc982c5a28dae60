"""Reference values of decoder_layers.py's functions on small fixed inputs, written as a C++ file that
tests/cpp/test_decoder_layers.cpp includes: the engine's rmsnorm_forward, rope_inv_freq, rope_table, rope_forward,
silu/swiglu and exact GELU are checked against these numbers, which come from PyTorch, not from the engine.

The inputs are exact floats the C++ test makes with the same formula (input_values). Each value is printed with nine
significant digits, which reads back as the same float.

Tool, from the repository's root (rewrites the file; the values change only if decoder_layers.py or torch does):
  PYTHONPATH=python /usr/bin/python3 -m arcscope_reference.decoder_layer_values > tests/cpp/decoder_layer_values.inc
"""
import numpy as np
import torch

from . import decoder_layers as layers

# (name, theta, rotary dim, llama3 scaling or None): SmolLM2's, Pythia's partial rotary (0.25 of 64), Llama 3.2's
# and Qwen3's.
FREQUENCIES = [
    ("smollm2", 100000.0, 64, None),
    ("pythia", 10000.0, 16, None),
    ("llama32", 500000.0, 64, dict(factor=32.0, low_freq_factor=1.0, high_freq_factor=4.0,
                                    original_max_position_embeddings=8192)),
    ("qwen3", 1000000.0, 128, None),
]
TABLE_POSITIONS = [0, 1, 3, 1000, 8191]  # rows of the cos/sin table checked, for each configuration above


def input_values(n, scale, offset=0):
    """n exact floats in about [-1001, 1001] / scale: ((i + offset) * 7919 mod 2003 - 1001) / scale."""
    i = np.arange(offset, offset + n, dtype=np.int64)
    return torch.from_numpy(((i * 7919 % 2003 - 1001).astype(np.float32) / np.float32(scale)))


def inv_freq(theta, r, scaling):
    f = layers.rope_inv_freq(theta, r)
    return layers.llama3_inv_freq(f, **scaling) if scaling else f


def array(name, values):
    flat = torch.as_tensor(values).reshape(-1).tolist()
    body = ",\n    ".join(", ".join(f"{np.float32(v):.8e}f" for v in flat[i:i + 6]) for i in range(0, len(flat), 6))
    return f"const float {name}[{len(flat)}] = {{\n    {body}}};\n"


def main():
    out = ["// Written by PYTHONPATH=python /usr/bin/python3 -m arcscope_reference.decoder_layer_values (PyTorch "
           f"{torch.__version__}),\n// from python/arcscope_reference/decoder_layers.py: do not edit.\n"]
    for name, theta, r, scaling in FREQUENCIES:
        f = inv_freq(theta, r, scaling)
        out.append(array(f"k_{name}_inv_freq", f))
        cos, sin = [], []
        for p in TABLE_POSITIONS:
            c, s = layers.rope_cos_sin(f, 1, first_position=p)
            cos.append(c[0, : r // 2])
            sin.append(s[0, : r // 2])
        out.append(array(f"k_{name}_cos", torch.stack(cos)))
        out.append(array(f"k_{name}_sin", torch.stack(sin)))

    # RoPE on x (T 3, H 2, d 8), the first 4 dims rotating (theta 10000), at positions 5, 6, 7.
    x = input_values(3 * 2 * 8, 256).reshape(3, 2, 8)
    c, s = layers.rope_cos_sin(layers.rope_inv_freq(10000.0, 4), 3, first_position=5)
    out.append(array("k_rope_partial_out", layers.rope_forward(x, c, s)))

    # RMSNorm of x (2, 40) with weight w (40), eps 1e-6; and of a row (40) without the weight.
    x = input_values(2 * 40, 256).reshape(2, 40)
    w = input_values(40, 512, offset=100)
    out.append(array("k_rmsnorm_out", layers.norm_finish(layers.rms_norm_normalized(x, 1e-6), w)))

    # SwiGLU of gate, up (2, 10); SiLU and exact GELU of 60 values in about [-8, 8].
    gate = input_values(20, 128).reshape(2, 10)
    up = input_values(20, 256, offset=50).reshape(2, 10)
    out.append(array("k_swiglu_out", layers.silu(gate) * up))
    v = input_values(60, 125, offset=7)
    out.append(array("k_silu_out", layers.silu(v)))
    out.append(array("k_gelu_erf_out", layers.gelu_erf(v)))
    print("\n".join(out), end="")


if __name__ == "__main__":
    main()
