#!/usr/bin/env bash
# libFuzzer + AddressSanitizer over the engine's parsers: the .arcs loader (and a forward pass over whatever loads),
# the streaming safetensors converter, the GPT-2 tokenizer, and every size computed from a config or a shape. Built
# with ARCSCOPE_ADDRESS_BITS=32, so sizes are checked against wasm's 4 GB as in the browser. Not part of test.sh (it
# runs until stopped).
# Usage: scripts/fuzz.sh [model_file|convert|tokenizer|shapes|all] [seconds per target, default 300]
# Crashes land in build/fuzz/<target>/ as crash-* files, the corpus in build/fuzz/<target>/corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPYCACHEPREFIX="$PWD/build/pycache"  # no __pycache__ in the source tree
which=${1:-all}
seconds=${2:-300}
out=build/fuzz
mkdir -p "$out"
[ -f build/native/generated/unicode_tables.inc ] && [ -f build/native/gpt2-tokenizer.bin ] || ./scripts/build.sh native

# The library once, with the fuzzer's instrumentation and ASan (clang; no main()).
lib=$out/libarcscope_fuzz.a
if [ ! -f "$lib" ] || [ -n "$(find src include -name '*.cpp' -newer "$lib" | head -1)" ] || \
   [ -n "$(find src include -name '*.h' -newer "$lib" | head -1)" ]; then
  rm -rf "$out/obj" && mkdir -p "$out/obj"
  for f in src/{core,tokenizer,kernels,formats,model,analysis,article,diagnostics}/*.cpp; do
    echo "compiling $f"
    nice clang++ -std=c++17 -O1 -g -fsanitize=fuzzer-no-link,address -ffp-contract=off -DARCSCOPE_ADDRESS_BITS=32 -Iinclude -Isrc \
      -Ibuild/native/generated -isystem /usr/include/eigen3 -c "$f" -o "$out/obj/$(basename "$(dirname "$f")")_$(basename "$f" .cpp).o" &
    while [ "$(jobs -r | wc -l)" -ge 2 ]; do sleep 0.2; done
  done
  wait
  rm -f "$lib" && ar rcs "$lib" "$out"/obj/*.o
fi

seed_models() {  # tiny valid model files: the fuzzer starts from real structure
  local dir=$1
  if [ ! -f "$dir/seed.q8.arcs" ]; then
    /usr/bin/python3 scripts/make_checkpoint.py --out "$out/seed-ckpt" --n-layer 1 --n-head 1 --n-embd 32 \
      --n-ctx 4 --vocab 8 >/dev/null
    build/native/arcscope convert --in "$out/seed-ckpt" --out "$dir/seed.q8.arcs" --dtype q8 >/dev/null
    build/native/arcscope convert --in "$out/seed-ckpt" --out "$dir/seed.f32.arcs" --dtype f32 >/dev/null
  fi
}

run_target() {
  local name=$1 dir=$out/$1
  mkdir -p "$dir/corpus"
  nice clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address -DARCSCOPE_ADDRESS_BITS=32 -Iinclude -Isrc -Itests/cpp \
    -Ibuild/native/generated -isystem /usr/include/eigen3 \
    -DARCSCOPE_TOKENIZER_PATH="\"$PWD/build/native/gpt2-tokenizer.bin\"" "fuzz/fuzz_$name.cpp" "$lib" -o "$dir/fuzz_$name"
  case $name in
    model_file) seed_models "$dir/corpus" ;;
    convert) seed_models "$out/model_file/corpus" 2>/dev/null || true
             # byte 0: the architecture (fuzz_convert.cpp's tiny()) and the cut
             { printf '\x46'; cat "$out/seed-ckpt/model.safetensors"; } > "$dir/corpus/seed.bin"
             for arch in gpt_neox:4d llama:54; do
               /usr/bin/python3 scripts/make_checkpoint.py --arch "${arch%:*}" --out "$out/seed-${arch%:*}" --n-layer 1 \
                 --n-head 2 --n-kv-head "$([ "${arch%:*}" = llama ] && echo 1 || echo 2)" --n-embd 32 --ffn 32 \
                 --n-ctx 4 --vocab 8 >/dev/null
               { printf "\\x${arch#*:}"; cat "$out/seed-${arch%:*}/model.safetensors"; } > "$dir/corpus/seed-${arch%:*}.bin"
             done ;;
    tokenizer) printf 'Hello world, caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd  \n\n it'"'"'s 123' \
                 > "$dir/corpus/seed.txt" ;;
  esac
  echo "=== fuzz_$name for ${seconds}s"
  (cd "$dir" && nice ./"fuzz_$name" corpus -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096 \
     -print_final_stats=1 2>&1 | tail -15)
}

case $which in
  all) mkdir -p "$out/model_file/corpus"; seed_models "$out/model_file/corpus"
       for t in model_file convert tokenizer shapes; do run_target $t; done ;;
  model_file|convert|tokenizer|shapes) run_target "$which" ;;
  *) echo "usage: scripts/fuzz.sh [model_file|convert|tokenizer|shapes|all] [seconds]" >&2; exit 1 ;;
esac
