#!/usr/bin/env bash
# The engine against the PyTorch reference at GPT-2 small's shape (12 layers, 12 heads, n_embd 768, n_ctx 1024,
# vocab 50257; 124M parameters), on a random checkpoint in Hugging Face's layout. Too slow for every test run
# (a 548 MB checkpoint is written and converted three ways), so it lives here. Also prints the model file sizes,
# the converter's peak memory and forward timings at T=64.
# Usage: scripts/check_gpt2_small.sh [T]   (default T = 64)
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPYCACHEPREFIX="$PWD/build/pycache"  # no __pycache__ in the source tree
T=${1:-64}
[ -x build/native/arcscope ] || ./scripts/build.sh native
export ARCSCOPE_REF_SHAPE="12,12,768,1024,50257,$T"
nice /usr/bin/python3 -m unittest discover -v -s tests/reference -p test_engine.py

dir=build/test-models/reference-${ARCSCOPE_REF_SHAPE//,/-}
ckpt=$dir/f32-ckpt
echo
echo "checkpoint: $(stat -c %s "$ckpt/model.safetensors") bytes of safetensors"
for dtype in q8 f32; do
  out=$dir/gpt2-small.$dtype.arcs
  rss=$( { /usr/bin/time -f '%M' build/native/arcscope convert --in "$ckpt" --out "$out" --dtype "$dtype" >/dev/null; } 2>&1 )
  echo "$dtype: $(stat -c %s "$out") bytes, converter peak RSS $((rss / 1024)) MB"
  build/native/arcscope time --model "$out" --tokens 64 --decode 32 --repeat 5
done
