#!/usr/bin/env bash
# build.sh — configures and builds everything into ./build (RelWithDebInfo, Ninja, -j2).
# Extra arguments are passed to `cmake --build` (e.g. --target rindle-sim).
set -euo pipefail
cd "$(dirname "$0")/.."

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "${JOBS:-2}" "$@"
