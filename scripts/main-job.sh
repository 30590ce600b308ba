#!/usr/bin/env bash
# main-job.sh — the main job: install dependencies, build, and run a 200-seed fuzz campaign,
# printing its summary. Exit status is the campaign's: 0 all seeds passed, 1 some failed.
# Per-seed results go to build/main-job-results.jsonl (fresh each run).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh
rm -f build/main-job-results.jsonl
./build/rindle-sim fuzz --seeds 1..200 --jobs "${JOBS:-2}" --out build/main-job-results.jsonl
