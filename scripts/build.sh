#!/usr/bin/env bash
# Builds both targets from the one CMakeLists.txt: build/native (CLI, tests) and build/wasm plus build/wasm-threads
# (the web modules, staged with the JS library into build/lib); on request
# also build/sanitize, the native tests under ASan + UBSan with wasm's 32-bit buffer limit.
# Usage: scripts/build.sh [native|wasm|sanitize|all]   (default: all = native and wasm)
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)

if [ "$target" = native ] || [ "$target" = all ]; then
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j "$jobs"
fi
if [ "$target" = sanitize ]; then
  cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DARCSCOPE_SANITIZE=ON -DARCSCOPE_ADDRESS_BITS=32 >/dev/null
  cmake --build build/sanitize -j "$jobs" --target arcscope_tests
fi
if [ "$target" = wasm ] || [ "$target" = all ]; then
  # Debian's emcc runs its JS optimizer with Debian's acorn, found only through NODE_PATH.
  export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/wasm -j "$jobs"
  # The threaded modules, for cross-origin isolated pages: the whole engine again, compiled with -pthread. Each build
  # links a SIMD128 module and a relaxed-SIMD one (arcscope_core_relaxed*: its q8 kernel compiled by clang-16).
  emcmake cmake -S . -B build/wasm-threads -DCMAKE_BUILD_TYPE=Release -DARCSCOPE_WASM_THREADS=ON >/dev/null
  cmake --build build/wasm-threads -j "$jobs" --target arcscope_core_wasm arcscope_core_relaxed_wasm
  node scripts/stage.mjs  # build/lib: the library with its wasm, tokenizer and default model beside it
fi
