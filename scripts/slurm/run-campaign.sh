#!/usr/bin/env bash
# run-campaign.sh — a rindle-sim campaign as a Slurm job array, merged into one summary.
#
#   scripts/slurm/run-campaign.sh SEEDS SHARDS DIR [fuzz flags...]
#   e.g. scripts/slurm/run-campaign.sh 1..100000 16 /shared/nightly --max-steps 4000
#
# Submits scripts/slurm/campaign.sbatch as --array=0-(SHARDS-1) and waits for it (sbatch
# --wait); shard I writes DIR/results-I.jsonl and DIR/junit-I.xml, its log DIR/slurm-<job>_I.out.
# Then `rindle-sim merge` writes DIR/results.jsonl and DIR/junit.xml and prints the summary a
# one-machine campaign over the same seeds prints (stdout; sbatch's own lines go to stderr).
# DIR must be visible from every node.
# Resume: run the same command again; every shard continues its results file (--resume).
# The binary is $RINDLE_SIM (default ./build/rindle-sim; the same build on every node).
# sbatch's own environment variables apply (SBATCH_PARTITION, SBATCH_ACCOUNT, ...).
# Exit: merge's (0 every seed passed, 1 a failure, 2 a refused or missing shard file).
set -euo pipefail

if [[ $# -lt 3 ]]; then sed -n '2,15p' "$0" >&2; exit 2; fi
SEEDS="$1"; SHARDS="$2"; DIR="$3"; shift 3
HERE="$(cd "$(dirname "$0")" && pwd)"
RINDLE_SIM="$(realpath "${RINDLE_SIM:-build/rindle-sim}")"
export RINDLE_SIM
[[ -x "$RINDLE_SIM" ]] || { echo "run-campaign: no rindle-sim at $RINDLE_SIM" >&2; exit 2; }
mkdir -p "$DIR"
DIR="$(realpath "$DIR")"

# A shard that fails seeds exits 1, which makes sbatch --wait exit non-zero too; merge below
# reports every failure, so only a missing results file stops the script.
echo "run-campaign: submitting $SHARDS shards of $SEEDS, results in $DIR" >&2
sbatch --wait --array="0-$((SHARDS - 1))" --output="$DIR/slurm-%A_%a.out" \
  "$HERE/campaign.sbatch" "$SEEDS" "$SHARDS" "$DIR" "$@" >&2 || true

INPUTS=()
for ((i = 0; i < SHARDS; i++)); do
  f="$DIR/results-$i.jsonl"
  [[ -s "$f" ]] || { echo "run-campaign: shard $i wrote no $f (see $DIR/slurm-*_$i.out)" >&2; exit 2; }
  INPUTS+=("$f")
done
exec "$RINDLE_SIM" merge "${INPUTS[@]}" --out "$DIR/results.jsonl" --junit "$DIR/junit.xml"
