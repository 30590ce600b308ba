#!/usr/bin/env bash
# test.sh — runs the README's GNU parallel recipe ("Scaling out") over SHARDS shards and
# requires merge's summary and sorted results to equal a one-machine campaign's over the same
# seeds (scripts/summary-diff.sh), then again after a resume (one shard's results cut back to
# its first seed, the same parallel command re-run).
#   - SSHLOGIN unset: the one-machine form (no -S; results written in place).
#   - SSHLOGIN set (e.g. "2/127.0.0.1", with PARALLEL_SSH="ssh -F /tmp/rindle-ssh/ssh_config"
#     from scripts/parallel/start-sshd.sh): the remote form — the binary goes out with
#     --basefile, each shard's results file goes out with --transferfile and comes back with
#     --return, jobs run in ~/rindle-work on the host, --cleanup removes it.
# Not part of scripts/test.sh / CI (it needs GNU parallel, and ssh for the remote form).
#
# Usage: scripts/parallel/test.sh   env: SEEDS (1..40), SHARDS (4), FUZZ_ARGS ("--max-steps
#        2000"), SSHLOGIN, PARALLEL_SSH, RINDLE_SIM (build/rindle-sim)
set -euo pipefail

cd "$(dirname "$0")/../.."
REPO="$PWD"
SEEDS="${SEEDS:-1..40}"
SHARDS="${SHARDS:-4}"
DEFAULT_FUZZ="--max-steps 2000"
FUZZ_ARGS="${FUZZ_ARGS-$DEFAULT_FUZZ}"
RINDLE_SIM="$(realpath "${RINDLE_SIM:-build/rindle-sim}")"
command -v parallel >/dev/null || apt-get install -y -qq --no-install-recommends parallel rsync

WORK="$(mktemp -d /tmp/rindle-parallel-test.XXXXXX)"
echo "test: work directory $WORK (SSHLOGIN=${SSHLOGIN:-none, one machine})"
mkdir -p "$WORK/build" && cp "$RINDLE_SIM" "$WORK/build/rindle-sim"
cd "$WORK"
FAILED=0

# shellcheck disable=SC2086  # FUZZ_ARGS is a list of flags
"$RINDLE_SIM" fuzz --seeds "$SEEDS" --jobs 1 --quiet $FUZZ_ARGS \
  --out one.jsonl --junit one.xml >one.out 2>one.err && ONE_RC=0 || ONE_RC=$?

recipe() {  # the README recipe, verbatim but for seeds, shard count and extra flags
  local shards
  shards=$(seq 0 $((SHARDS - 1)))
  mkdir -p night
  if [[ -z "${SSHLOGIN:-}" ]]; then
    # shellcheck disable=SC2086
    parallel --will-cite --results night/logs/ \
      "./build/rindle-sim fuzz --seeds $SEEDS --shard {}/$SHARDS --jobs 1 --quiet $FUZZ_ARGS \
         --resume --out night/results-{}.jsonl --junit night/junit-{}.xml" ::: $shards || true
  else
    for i in $shards; do touch "night/results-$i.jsonl"; done
    # shellcheck disable=SC2086
    parallel --will-cite ${PARALLEL_SSH:+--ssh "$PARALLEL_SSH"} -S "$SSHLOGIN" \
      --workdir rindle-work --basefile build/rindle-sim --cleanup \
      --transferfile night/results-{}.jsonl --return night/results-{}.jsonl \
      --return night/junit-{}.xml --results night/logs/ \
      "./build/rindle-sim fuzz --seeds $SEEDS --shard {}/$SHARDS --jobs 1 --quiet $FUZZ_ARGS \
         --resume --out night/results-{}.jsonl --junit night/junit-{}.xml" ::: $shards || true
  fi
  ./build/rindle-sim merge night/results-*.jsonl --out night/results.jsonl \
    --junit night/junit.xml >"$1" && MERGE_RC=0 || MERGE_RC=$?
}

check() {  # check LABEL MERGE_OUT
  if "$REPO/scripts/summary-diff.sh" one.out "$2"; then
    echo "test: [$1] merged summary equals the one-machine summary ($(wc -l <"$2") lines)"
  else
    echo "test: [$1] FAIL: summaries differ"; FAILED=1
  fi
  if [[ "$MERGE_RC" != "$ONE_RC" ]]; then
    echo "test: [$1] FAIL: merge exited $MERGE_RC, fuzz exited $ONE_RC"; FAILED=1
  fi
  if diff <(sort one.jsonl) <(sort night/results.jsonl) >/dev/null; then
    echo "test: [$1] sorted results equal ($(wc -l <one.jsonl) lines)"
  else
    echo "test: [$1] FAIL: results differ"; FAILED=1
  fi
}

recipe merge.out
echo "test: fuzz exit $ONE_RC, merge exit $MERGE_RC: $(head -1 merge.out)"
ls night
check parallel merge.out

head -n 2 night/results-1.jsonl >cut.jsonl && mv cut.jsonl night/results-1.jsonl
echo "test: resume — night/results-1.jsonl cut to its first seed, same command again"
recipe resume.out
echo "test: [resume] shard 1: $(grep -h '^resumed: ' night/logs/1/1/stdout night/logs/1/1/stderr || true)"
grep -hEq '^resumed: 1 seeds came from the results file, [1-9][0-9]* ran now' \
  night/logs/1/1/stdout night/logs/1/1/stderr || { echo "test: [resume] FAIL: shard 1 did not resume"; FAILED=1; }
check resume resume.out

if [[ $FAILED -ne 0 ]]; then echo "test: FAILED (outputs in $WORK)"; exit 1; fi
echo "test: PASSED — the $SHARDS-shard parallel run's merged summary equals the one-machine campaign's"
cd / && rm -rf "$WORK"
