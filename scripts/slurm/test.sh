#!/usr/bin/env bash
# test.sh — end-to-end test of the Slurm recipe: starts the single-node cluster
# (start-cluster.sh), runs a SHARDS-shard job array over SEEDS (run-campaign.sh), runs the same
# seeds as one `fuzz` campaign on this machine, and requires
#   1. the merged summary to equal the one-machine summary (seed counts, failures with their
#      reproduce commands, the counters table and the health section; scripts/summary-diff.sh
#      drops only the first line's timing and the results/junit paths), and merge's exit code
#      to equal fuzz's;
#   2. the merged results file, sorted, to equal the one-machine results file, sorted;
#   3. the same after a resume: one shard's results cut back to its first seed, the array
#      resubmitted, merged again.
# Any difference is printed and the script exits 1. Needs root (or sudo) for the daemons, so it
# is not part of scripts/test.sh / CI. The cluster is left running (stop-cluster.sh stops it).
#
# Usage: scripts/slurm/test.sh [--state DIR]   env: SEEDS (1..40), SHARDS (4),
#        FUZZ_ARGS ("--max-steps 2000": some seeds fail liveness, so failures are compared too),
#        RINDLE_SIM (build/rindle-sim, built with `cmake --build build --target rindle-sim`).
set -euo pipefail

cd "$(dirname "$0")/../.."
HERE=scripts/slurm
STATE=/tmp/rindle-slurm
case "${1:-}" in
  --state) STATE="$2" ;;
  "") ;;
  *) sed -n '2,17p' "$0" >&2; exit 2 ;;
esac
SEEDS="${SEEDS:-1..40}"
SHARDS="${SHARDS:-4}"
DEFAULT_FUZZ="--max-steps 2000"
read -r -a FUZZ <<<"${FUZZ_ARGS-$DEFAULT_FUZZ}"
export RINDLE_SIM="${RINDLE_SIM:-build/rindle-sim}"
if [[ ! -x "$RINDLE_SIM" ]]; then cmake --build build --target rindle-sim; fi
RINDLE_SIM="$(realpath "$RINDLE_SIM")"

bash "$HERE/start-cluster.sh" --state "$STATE"
# shellcheck disable=SC1091
source "$STATE/env"

WORK="$(mktemp -d /tmp/rindle-slurm-test.XXXXXX)"
echo "test: work directory $WORK"
FAILED=0

compare() {  # compare LABEL MERGE_OUT MERGE_RC
  local label="$1"
  echo "test: [$label] merged summary vs one-machine summary"
  if ! scripts/summary-diff.sh "$WORK/one.out" "$2"; then
    echo "test: [$label] FAIL: summaries differ"; FAILED=1
  else
    echo "test: [$label] summaries equal ($(wc -l <"$2") lines; diff empty)"
  fi
  if [[ "$3" != "$ONE_RC" ]]; then
    echo "test: [$label] FAIL: merge exited $3, fuzz exited $ONE_RC"; FAILED=1
  fi
  echo "test: [$label] sorted merged results vs sorted one-machine results"
  if ! diff <(sort "$WORK/one.jsonl") <(sort "$WORK/array/results.jsonl") >/dev/null; then
    diff <(sort "$WORK/one.jsonl") <(sort "$WORK/array/results.jsonl") | head -20
    echo "test: [$label] FAIL: results differ"; FAILED=1
  else
    echo "test: [$label] results equal ($(wc -l <"$WORK/one.jsonl") lines)"
  fi
}

echo "test: one-machine campaign over $SEEDS ${FUZZ[*]}"
set +e
"$RINDLE_SIM" fuzz --seeds "$SEEDS" --jobs 1 --quiet "${FUZZ[@]}" \
  --out "$WORK/one.jsonl" --junit "$WORK/one.xml" >"$WORK/one.out" 2>"$WORK/one.err"
ONE_RC=$?
echo "test: $SHARDS-shard Slurm array over $SEEDS ${FUZZ[*]}"
bash "$HERE/run-campaign.sh" "$SEEDS" "$SHARDS" "$WORK/array" "${FUZZ[@]}" >"$WORK/merge.out"
MERGE_RC=$?
set -e
echo "test: fuzz exit $ONE_RC, merge exit $MERGE_RC; merged summary:"
sed -n '1,2p' "$WORK/merge.out"
ls "$WORK/array"
compare array "$WORK/merge.out" "$MERGE_RC"

# Resume: shard 2 keeps its header and first seed, the whole array is resubmitted; shards that
# are complete run nothing, shard 2 runs only its missing seeds.
head -n 2 "$WORK/array/results-2.jsonl" >"$WORK/cut" && mv "$WORK/cut" "$WORK/array/results-2.jsonl"
echo "test: resume — results-2.jsonl cut to its first seed, resubmitting"
set +e
bash "$HERE/run-campaign.sh" "$SEEDS" "$SHARDS" "$WORK/array" "${FUZZ[@]}" >"$WORK/resume.out"
RESUME_RC=$?
set -e
compare resume "$WORK/resume.out" "$RESUME_RC"
RESUMED_LOG="$(ls -t "$WORK"/array/slurm-*_2.out | head -1)"
echo "test: [resume] shard 2 log: $(grep '^resumed: ' "$RESUMED_LOG" || echo 'no resumed line')"
if ! grep -Eq '^resumed: 1 seeds came from the results file, [1-9][0-9]* ran now' "$RESUMED_LOG"; then
  echo "test: [resume] FAIL: shard 2 did not resume from its one seed"; FAILED=1
fi

if [[ $FAILED -ne 0 ]]; then echo "test: FAILED (outputs in $WORK)"; exit 1; fi
echo "test: PASSED — the $SHARDS-shard array's merged summary equals the one-machine campaign's"
rm -rf "$WORK"
