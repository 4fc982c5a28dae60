#!/usr/bin/env bash
# Builds the wasm library and writes dist/arcscope-<version>.tgz (npm package) and dist/arcscope-<version>/ (the
# same files as a folder to copy into any site). Installs what is missing first, like the other scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh wasm
node scripts/package.mjs
