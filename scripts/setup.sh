#!/usr/bin/env bash
# Installs what arcscope needs and is missing: Debian packages (apt-get) and npm packages (from package-lock.json).
# Already-installed parts are skipped, so running it again costs a second.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make libgtest-dev libeigen3-dev emscripten chromium clang clang-format libclang-rt-14-dev
          python3-torch python3-numpy python3-regex python3-onnx wabt clang-16
          python3-venv python3-ipykernel python3-nbclient python3-nbconvert jupyter-notebook
          firefox-esr webkit2gtk-driver xvfb xauth)
# (clang-16 compiles the relaxed-SIMD q8 kernel, which Emscripten's clang 14 cannot, and wabt checks its opcode;
# python3-onnx and wabt are for scripts/bench.sh: the ONNX peers, and the relaxed SIMD loop in WebAssembly text;
# python3-venv to jupyter-notebook for tests/jupyter: a fresh venv, a kernel, nbclient, nbconvert, the classic Notebook;
# firefox-esr to xauth for tests/browsers: Firefox ESR, WebKitGTK's WebKitWebDriver and MiniBrowser, and the X server
# xvfb-run starts for MiniBrowser, which has no headless mode)
command -v node >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  # Another apt (an unattended upgrade at boot) may hold the lock: wait for it rather than fail.
  $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null
fi

# npm packages exactly as locked; reinstall only when the lockfile changed since the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages from package-lock.json"
  npm ci --no-audit --no-fund --ignore-scripts >/dev/null
fi
