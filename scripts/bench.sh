#!/usr/bin/env bash
# The benchmark, one command: arcscope q8/q16/f32 against ONNX Runtime Web (int8, the dynamically quantized graph
# transformers.js runs by default, and fp32) on the same GPT-2-small-shaped weights (124M parameters), in Node 20 and
# headless Chromium, one thread (plus ORT int8 with 2 threads in Chromium), then the per-kernel figures and whether
# relaxed SIMD would pay (scripts/bench/relaxed_simd.mjs).
# With --sizes, the benchmark per model size instead (scripts/bench/bench.mjs says what it measures): arcscope q8 on
# each size's weights, ONNX Runtime Web int8 beside it for the sizes of --ort-sizes (default medium; its export needs
# the fp32 graph under ONNX's 2 GB, so small or medium).
# Generated files (checkpoints, .arcs, .onnx, reference logits, results.json) go to build/bench/ and are reused on
# later runs while newer than what makes them. A whole checkpoint of the right shape in build/family/gpt2-<size>/ is
# read from there instead of being generated again (XL's is 6.4 GB).
# With --arch smollm2-135m, the benchmark of another architecture (scripts/bench/bench.mjs says what it measures):
# SmolLM2-135M-shaped weights (random, seed 0, its real vocabulary, in Hugging Face's Llama layout) as arcscope q8 and
# q16, GPT-2 small's beside them, ONNX Runtime Web int8 and fp32 (export_onnx.py through onnx_decoder.py) and
# llama.cpp's wasm build on a Q8_0 GGUF (write_gguf.py); then the KV cache and a 4,096-token text in Chromium.
# Usage: scripts/bench.sh [--rounds N] [--node-only | --browser-only] [--firefox] [--lean] [--systems KEY,KEY]
#          [--no-accuracy] [--no-build]   (scripts/bench/bench.mjs says what each does)
#        scripts/bench.sh --arch smollm2-135m [--rounds N] [--long-text-rounds N] [--node-only | --browser-only]
#          [--no-build]
#        scripts/bench.sh --sizes small,medium,large,xl [--ort-sizes medium] [--rounds N] [--node-only | --browser-only]
#          [--no-build]
# --no-build: use build/ as it is (another build may be running in the same tree).
set -euo pipefail
shopt -s inherit_errexit  # a failure inside $(...) stops the script too
cd "$(dirname "$0")/.."
export PYTHONPYCACHEPREFIX="$PWD/build/pycache"  # no __pycache__ in the source tree
dir=build/bench
py=/usr/bin/python3  # Debian's, with torch and onnx (the python3 first on PATH has neither)

sizes='' arch='' ort_sizes=medium build=1 pass=()
while [ $# -gt 0 ]; do
  case $1 in
    --sizes) sizes=$2; pass+=("$1" "$2"); shift 2 ;;
    --arch) arch=$2; pass+=("$1" "$2"); shift 2 ;;
    --ort-sizes) ort_sizes=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) pass+=("$1"); shift ;;
  esac
done
[ -n "$sizes" ] && pass+=(--ort-sizes "$ort_sizes")

# layers heads width, as Hugging Face's gpt2, gpt2-medium, gpt2-large and gpt2-xl
shape_of() {
  case $1 in
    small) echo 12 12 768 ;;
    medium) echo 24 16 1024 ;;
    large) echo 36 20 1280 ;;
    xl) echo 48 25 1600 ;;
    *) echo "bench.sh: no size '$1' (small, medium, large, xl)" >&2; return 1 ;;
  esac
}
# The checkpoint of a size (random weights, seed 0, in the Hugging Face layout): build/family/gpt2-<size> when a whole
# one is there, else build/bench/gpt2-<size>, generated unless whole. Prints its directory.
checkpoint_of() {
  local size=$1 shape family own n_layer n_head n_embd
  shape=$(shape_of "$size")
  read -r n_layer n_head n_embd <<<"$shape"
  family=build/family/gpt2-$size own=$dir/gpt2-$size
  if node scripts/bench/checkpoint_ready.mjs "$family" $n_layer $n_head $n_embd 1024 50257; then
    echo "$family"
    return
  fi
  if ! node scripts/bench/checkpoint_ready.mjs "$own" $n_layer $n_head $n_embd 1024 50257; then
    echo "generating a GPT-2-$size-shaped checkpoint in $own" >&2
    $py scripts/make_checkpoint.py --out "$own" --n-layer $n_layer --n-head $n_head --n-embd $n_embd --n-ctx 1024 \
      --vocab 50257 --seed 0 >&2
  fi
  echo "$own"
}
# Rebuild a generated file when it is missing or older than what makes it: stale OUT INPUT...
stale() { local out=$1; shift; [ ! -f "$out" ] || [ -n "$(find "$@" -newer "$out" 2>/dev/null)" ]; }
convert() {  # convert CHECKPOINT NAME DTYPE
  local out=$dir/$2.$3.arcs
  if stale "$out" "$1/model.safetensors" build/native/arcscope; then
    echo "converting $1 to $out" >&2
    build/native/arcscope convert --in "$1" --out "$out" --dtype "$3"
  fi
}
# ONNX: the last-position graph (prefill) and the decoder with past key/values (decode), fp32 and int8.
onnx_graphs() {  # onnx_graphs CHECKPOINT NAME
  local ckpt=$1 name=$2 graph
  if stale "$dir/$name.onnx" scripts/bench/export_onnx.py scripts/bench/onnx_decoder.py "$ckpt/model.safetensors"; then
    $py scripts/bench/export_onnx.py --model "$ckpt" --out "$dir/$name.onnx"
  fi
  if stale "$dir/$name.kv.onnx" scripts/bench/export_onnx.py scripts/bench/onnx_decoder.py "$ckpt/model.safetensors"; then
    $py scripts/bench/export_onnx.py --model "$ckpt" --out "$dir/$name.kv.onnx" --past
  fi
  for graph in $name $name.kv; do
    if stale "$dir/$graph.int8.onnx" scripts/bench/quantize_onnx.py "$dir/$graph.onnx"; then
      $py scripts/bench/quantize_onnx.py --in "$dir/$graph.onnx" --out "$dir/$graph.int8.onnx"
    fi
  done
}

{ [ -d node_modules/onnxruntime-web ] && $py -c 'import onnx' 2>/dev/null && command -v wat2wasm >/dev/null; } ||
  ./scripts/setup.sh
[ $build = 0 ] || ./scripts/build.sh all >/dev/null
mkdir -p "$dir"

if [ -n "$sizes" ]; then
  for size in ${sizes//,/ }; do
    ckpt=$(checkpoint_of "$size")
    convert "$ckpt" "gpt2-$size" q8
    if [[ ",$ort_sizes," == *",$size,"* ]]; then onnx_graphs "$ckpt" "gpt2-$size"; fi
  done
  node scripts/bench/bench.mjs "${pass[@]}"
  exit
fi

if [ -n "$arch" ]; then
  # make_checkpoint.py's flags for the architecture's shape (its config as released)
  case $arch in
    smollm2-135m) flags=(--arch llama --n-layer 30 --n-head 9 --n-kv-head 3 --n-embd 576 --ffn 1536 --vocab 49152
      --n-ctx 8192 --rope-theta 100000) ;;
    *) echo "bench.sh: no architecture '$arch' (smollm2-135m)" >&2; exit 1 ;;
  esac
  own=$dir/$arch
  if stale "$own/model.safetensors" scripts/make_checkpoint.py; then
    echo "generating a $arch-shaped checkpoint in $own" >&2
    $py scripts/make_checkpoint.py --out "$own" "${flags[@]}" --seed 0
  fi
  small=$(checkpoint_of small)
  for dtype in q8 q16; do convert "$own" "$arch" "$dtype"; convert "$small" gpt2-small "$dtype"; done
  onnx_graphs "$own" "$arch"
  if stale "$dir/$arch.q8_0.gguf" scripts/bench/write_gguf.py "$own/model.safetensors"; then
    $py scripts/bench/write_gguf.py --model "$own" --out "$dir/$arch.q8_0.gguf"
  fi
  reference=$dir/$arch.reference-logits-64.bin
  if stale "$reference" scripts/bench/reference_logits.py python/arcscope_reference/decoder_reference.py \
      "$own/model.safetensors"; then
    vocab=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$own/config.json')).vocab_size)")
    ids=$(node -e "import('./scripts/bench/measure.mjs').then((m) => console.log(m.benchIds(64, 0, $vocab).join(',')))")
    $py scripts/bench/reference_logits.py --model "$own" --ids "$ids" --out "$reference"
  fi
  node scripts/bench/bench.mjs "${pass[@]}"
  exit
fi

ckpt=$(checkpoint_of small)
for dtype in q8 q16 f32; do convert "$ckpt" gpt2-small "$dtype"; done
onnx_graphs "$ckpt" gpt2-small
# The PyTorch reference's logits for the accuracy check, on the ids measure.mjs uses.
if stale "$dir/reference-logits-64.bin" scripts/bench/reference_logits.py python/arcscope_reference/gpt2_reference.py; then
  ids=$(node -e "import('./scripts/bench/measure.mjs').then((m) => console.log(m.benchIds(64).join(',')))")
  $py scripts/bench/reference_logits.py --model "$ckpt" --ids "$ids" --out "$dir/reference-logits-64.bin"
fi

node scripts/bench/bench.mjs "${pass[@]}"
./scripts/bench_kernels.sh
echo
node scripts/bench/relaxed_simd.mjs
