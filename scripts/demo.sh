#!/usr/bin/env bash
# Installs what is missing, builds, and serves the tutorial page on http://127.0.0.1:${PORT:-8080}/
# Usage: scripts/demo.sh [--isolate] [other scripts/serve.mjs options]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
# --isolate serves the page cross-origin isolated (COOP/COEP), so the engine runs its threaded module.
exec node scripts/serve.mjs --port "${PORT:-8080}" "$@"
