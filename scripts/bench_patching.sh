#!/usr/bin/env bash
# The sweep benchmark: a patching sweep of GPT-2-small-shaped weights at T = 16 in Chromium and Node (arcscope
# q8, one thread) against PyTorch with TransformerLens-style hooks, alternating rounds. Reuses build/bench/ (made by
# scripts/bench.sh; made here if missing). Usage: scripts/bench_patching.sh [--rounds N]
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPYCACHEPREFIX="$PWD/build/pycache"  # no __pycache__ in the source tree
dir=build/bench
./scripts/build.sh all >/dev/null
mkdir -p "$dir"
[ -f "$dir/gpt2-small/model.safetensors" ] ||
  /usr/bin/python3 scripts/make_checkpoint.py --out "$dir/gpt2-small" --n-layer 12 --n-head 12 --n-embd 768 \
    --n-ctx 1024 --vocab 50257 --seed 0
[ -f "$dir/gpt2-small.q8.arcs" ] ||
  build/native/arcscope convert --in "$dir/gpt2-small" --out "$dir/gpt2-small.q8.arcs" --dtype q8
node scripts/bench/patching.mjs "$@"
