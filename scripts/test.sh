#!/usr/bin/env bash
# test.sh — install dependencies, build, and run the whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/install-node-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "${JOBS:-2}"
