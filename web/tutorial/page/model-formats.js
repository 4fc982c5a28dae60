// model-formats.js: the weight formats the loader converts a checkpoint to, each with one line on its exactness,
// size and speed (the loader dialog shows them). The one place these figures live: edit them here.
// dtype is convertCheckpoint's (lib/engine/model.js) and a loaded model's config.dtype; the first is the default.
// Measured on GPT-2-small-shaped weights (scripts/check_exactness.sh, scripts/bench.sh; README "Measured here").
export const MODEL_FORMATS = [
  { dtype: 'q8', line: 'int8 weights, 16-bit activations · 140 MB for GPT-2 small · attention within about 0.01 of ' +
    'float32, up to 0.09 on very sharp heads · fastest' },
  { dtype: 'q16', line: '14-bit weights and activations · 265 MB · attention within 0.002 of float32 · prefill as ' +
    'fast as q8, decode about 1.5× q8\'s time' },
  { dtype: 'f32', line: 'float32 weights · 498 MB · attention within 0.00001 of PyTorch · prefill about 1.4×, decode ' +
    'about 3× q8\'s time' },
];

export const DEFAULT_FORMAT = MODEL_FORMATS[0].dtype;
