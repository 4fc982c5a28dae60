#!/usr/bin/env bash
# How close each weight format's attention and logits come to float32 PyTorch at GPT-2 small's and medium's shapes
# (random checkpoints in Hugging Face's layout with sharp heads), against the exactness goals, plus each file's size.
# Too slow for every test run (1.4 GB of medium-shaped checkpoint is written and converted three ways).
# Usage: scripts/check_exactness.sh [small|medium|all] [QK]   (default all; QK = std of the attention scores, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPYCACHEPREFIX="$PWD/build/pycache"  # no __pycache__ in the source tree
which=${1:-all}
export ARCSCOPE_REF_QK=${2:-3}
[ -x build/native/arcscope ] || ./scripts/build.sh native

# shape "L,H,C,n_ctx,vocab,T" and bounds "q8 attention, q8 1-cos, q16 attention, q16 1-cos" (the goals)
run() {
  local name=$1 shape=$2 bounds=$3
  echo "== $name ($shape), scores of std $ARCSCOPE_REF_QK; goals $bounds"
  ARCSCOPE_REF_SHAPE=$shape ARCSCOPE_REF_BOUNDS=$bounds nice /usr/bin/python3 -m unittest discover -v -s tests/reference \
    -p test_engine.py 2>&1 | grep -E "T=|ok$|FAIL|Error" || true
  local dir=build/test-models/reference-${shape//,/-}-qk$ARCSCOPE_REF_QK/f32-ckpt
  for dtype in f32 q8 q16; do
    [ -f "$dir.$dtype.arcs" ] && echo "  $dtype file: $(stat -c %s "$dir.$dtype.arcs") bytes"
  done
}
if [ "$which" = small ] || [ "$which" = all ]; then run "GPT-2 small" 12,12,768,1024,50257,64 0.025,2e-4,0.003,2e-5; fi
if [ "$which" = medium ] || [ "$which" = all ]; then run "GPT-2 medium" 24,16,1024,1024,50257,48 0.04,3e-4,0.005,2e-5; fi
