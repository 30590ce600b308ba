#!/usr/bin/env bash
# digests.sh — prints one line per run: "<label> <digest>" for `rindle-sim run --seed S`
# (swarm on and off) over a seed range and for every corpus scenario, so a refactor can prove it
# changed no event order: record before, record after, diff.
#
#   bash scripts/digests.sh [--bin build/rindle-sim] [--seeds 1..500] > before.txt
#   ... refactor, rebuild ...
#   bash scripts/digests.sh > after.txt && diff before.txt after.txt   # must print nothing
#
# Runs two processes at a time (JOBS, default 2). Exit 2 on bad usage; a run's own failure is
# not an error here (its digest is still printed, labelled FAILED).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/rindle-sim
seeds=1..500
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    *) echo "digests.sh: unknown argument '$1' (expected --bin PATH or --seeds A..B)" >&2; exit 2 ;;
  esac
done
if [[ ! "$seeds" =~ ^([0-9]+)\.\.([0-9]+)$ ]]; then
  echo "digests.sh: --seeds: expected A..B, got '$seeds'" >&2; exit 2
fi
lo=${BASH_REMATCH[1]}; hi=${BASH_REMATCH[2]}
if [ ! -x "$bin" ]; then echo "digests.sh: no binary at $bin (build first)" >&2; exit 2; fi

one() {  # label, args...
  local label=$1; shift
  local out
  out=$("$bin" run "$@" 2>/dev/null || true)
  local d
  d=$(printf '%s\n' "$out" | sed -n 's/.*\(ok\|FAILED\) digest=\([0-9a-f]*\).*/\1 \2/p' | head -1)
  printf '%s %s\n' "$label" "${d:-NO-DIGEST}"
}
export -f one
export bin
{
  for s in $(seq "$lo" "$hi"); do
    echo "swarm-on-$s --seed $s --swarm on"
    echo "swarm-off-$s --seed $s --swarm off"
  done
  for f in corpus/*.json; do echo "corpus-$(basename "$f") --scenario $f"; done
} | xargs -P "${JOBS:-2}" -L 1 bash -c 'one "$@"' _ | sort
