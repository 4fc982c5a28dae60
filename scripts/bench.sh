#!/usr/bin/env bash
# Issue 6's benchmark, one command: arcscope q8/f32 against ONNX Runtime Web fp32 on the same GPT-2-small-shaped
# weights (124M parameters), in Node 20 and headless Chromium, one thread, then the per-kernel figures.
# Generated files (checkpoint, .arcs, .onnx, results.json) go to build/bench/ and are reused on later runs.
# Usage: scripts/bench.sh [--rounds N] [--node-only | --browser-only]
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPYCACHEPREFIX="$PWD/build/pycache"  # no __pycache__ in the source tree
dir=build/bench
ckpt=$dir/gpt2-small

[ -d node_modules/onnxruntime-web ] || ./scripts/setup.sh
./scripts/build.sh all >/dev/null
mkdir -p "$dir"
if [ ! -f "$ckpt/model.safetensors" ]; then
  echo "generating a GPT-2-small-shaped checkpoint in $ckpt"
  /usr/bin/python3 scripts/make_checkpoint.py --out "$ckpt" --n-layer 12 --n-head 12 --n-embd 768 --n-ctx 1024 \
    --vocab 50257 --seed 0
fi
for dtype in q8 f32; do
  [ -f "$dir/gpt2-small.$dtype.arcs" ] ||
    build/native/arcscope convert --in "$ckpt" --out "$dir/gpt2-small.$dtype.arcs" --dtype "$dtype"
done
[ -f "$dir/gpt2-small.onnx" ] ||
  /usr/bin/python3 scripts/bench/export_onnx.py --model "$ckpt" --out "$dir/gpt2-small.onnx"

node scripts/bench/bench.mjs "$@"
./scripts/bench_kernels.sh
