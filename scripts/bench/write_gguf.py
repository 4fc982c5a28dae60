#!/usr/bin/python3
"""Write a Llama-layout checkpoint as a GGUF file in Q8_0 for llama.cpp's wasm build (@wllama/wllama), the llama.cpp
column of scripts/bench.sh --arch.

  /usr/bin/python3 scripts/bench/write_gguf.py --model DIR --out FILE.gguf

The weights are read by the independent PyTorch reference (python/arcscope_reference/decoder_reference.py) and laid out
as llama.cpp's own converter (convert_hf_to_gguf.py) writes a LlamaForCausalLM:
- tensors token_embd, blk.N.{attn_norm, attn_q, attn_k, attn_v, attn_output, ffn_norm, ffn_gate, ffn_up, ffn_down},
  output_norm, and output only when the head is untied; matrices in Q8_0 (blocks of 32 values: an f16 scale
  d = max|x| / 127 and 32 int8 round(x / d)), norms in F32; a matrix [out, in] has GGUF dims (in, out).
- q_proj and k_proj rows permuted per head: Hugging Face's RoPE turns dimension i with i + d/2 (rotate_half), llama.cpp's
  "norm" RoPE for llama turns 2i with 2i + 1, so row 2i of a head takes HF's row i and row 2i + 1 HF's row i + d/2
  (k_proj with the key/value head count).
- llama.* metadata (context length, widths, head counts, rope freq base, RMS epsilon) and a tokenizer section with a
  synthetic SentencePiece-style vocabulary of n_vocab tokens, token i the one character U+20000 + i (no merges, no
  space prefix, no BOS added): wllama's completion takes text, not ids, and this makes the text of ids exactly
  those ids (measure.mjs's wllamaText), and a piece read back its id.
Only llama (no biases, no q/k norms) is written; other model_types are refused by name.
"""
import argparse
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from arcscope_reference import decoder_reference  # noqa: E402

GGUF_VERSION = 3
ALIGNMENT = 32
# gguf_type of metadata values
UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY = 4, 5, 6, 7, 8, 9
# ggml_type of tensors
GGML_F32, GGML_Q8_0 = 0, 8
LLAMA_FTYPE_MOSTLY_Q8_0 = 7
# llama.cpp's token type of an ordinary piece
NORMAL = 1


def q8_0(w):
    """float32 [rows, cols] (cols a multiple of 32) -> Q8_0 bytes: per block of 32, f16 d then 32 int8, as ggml's
    quantize_row_q8_0_ref (d = amax / 127, q = round(x / d) half away from zero)."""
    blocks = w.astype(np.float32).reshape(-1, 32)
    d = np.abs(blocks).max(axis=1) / 127.0
    inv = np.divide(1.0, d, out=np.zeros_like(d), where=d != 0)
    x = blocks * inv[:, None]
    q = (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(np.int8)
    out = np.empty(len(blocks), dtype=[("d", "<f2"), ("qs", "i1", 32)])
    out["d"], out["qs"] = d.astype(np.float16), q
    return out.tobytes()


def rope_rows_to_interleaved(w, heads):
    """[heads * d, C] rows per head [i | i + d/2] -> [2i, 2i + 1] (convert_hf_to_gguf.py's LlamaModel.permute)."""
    rows, cols = w.shape
    return w.reshape(heads, 2, rows // heads // 2, cols).swapaxes(1, 2).reshape(rows, cols)


class Writer:
    def __init__(self):
        self.kv = []
        self.tensors = []  # (name, dims (ne0 first), ggml type, bytes)

    def add(self, key, kind, value, elem=None):
        self.kv.append((key, kind, value, elem))

    def tensor(self, name, array, quantize):
        array = np.ascontiguousarray(array, dtype=np.float32)
        dims = list(reversed(array.shape))  # ggml's ne: the innermost (contiguous) dimension first
        if quantize:
            self.tensors.append((name, dims, GGML_Q8_0, q8_0(array)))
        else:
            self.tensors.append((name, dims, GGML_F32, array.tobytes()))

    @staticmethod
    def _str(s):
        b = s.encode("utf-8")
        return struct.pack("<Q", len(b)) + b

    def _value(self, kind, value, elem):
        if kind == UINT32:
            return struct.pack("<I", value)
        if kind == INT32:
            return struct.pack("<i", value)
        if kind == FLOAT32:
            return struct.pack("<f", value)
        if kind == BOOL:
            return struct.pack("<?", value)
        if kind == STRING:
            return self._str(value)
        if kind == ARRAY:
            head = struct.pack("<IQ", elem, len(value))
            if elem == STRING:
                return head + b"".join(self._str(s) for s in value)
            fmt = {FLOAT32: "f", INT32: "i", UINT32: "I"}[elem]
            return head + np.asarray(value, dtype="<" + fmt).tobytes()
        raise ValueError(kind)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(b"GGUF" + struct.pack("<IQQ", GGUF_VERSION, len(self.tensors), len(self.kv)))
            for key, kind, value, elem in self.kv:
                f.write(self._str(key) + struct.pack("<I", kind) + self._value(kind, value, elem))
            offset = 0
            for name, dims, kind, data in self.tensors:
                f.write(self._str(name) + struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims) +
                        struct.pack("<IQ", kind, offset))
                offset += -(-len(data) // ALIGNMENT) * ALIGNMENT
            f.write(b"\0" * (-f.tell() % ALIGNMENT))
            for _, _, _, data in self.tensors:
                f.write(data)
                f.write(b"\0" * (-len(data) % ALIGNMENT))


FIRST_CHARACTER = 0x20000  # token i is chr(FIRST_CHARACTER + i): all of them Unicode scalar values, no surrogates


def synthetic_vocab(n):
    # All normal tokens, even those the special ids name, so that any id goes in as its character.
    return [chr(FIRST_CHARACTER + i) for i in range(n)], [0.0] * n, [NORMAL] * n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="checkpoint folder (config.json + safetensors), model_type llama")
    ap.add_argument("--out", required=True, help="GGUF file to write")
    args = ap.parse_args()
    model = decoder_reference.load(args.model)
    a = model.arch
    if a.model_type != "llama" or a.qkv_bias or a.o_bias or a.mlp_bias or a.rope_scaling:
        raise SystemExit(f"write_gguf: only plain llama checkpoints (no biases, no rope_scaling), got {a.model_type}")
    if a.head_dim * a.n_head != a.n_embd:
        raise SystemExit("write_gguf: head_dim x n_head must equal the width (llama.cpp's llama reads it so)")
    w = Writer()
    w.add("general.architecture", STRING, "llama")
    w.add("general.name", STRING, os.path.basename(os.path.normpath(args.model)))
    w.add("general.file_type", UINT32, LLAMA_FTYPE_MOSTLY_Q8_0)
    w.add("general.alignment", UINT32, ALIGNMENT)
    w.add("llama.context_length", UINT32, a.n_ctx)
    w.add("llama.embedding_length", UINT32, a.n_embd)
    w.add("llama.block_count", UINT32, a.n_layer)
    w.add("llama.feed_forward_length", UINT32, a.ffn)
    w.add("llama.attention.head_count", UINT32, a.n_head)
    w.add("llama.attention.head_count_kv", UINT32, a.n_kv_head)
    w.add("llama.rope.freq_base", FLOAT32, float(a.rope_theta))
    w.add("llama.rope.dimension_count", UINT32, a.head_dim)
    w.add("llama.attention.layer_norm_rms_epsilon", FLOAT32, float(a.eps))
    w.add("llama.vocab_size", UINT32, a.n_vocab)
    tokens, scores, types = synthetic_vocab(a.n_vocab)
    w.add("tokenizer.ggml.model", STRING, "llama")
    w.add("tokenizer.ggml.tokens", ARRAY, tokens, STRING)
    w.add("tokenizer.ggml.scores", ARRAY, scores, FLOAT32)
    w.add("tokenizer.ggml.token_type", ARRAY, types, INT32)
    w.add("tokenizer.ggml.unknown_token_id", UINT32, 0)
    w.add("tokenizer.ggml.bos_token_id", UINT32, 1)
    w.add("tokenizer.ggml.eos_token_id", UINT32, 2)
    w.add("tokenizer.ggml.add_bos_token", BOOL, False)  # ids go in as given
    w.add("tokenizer.ggml.add_eos_token", BOOL, False)
    w.add("tokenizer.ggml.add_space_prefix", BOOL, False)

    w.tensor("token_embd.weight", model.embed.numpy(), quantize=True)
    for i, b in enumerate(model.blocks):
        p = f"blk.{i}."
        w.tensor(p + "attn_norm.weight", b["ln1_w"].numpy(), quantize=False)
        w.tensor(p + "attn_q.weight", rope_rows_to_interleaved(b["q_w"].numpy(), a.n_head), quantize=True)
        w.tensor(p + "attn_k.weight", rope_rows_to_interleaved(b["k_w"].numpy(), a.n_kv_head), quantize=True)
        w.tensor(p + "attn_v.weight", b["v_w"].numpy(), quantize=True)
        w.tensor(p + "attn_output.weight", b["o_w"].numpy(), quantize=True)
        w.tensor(p + "ffn_norm.weight", b["ln2_w"].numpy(), quantize=False)
        w.tensor(p + "ffn_gate.weight", b["gate_w"].numpy(), quantize=True)
        w.tensor(p + "ffn_up.weight", b["up_w"].numpy(), quantize=True)
        w.tensor(p + "ffn_down.weight", b["down_w"].numpy(), quantize=True)
    w.tensor("output_norm.weight", model.final_w.numpy(), quantize=False)
    if model.head is not model.embed:
        w.tensor("output.weight", model.head.numpy(), quantize=True)
    w.write(args.out)
    print(f"wrote {args.out} ({os.path.getsize(args.out) / 1e6:.1f} MB, {len(w.tensors)} tensors, Q8_0)")


if __name__ == "__main__":
    main()
