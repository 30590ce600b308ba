#!/usr/bin/env bash
# mutation-score.sh — score the harness against the planted-bug catalog in mutants/.
#
# For each mutants/NNN-name.patch: apply it to a scratch git worktree of HEAD (one worktree,
# reset with `git checkout -- .` between mutants; one build dir, so ninja rebuilds only what the
# patch touched), rebuild rindle-sim, and run a campaign in growing chunks (1..25, 26..100,
# 101..300, 301..1000, then 1001..3000, ... up to --seeds-max), stopping as soon as a seed fails.
# Records: detected, first failing seed, seeds run to detect, seconds to detect, the failing
# property, and (with --unit-tests) the ctest tests that fail on the mutant. A failing seed that
# the unmutated tree fails too (checked with `run --seed S` on a copy of the unmutated binary)
# is the tree's own bug, never a detection: the campaign goes on after it. A mutant that does
# not apply or does not build is reported as such and never counts as detected.
#
# Usage: scripts/mutation-score.sh [--seeds-max N] [--jobs J] [--unit-tests] [--only PATTERN]
#                                  [--out FILE] [--seed-timeout T]
#   --seeds-max N   last seed a campaign may reach (default 1000)
#   --jobs J        worker processes for the campaign and the build (default 1)
#   --unit-tests    also build everything and run ctest on each mutant (slow)
#   --only PATTERN  only mutants whose file name matches the extended regex PATTERN
#                   (007, window, '001|012|024')
#   --out FILE      also write the Markdown table and score to FILE
#   --seed-timeout  per-seed wall-clock deadline passed to fuzz (default 60s; a hang is a find)
# The build dir is build/ inside the scratch worktree; with ccache (CCACHE_BASEDIR = the
# worktree) its first build hits what any checkout's build/ compiled.
# Exit: 0 when the score was computed (whatever it is), 2 on bad arguments, 1 if the script
# itself failed (e.g. the unmutated tree does not build). The user's working tree is never
# touched; the scratch worktree is removed at the end.
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

SEEDS_MAX=1000 JOBS=1 UNIT=0 ONLY="" OUT="" SEED_TIMEOUT=60s
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds-max) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || usage; SEEDS_MAX=$2; shift 2 ;;
    --jobs) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || usage; JOBS=$2; shift 2 ;;
    --unit-tests) UNIT=1; shift ;;
    --only) [[ $# -ge 2 && -n "$2" ]] || usage; ONLY=$2; shift 2 ;;
    --out) [[ $# -ge 2 && -n "$2" ]] || usage; OUT=$2; shift 2 ;;
    --seed-timeout) [[ $# -ge 2 && -n "$2" ]] || usage; SEED_TIMEOUT=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "mutation-score.sh: unknown argument '$1'" >&2; usage ;;
  esac
done

ROOT=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel) || exit 1
[[ -n "$OUT" && "$OUT" != /* ]] && OUT="$PWD/$OUT"
shopt -s nullglob
PATCHES=()
for p in "$ROOT"/mutants/*.patch; do
  [[ -z "$ONLY" ]] || basename "$p" | grep -Eq -- "$ONLY" && PATCHES+=("$p")
done
if [[ ${#PATCHES[@]} -eq 0 ]]; then
  echo "mutation-score.sh: no mutant matches '${ONLY}' in $ROOT/mutants" >&2; exit 2
fi

log() { echo "[mutation-score $(date -u +%H:%M:%S)] $*" >&2; }

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/mutation-score.XXXXXX") || exit 1
SRC="$SCRATCH/src"
BUILD="$SRC/build"  # ignored by .gitignore: `git clean -fd` keeps it
CAMPAIGN_PID="" CHILD_PID=""
cleanup() {
  # the campaign and the build run in their own sessions (setsid): end each group we started
  for pid in $CAMPAIGN_PID $CHILD_PID; do kill -TERM -- "-$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  git -C "$ROOT" worktree remove --force "$SRC" >/dev/null 2>&1
  git -C "$ROOT" worktree prune >/dev/null 2>&1
  rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

git -C "$ROOT" worktree add --detach --quiet "$SRC" HEAD || { echo "cannot create the scratch worktree" >&2; exit 1; }
LAUNCHER=()
if command -v ccache >/dev/null; then
  LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Paths under the worktree hash relative to the build dir (../engine/x.cc), exactly as in any
  # checkout's build/ under ccache's base_dir: the first build here hits what they compiled.
  export CCACHE_BASEDIR="$SRC"
fi
log "scratch worktree $SRC at $(git -C "$SRC" rev-parse --short HEAD); build dir $BUILD"
cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "${LAUNCHER[@]}" >"$SCRATCH/cmake.log" 2>&1 \
  || { echo "cmake failed: see below" >&2; tail -20 "$SCRATCH/cmake.log" >&2; exit 1; }

build() {  # build [all]: rindle-sim (or everything); the log goes to $SCRATCH/build.log
  local target=(--target rindle-sim)
  [[ "${1:-}" == all ]] && target=()
  setsid cmake --build "$BUILD" -j "$JOBS" "${target[@]}" >"$SCRATCH/build.log" 2>&1 &
  CHILD_PID=$!
  wait "$CHILD_PID"; local rc=$?
  CHILD_PID=""
  return $rc
}
log "building the unmutated tree"
if ! build || { [[ $UNIT -eq 1 ]] && ! build all; }; then
  echo "the unmutated tree does not build:" >&2; tail -20 "$SCRATCH/build.log" >&2; exit 1
fi
SIM="$BUILD/cli/rindle-sim"
[[ -x "$SIM" ]] || SIM="$BUILD/rindle-sim"
[[ -x "$SIM" ]] || { echo "no rindle-sim binary in $BUILD" >&2; exit 1; }
BASE_SIM="$SCRATCH/rindle-sim.unmutated"
cp "$SIM" "$BASE_SIM"

# chunk boundaries: 25 100 300 1000 3000 10000 ... capped at SEEDS_MAX
CHUNK_ENDS=()
for e in 25 100 300 1000 3000 10000 30000 100000 300000 1000000; do
  if (( e < SEEDS_MAX )); then CHUNK_ENDS+=("$e"); else CHUNK_ENDS+=("$SEEDS_MAX"); break; fi
done
(( SEEDS_MAX > 1000000 )) && CHUNK_ENDS+=("$SEEDS_MAX")

# first_failure FILE LO: prints "seed<TAB>property<TAB>message" of the lowest failing seed once
# every seed from LO up to it has a result (so --jobs > 1 still names the FIRST failing seed);
# prints nothing otherwise.
first_failure() {
  python3 - "$1" "$2" <<'PY'
import json, sys
path, lo = sys.argv[1], int(sys.argv[2])
done, fails = set(), {}
try:
    for line in open(path, encoding="utf-8", errors="replace"):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if "seed" not in r:
            continue
        done.add(r["seed"])
        if not r.get("ok", True):
            fails.setdefault(r["seed"], r)
except FileNotFoundError:
    pass
if fails:
    s = min(fails)
    if all(x in done for x in range(lo, s)):
        msg = " ".join(str(fails[s].get("message", "")).split())[:120]
        print(f"{s}\t{fails[s].get('property', '')}\t{msg}")
PY
}

# base_fails SEED: whether the UNMUTATED binary fails SEED too (cached). Such a seed finds a bug
# of the tree itself, not the mutant: it never counts as a detection (listed in the table).
declare -A BASE_VERDICT=()
BASE_FAILING=()
base_fails() {
  local s=$1
  if [[ -z "${BASE_VERDICT[$s]:-}" ]]; then
    if "$BASE_SIM" run --seed "$s" >/dev/null 2>&1; then BASE_VERDICT[$s]=pass
    else BASE_VERDICT[$s]=fail; BASE_FAILING+=("$s"); fi
  fi
  [[ "${BASE_VERDICT[$s]}" == fail ]]
}

# campaign ID: runs the chunks; sets DET SEED SEEDS SECS PROP MSG
campaign() {
  local id=$1 lo=1 hi start now res found ci=0
  DET=no SEED="" SEEDS=0 SECS="" PROP="" MSG=""
  start=$(date +%s.%N)
  while (( ci < ${#CHUNK_ENDS[@]} )); do
    hi=${CHUNK_ENDS[$ci]}
    res="$SCRATCH/$id.$lo-$hi.jsonl"
    setsid "$SIM" fuzz --seeds "$lo..$hi" --jobs "$JOBS" --out "$res" --quiet \
      --determinism-check 0 --seed-timeout "$SEED_TIMEOUT" >"$SCRATCH/fuzz.log" 2>&1 &
    CAMPAIGN_PID=$!
    found=""
    while kill -0 "$CAMPAIGN_PID" 2>/dev/null; do
      found=$(first_failure "$res" "$lo")
      [[ -n "$found" ]] && break
      sleep 0.5
    done
    now=$(date +%s.%N)
    kill -TERM -- "-$CAMPAIGN_PID" 2>/dev/null
    wait "$CAMPAIGN_PID" 2>/dev/null
    CAMPAIGN_PID=""
    [[ -z "$found" ]] && found=$(first_failure "$res" "$lo")
    if [[ -n "$found" ]]; then
      IFS=$'\t' read -r SEED PROP MSG <<<"$found"
      if base_fails "$SEED"; then  # the tree's own failure: go on after it
        log "$id: seed $SEED fails unmutated too; not a detection"
        SEED="" PROP="" MSG=""
        lo=$(( $(cut -f1 <<<"$found") + 1 ))
        (( lo > hi )) && { SEEDS=$hi; ci=$((ci + 1)); }
        continue
      fi
      DET=yes SEEDS=$SEED
      SECS=$(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.0f", b - a }')
      return
    fi
    SEEDS=$hi
    lo=$((hi + 1))
    ci=$((ci + 1))
  done
  SECS=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
}

unit_tests() {  # sets UNITS: the failing ctest names (comma-separated), or a reason
  UNITS=""
  if ! build all; then UNITS="(tests do not build)"; return; fi
  local out="$SCRATCH/ctest.log"
  TEST_TMPDIR=$(mktemp -d "$SCRATCH/tt.XXXXXX") ctest --test-dir "$BUILD" -j "$JOBS" \
    --timeout 300 >"$out" 2>&1
  # a test that already fails on the unmutated tree (BASE_FAILS) says nothing about the mutant
  UNITS=$(sed -n '/The following tests FAILED:/,$p' "$out" | grep -E '^[[:space:]]+[0-9]+ - ' \
          | sed -E 's/^[[:space:]]+[0-9]+ - ([^ ]+).*/\1/' | grep -vxF -f <(printf '%s\n' "${BASE_FAILS[@]}") \
          | paste -sd, - | sed 's/,/, /g')
  [[ -z "$UNITS" ]] && UNITS="none"
}

median() {
  [[ $# -eq 0 ]] && { echo "-"; return; }
  printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
write_table() {
{
  echo "Mutation score at $(git -C "$SRC" rev-parse --short HEAD), seeds up to $SEEDS_MAX, --jobs $JOBS"
  echo
  hdr="| mutant | area | build | detected | first failing seed | seeds to detect | seconds | property |"
  sep="|---|---|---|---|---|---|---|---|"
  [[ $UNIT -eq 1 ]] && { hdr+=" failing unit tests |"; sep+="---|"; }
  echo "$hdr"; echo "$sep"
  printf '%s\n' "${ROWS[@]}"
  echo
  pct=$(awk -v d="$DETECTED" -v t="$TOTAL" 'BEGIN { printf "%.0f", t ? 100 * d / t : 0 }')
  echo "**Score: $DETECTED / $TOTAL detected ($pct%), median seeds to detect $(median "${DET_SEEDS[@]}")**"
  [[ $NA -gt 0 ]] && echo "($NA mutant(s) did not apply or build: not counted as detected.)"
  [[ ${#BASE_FAILING[@]} -gt 0 ]] && echo "(Seeds the unmutated tree fails too, never counted as a detection: $(printf '%s\n' "${BASE_FAILING[@]}" | sort -n | paste -sd' ' -).)"
  [[ $UNIT -eq 1 ]] && echo "(ctest on the unmutated tree: failing tests ${BASE_UNITS:-none}; left out of the column.)"
} >"$SCRATCH/table.md"
[[ -n "$OUT" ]] && cp "$SCRATCH/table.md" "$OUT"
cat "$SCRATCH/table.md"
}
BASE_FAILS=("")
if [[ $UNIT -eq 1 ]]; then
  log "ctest on the unmutated tree (its failures are left out of every mutant's list)"
  unit_tests
  [[ "$UNITS" == none || "$UNITS" == "(tests do not build)" ]] || IFS=',' read -r -a BASE_FAILS <<<"${UNITS//, /,}"
  BASE_UNITS=$UNITS
fi
ROWS=() TOTAL=0 DETECTED=0 DET_SEEDS=() NA=0
for patch in "${PATCHES[@]}"; do
  name=$(basename "$patch" .patch)
  area=$(sed -n 's/^Area: \([a-z]*\).*/\1/p' "$patch" | head -1)
  TOTAL=$((TOTAL + 1))
  git -C "$SRC" checkout --quiet -- . && git -C "$SRC" clean -fdq
  status="ok" DET=no SEED="" SEEDS="" SECS="" PROP="" MSG="" UNITS="" warn=""
  if ! git -C "$SRC" apply "$patch" 2>"$SCRATCH/apply.log"; then
    status="does not apply"
  elif ! build; then
    status="does not build"
  else
    grep -q 'warning:' "$SCRATCH/build.log" && warn=" (warnings)"
    log "$name: built${warn}; campaign up to seed $SEEDS_MAX"
    campaign "$name"
    [[ $UNIT -eq 1 ]] && unit_tests
  fi
  if [[ "$status" != ok ]]; then
    NA=$((NA + 1)); DET="-"
    log "$name: $status"
  else
    status="ok$warn"
    if [[ "$DET" == yes ]]; then DETECTED=$((DETECTED + 1)); DET_SEEDS+=("$SEEDS"); fi
    log "$name: detected=$DET seed=${SEED:--} after ${SEEDS} seeds, ${SECS}s ${PROP:+property=$PROP}"
  fi
  prop="${PROP:--}"; [[ -n "$MSG" ]] && prop="$PROP: ${MSG//|/\\|}"
  row="| $name | ${area:-?} | $status | $DET | ${SEED:--} | ${SEEDS:--} | ${SECS:--} | $prop |"
  [[ $UNIT -eq 1 ]] && row+=" ${UNITS:--} |"
  ROWS+=("$row")
  write_table >/dev/null  # a partial table survives an interrupted run
done
git -C "$SRC" checkout --quiet -- .

write_table
exit 0
