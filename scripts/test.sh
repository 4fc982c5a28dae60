#!/usr/bin/env bash
# Installs what is missing, builds both targets and runs every suite. Exits non-zero if any suite fails and
# ends with a one-line summary.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPYCACHEPREFIX="$PWD/build/pycache"  # no __pycache__ in the source tree
./scripts/setup.sh || { echo "SUMMARY: setup failed"; exit 1; }
./scripts/build.sh || { echo "SUMMARY: build failed"; exit 1; }
node scripts/package.mjs || { echo "SUMMARY: packaging failed"; exit 1; }  # dist/: what the package tests install

passed=(); failed=()
run_suite() {
  local name=$1; shift
  echo; echo "=== $name: $*"
  if "$@"; then passed+=("$name"); else failed+=("$name"); fi
}

run_suite "lint" ./scripts/lint.sh
run_suite "c++" ctest --test-dir build/native --output-on-failure -j 2
# The same tests under AddressSanitizer and UBSan, with wasm's 4 GB buffer limit (the perplexity figure is an accuracy
# check that takes half a minute there and exercises nothing the other tests do not).
sanitized_tests() {
  ./scripts/build.sh sanitize >/dev/null && ctest --test-dir build/sanitize --output-on-failure -j 2 -E HeldOutPerplexity
}
run_suite "c++ sanitizers" sanitized_tests
run_suite "reference" /usr/bin/python3 -m unittest discover -s tests/reference -p 'test_*.py'
run_suite "wasm-node" node --test tests/js/
run_suite "package" node --test tests/package/
# The Python package for Jupyter: the wheel installed offline into a fresh venv, the example notebook executed there
# (its HTML is what the browser suite opens), and the package's tests in that venv's Python.
jupyter_tests() {
  /usr/bin/python3 tests/jupyter/make_venv.py && build/jupyter/venv/bin/python tests/jupyter/execute_example.py &&
    build/jupyter/venv/bin/python -m unittest discover -s tests/jupyter -p 'test_*.py'
}
run_suite "jupyter" jupyter_tests
run_suite "browser" npx playwright test
# The tutorial, the embed page and a cross-origin <arc-scope> in Firefox ESR and WebKitGTK (Playwright's suite above
# drives Chromium).
run_suite "firefox-webkit" node --test tests/browsers/

echo
if [ ${#failed[@]} -eq 0 ]; then
  echo "SUMMARY: all ${#passed[@]} suites passed (${passed[*]})"
else
  echo "SUMMARY: ${#failed[@]} of $(( ${#passed[@]} + ${#failed[@]} )) suites FAILED (${failed[*]}); passed: ${passed[*]:-none}"
  exit 1
fi
