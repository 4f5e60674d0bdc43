#!/usr/bin/env bash
# Installs what svc-stt needs on Debian 12 or 13 and builds it: the system packages for decoding (ffmpeg)
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

# The supported runtime is Node.js 24 LTS: better-sqlite3 13 (Node-API, prebuilt in its package, so
# nothing compiles against Node's headers) needs 22 or later, and 12, which still ran on Node 20,
# aborts the process on Node 24.19 and later.
if [ "$(node -p 'process.versions.node.split(".")[0]')" != 24 ]; then
  echo "build: svc-stt needs Node.js 24 LTS, this is $(node -v) (see the README's quick start)" >&2
  exit 1
fi

npm ci --no-audit --no-fund
