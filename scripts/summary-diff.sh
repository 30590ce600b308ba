#!/usr/bin/env bash
# summary-diff.sh — compares the summary a one-machine `rindle-sim fuzz` campaign printed with
# the one `rindle-sim merge` printed over the same seeds (the scheduler recipes' tests,
# scripts/slurm/test.sh and scripts/parallel/test.sh, use it). Drops what legitimately differs:
# the first line's timing and file count, the results/junit paths, fuzz's determinism-check and
# resume lines (merge has no second runs to count). fuzz prints each failure (its seed= line and
# reproduce line) as it happens, before its summary line; merge prints them in seed order after
# it: both become one sorted block after the seed counts. Everything else — the failed-seeds
# line, the counters table, the health section — must match line for line.
#
# Usage: summary-diff.sh ONE_MACHINE.out MERGED.out   exit 0 equal, 1 differ (diff printed)
set -euo pipefail

normalize() {
  awk '
    /^rindle-sim fuzz: / { sub(/^rindle-sim fuzz: /, ""); sub(/ seeds run,/, " seeds,");
                           sub(/ in [0-9][0-9.hms]* \(.*$/, ""); print "A " $0; next }
    /^rindle-sim merge: / { sub(/^rindle-sim merge: [0-9]+ results files, /, "");
                            print "A " $0; next }
    /^seed=/ { failure = $0; next }
    /^  reproduce: / { print "B " failure " | " $0; next }
    /^(results|junit|determinism|resumed): / || /^$/ { next }
    { printf "C %08d %s\n", NR, $0 }
  ' "$1" | sort | sed -E 's/^A //; s/^B //; s/^C [0-9]{8} //'
}

if [[ $# -ne 2 ]]; then sed -n '2,11p' "$0" >&2; exit 2; fi
diff <(normalize "$1") <(normalize "$2")
