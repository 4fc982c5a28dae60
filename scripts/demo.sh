#!/usr/bin/env bash
# Installs what is missing, builds, and serves the tutorial page on http://127.0.0.1:${PORT:-8080}/
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
exec node scripts/serve.mjs --port "${PORT:-8080}"
