"""arcscope's references in PyTorch and plain Python: independent of the C++ engine, to check it against, and the
default model's training. Import it with python/ on the path, from the repository's root:

  PYTHONPATH=python /usr/bin/python3 -m arcscope_reference.train_default_model --out build/default-model

(tests/reference/support.py puts python/ on the path for the tests). The modules:

  gpt2_reference          GPT-2 in PyTorch (Hugging Face's names and layout); load, save, perplexity
  hooked_reference        the same forward pass with TransformerLens's hook names
  interventions_reference patching, ablation, logit lens and direct logit attribution on those hooks
  decoder_reference       GPT-2, GPT-NeoX, Llama, Qwen2 and Qwen3 in one forward pass, with TransformerLens's hooks
  decoder_config          a decoder's architecture as data, read from config.json
  decoder_layers          their layer kinds: norms, RoPE (llama3 scaling, partial), grouped attention, activations
  article_blocks          the article's attention blocks and positional encoding (the tutorial's sections 1-4)
  attention_reference     the wasm attention blocks' reference, JSON in and out (tests/js runs it as a script)
  bpe_tokenizer           GPT-2's byte-level BPE
  safetensors_io          .safetensors read and write, sharded folders, bfloat16
  arcs_file               .arcs read (written from the format's documentation, not from the C++)
  corpus                  the training text: where it is, how it is read, where it is cut
  blas                    re-runs a process on OpenBLAS when Debian has it
  train_default_model     trains the shipped model (models/README.md)
  head_ablation           which heads a model needs to continue a repeated random sequence
"""
import os

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository's root
