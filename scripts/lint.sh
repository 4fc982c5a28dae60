#!/usr/bin/env bash
# Checks the code's form: ESLint over every JavaScript file (eslint.config.mjs, which also checks the web side's
# boundaries: each folder's globals and the imports it may make) and clang-format over every C++ file
# (.clang-format). Both are pinned: ESLint in package-lock.json, clang-format by Debian 12's package (14).
# Usage: scripts/lint.sh [--fix]   (--fix rewrites what it can instead of failing)
set -uo pipefail
cd "$(dirname "$0")/.."
fix=${1:-}
status=0

if [ "$fix" = --fix ]; then npx eslint --fix . || status=1; else npx eslint . || status=1; fi

mapfile -t cpp < <(git ls-files '*.cpp' '*.h')
if [ "$fix" = --fix ]; then
  clang-format -i "${cpp[@]}" || status=1
else
  log=$(mktemp)
  if ! clang-format --dry-run --Werror "${cpp[@]}" 2>"$log"; then
    echo "clang-format: $(grep -c 'error:' "$log") places differ from .clang-format (scripts/lint.sh --fix rewrites them):"
    grep 'error:' "$log" | head -20
    status=1
  fi
  rm -f "$log"
fi
[ $status -eq 0 ] && echo "lint: ESLint and clang-format found nothing"
exit $status
