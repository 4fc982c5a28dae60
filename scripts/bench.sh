#!/usr/bin/env bash
# The benchmark, one command: arcscope q8/q16/f32 against ONNX Runtime Web (int8, the dynamically quantized graph
# transformers.js runs by default, and fp32) on the same GPT-2-small-shaped weights (124M parameters), in Node 20 and
# headless Chromium, one thread (plus ORT int8 with 2 threads in Chromium), then the per-kernel figures and whether
# relaxed SIMD would pay (scripts/bench/relaxed_simd.mjs).
# Generated files (checkpoint, .arcs, .onnx, reference logits, results.json) go to build/bench/ and are reused on
# later runs. Usage: scripts/bench.sh [--rounds N] [--node-only | --browser-only] [--no-accuracy]
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPYCACHEPREFIX="$PWD/build/pycache"  # no __pycache__ in the source tree
dir=build/bench
ckpt=$dir/gpt2-small
py=/usr/bin/python3  # Debian's, with torch and onnx (the python3 first on PATH has neither)

{ [ -d node_modules/onnxruntime-web ] && $py -c 'import onnx' 2>/dev/null && command -v wat2wasm >/dev/null; } ||
  ./scripts/setup.sh
./scripts/build.sh all >/dev/null
mkdir -p "$dir"
if [ ! -f "$ckpt/model.safetensors" ]; then
  echo "generating a GPT-2-small-shaped checkpoint in $ckpt"
  $py scripts/make_checkpoint.py --out "$ckpt" --n-layer 12 --n-head 12 --n-embd 768 --n-ctx 1024 \
    --vocab 50257 --seed 0
fi
for dtype in q8 q16 f32; do
  [ -f "$dir/gpt2-small.$dtype.arcs" ] ||
    build/native/arcscope convert --in "$ckpt" --out "$dir/gpt2-small.$dtype.arcs" --dtype "$dtype"
done
# Rebuild a generated file when it is missing or older than what makes it: stale OUT INPUT...
stale() { local out=$1; shift; [ ! -f "$out" ] || [ -n "$(find "$@" -newer "$out" 2>/dev/null)" ]; }
# ONNX: the last-position graph (prefill) and the decoder with past key/values (decode), fp32 and int8.
if stale "$dir/gpt2-small.onnx" scripts/bench/export_onnx.py; then
  $py scripts/bench/export_onnx.py --model "$ckpt" --out "$dir/gpt2-small.onnx"
fi
if stale "$dir/gpt2-small.kv.onnx" scripts/bench/export_onnx.py; then
  $py scripts/bench/export_onnx.py --model "$ckpt" --out "$dir/gpt2-small.kv.onnx" --past
fi
for graph in gpt2-small gpt2-small.kv; do
  if stale "$dir/$graph.int8.onnx" scripts/bench/quantize_onnx.py "$dir/$graph.onnx"; then
    $py scripts/bench/quantize_onnx.py --in "$dir/$graph.onnx" --out "$dir/$graph.int8.onnx"
  fi
done
# The PyTorch reference's logits for the accuracy check, on the ids measure.mjs uses.
if stale "$dir/reference-logits-64.bin" scripts/bench/reference_logits.py python/arcscope_reference/gpt2_reference.py; then
  ids=$(node -e "import('./scripts/bench/measure.mjs').then((m) => console.log(m.benchIds(64).join(',')))")
  $py scripts/bench/reference_logits.py --model "$ckpt" --ids "$ids" --out "$dir/reference-logits-64.bin"
fi

node scripts/bench/bench.mjs "$@"
./scripts/bench_kernels.sh
echo
node scripts/bench/relaxed_simd.mjs
