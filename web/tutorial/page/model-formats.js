// model-formats.js: the weight formats the loader converts a checkpoint to, each with one line on its exactness,
// size and speed (the loader dialog shows them), and which one a model gets unless another is picked. The one place
// these figures live: edit them here. dtype is convertCheckpoint's (lib/engine/convert.js) and a loaded model's
// config.dtype. Attention figures: every layer and head against float32 PyTorch at T = 64 on random checkpoints in
// Hugging Face's layout with sharp heads (attention scores of standard deviation 4: a mean largest weight of about
// 0.55-0.6, as trained heads have), distilgpt2's to medium's shapes (tests/reference/test_gpt2_family.py); speed and
// size at GPT-2 small's (scripts/bench.sh; README "Measured here").
import { MAX_BYTES } from '../../lib/shared/downloads.js';

export const MODEL_FORMATS = [
  { dtype: 'q16', line: '14-bit weights and activations · 265 MB for GPT-2 small · attention within 0.007 of ' +
    'float32 on sharp heads · prefill as fast as q8, decode about 1.3-1.5× q8\'s time · the default up to gpt2-large · ' +
    'the other decoders get 16 bits (within 0.009 through SmolLM2-135M\'s 30 sharp blocks)' },
  { dtype: 'q8', line: 'int8 weights, 14-bit activations · 140 MB · sharp heads\' attention up to 0.2-0.4 off ' +
    'float32 (their weight moves to other tokens), logits 1 − cosine about 2e-3 · fastest · the default for gpt2-xl, ' +
    'whose q16 file would be 3.3 GB' },
  { dtype: 'f32', line: 'float32 weights · 498 MB · attention within 0.00004 of PyTorch · prefill about 1.4×, decode ' +
    'about 3× q8\'s time' },
];

// The format a model gets unless another is picked, by the size of its q16 file (arcs: {q16: bytes}): q16 where that
// is a file the page takes whole (MAX_BYTES, 2 GiB), else q8. The engine's own rule (src/formats/default_format.cpp,
// engine.defaultDtype); tests/js/gpt2-family.test.mjs checks that the two agree on every model the loader lists.
export const defaultFormat = (arcs) => (arcs.q16 <= MAX_BYTES ? 'q16' : 'q8');
