#!/usr/bin/env bash
# install-node-deps.sh — installs the real engine (@rindle/wasm 0.9.0, pinned in
# conformance/node/package.json + package-lock.json) into conformance/node/node_modules for the
# Node differential test (conformance/differential_test.cc). Only when Node and npm are present;
# without them (or offline) it says so and succeeds: that test then reports SKIPPED with the
# reason, never a silent pass. Fast when the pinned version is already installed.
set -euo pipefail
cd "$(dirname "$0")/../conformance/node"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "install-node-deps: node/npm not found; the Node differential test will be skipped"
  exit 0
fi
want=$(node -p 'require("./package.json").dependencies["@rindle/wasm"]')
have=$(node -p 'try { require("./node_modules/@rindle/wasm/package.json").version } catch { "" }')
if [ "$have" = "$want" ]; then
  echo "install-node-deps: @rindle/wasm@$have present"
  exit 0
fi
echo "install-node-deps: installing @rindle/wasm@$want into conformance/node"
if ! npm ci --no-audit --no-fund --loglevel=error; then
  echo "install-node-deps: npm ci failed (offline?); the Node differential test will be skipped" >&2
fi
