#!/usr/bin/env bash
# stop-cluster.sh — stops the daemons scripts/slurm/start-cluster.sh started from its state
# directory (slurmd, slurmctld, munged), by the pids in their pid files; leaves the state
# directory (configs, logs) in place. --purge also removes it.
#
# Usage: stop-cluster.sh [--state DIR] [--purge]
set -euo pipefail

STATE=/tmp/rindle-slurm
PURGE=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --state) STATE="$2"; shift 2 ;;
    --purge) PURGE=1; shift ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "stop-cluster.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

SUDO=()
[[ $(id -u) -eq 0 ]] || SUDO=(sudo)

stop() {  # stop NAME PIDFILE: TERM the daemon, wait up to 10 s for it to exit
  local pid
  "${SUDO[@]}" test -s "$2" || return 0
  pid=$("${SUDO[@]}" cat "$2")
  if "${SUDO[@]}" kill -0 "$pid" 2>/dev/null; then
    "${SUDO[@]}" kill -TERM "$pid"
    for _ in $(seq 50); do "${SUDO[@]}" kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    echo "stop-cluster: stopped $1 ($pid)"
  fi
  "${SUDO[@]}" rm -f "$2"
}

stop slurmd "$STATE/run/slurmd.pid"
stop slurmctld "$STATE/run/slurmctld.pid"
stop munged "$STATE/munge/munged.pid"
if [[ $PURGE -eq 1 ]]; then "${SUDO[@]}" rm -rf "$STATE"; fi
