#!/usr/bin/env bash
# Installs what svc-stt needs on Debian 12 and builds it: the system packages for decoding (ffmpeg)
# and the native build (cmake, g++, make), then `npm ci`, whose install hook fetches whisper.cpp's
# source from the npm registry (verified by hash) and builds the addon and whisper-cli, and whose
# prepare step compiles the TypeScript and makes the Silero VAD model.
#
# One script for every place svc-stt is built: .ci/run calls it with the test suite's extra
# packages, and the Dockerfile's build stage runs it as is.
#   bash scripts/build.sh [EXTRA_DEBIAN_PACKAGE ...]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(ffmpeg cmake g++ make "$@")
missing=()
for pkg in "${packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "build: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Native builds compile against the installed Node's headers (no header download on a closed
# network): Debian's nodejs puts them in /usr/include/node, the official images in /usr/local/include/node.
if [ -z "${npm_config_nodedir:-}" ]; then
  node_prefix="$(dirname "$(dirname "$(command -v node)")")"
  for dir in /usr "$node_prefix"; do
    if [ -f "$dir/include/node/node_api.h" ]; then export npm_config_nodedir="$dir"; break; fi
  done
fi

npm ci --no-audit --no-fund
