#!/usr/bin/env bash
# sanitize.sh — builds with AddressSanitizer + UndefinedBehaviorSanitizer into ./build-asan and
# runs the test suite there.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRINDLE_SANITIZE=ON
cmake --build build-asan -j "${JOBS:-2}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir build-asan --output-on-failure -j "${JOBS:-2}"
