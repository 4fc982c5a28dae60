#!/usr/bin/env bash
# Per-kernel figures for GPT-2 small's matrix shapes (T = 1 and 64), native and wasm (Node), plus the streaming-read
# bandwidth of each build. The small shapes fit in cache at T = 1, so their GB/s can exceed memory bandwidth; the
# 768x50257 LM head (43 MB as q8) is the honest streaming case. Usage: scripts/bench_kernels.sh [--reps N]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/native/arcscope ] || ./scripts/build.sh native
[ -f build/wasm/arcscope_diagnostics.wasm ] || ./scripts/build.sh wasm
build/native/arcscope bench-kernels "$@"
echo
node scripts/bench_kernels.mjs "$@"
