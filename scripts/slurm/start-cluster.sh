#!/usr/bin/env bash
# start-cluster.sh — a single-node Slurm cluster on this machine, for trying and testing the
# job-array recipe (scripts/slurm/campaign.sbatch). Installs Debian's slurm-wlm and munge when
# missing (apt-get, with sudo when not root), writes a minimal slurm.conf (this host is the
# controller and the only node, CPUs from nproc, one partition "rindle"), starts munged,
# slurmctld and slurmd, and waits until sinfo shows the node idle.
#
# Everything it writes (configs, munge key and socket, state, logs, pid files) lives in the
# state directory (default /tmp/rindle-slurm, or --state DIR), never in the repository or /etc;
# its munged has its own key and socket, so a system munge is left alone. Idempotent: daemons
# already running from this state directory are kept. Client commands need the config:
#   source "$STATE/env"      # exports SLURM_CONF
# scripts/slurm/stop-cluster.sh [--state DIR] stops the daemons.
#
# Usage: start-cluster.sh [--state DIR] [--port-base P]   (P = slurmctld port, P+1 = slurmd)
set -euo pipefail

STATE=/tmp/rindle-slurm
PORT_BASE=6817
while [[ $# -gt 0 ]]; do
  case "$1" in
    --state) STATE="$2"; shift 2 ;;
    --port-base) PORT_BASE="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "start-cluster.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

SUDO=()
[[ $(id -u) -eq 0 ]] || SUDO=(sudo)

# --- packages -------------------------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
   || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  echo "start-cluster: installing slurm-wlm and munge (apt-get)"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends slurm-wlm munge >/dev/null
fi
PATH="$PATH:/usr/sbin:/sbin"

# --- state directory and configs ------------------------------------------------------------
# munge/ (key, seed, log; private) and munge-socket/ (every client must reach the socket)
"${SUDO[@]}" mkdir -p "$STATE"/{munge,munge-socket,ctld,spool,log,run}
"${SUDO[@]}" chmod 755 "$STATE" "$STATE/munge-socket"
"${SUDO[@]}" chown munge:munge "$STATE/munge" "$STATE/munge-socket"
"${SUDO[@]}" chmod 700 "$STATE/munge"
if ! "${SUDO[@]}" test -s "$STATE/munge/munge.key"; then
  "${SUDO[@]}" runuser -u munge -- mungekey --create --keyfile="$STATE/munge/munge.key"
fi

HOST=$(hostname -s)
CPUS=$(nproc)
MUNGE_SOCKET="$STATE/munge-socket/munge.socket"
CONF="$STATE/slurm.conf"
# The job runs as the submitting user; SlurmUser=root keeps the one-node set-up free of
# ownership fiddling. proctrack/linuxproc and task/none need no cgroups (containers lack them).
"${SUDO[@]}" tee "$CONF" >/dev/null <<EOF
# written by scripts/slurm/start-cluster.sh — single-node test cluster
ClusterName=rindle
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT_BASE
SlurmdPort=$((PORT_BASE + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=rindle Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
echo "export SLURM_CONF=$CONF" | "${SUDO[@]}" tee "$STATE/env" >/dev/null
export SLURM_CONF="$CONF"

running() {  # running PIDFILE: the daemon whose pid is in PIDFILE is alive
  "${SUDO[@]}" test -s "$1" && "${SUDO[@]}" kill -0 "$("${SUDO[@]}" cat "$1")" 2>/dev/null
}

# --- daemons --------------------------------------------------------------------------------
if ! running "$STATE/munge/munged.pid"; then
  "${SUDO[@]}" runuser -u munge -- munged \
    --key-file="$STATE/munge/munge.key" --socket="$MUNGE_SOCKET" \
    --pid-file="$STATE/munge/munged.pid" --log-file="$STATE/munge/munged.log" \
    --seed-file="$STATE/munge/munged.seed"
fi
for _ in $(seq 50); do "${SUDO[@]}" test -S "$MUNGE_SOCKET" && break; sleep 0.2; done
munge --socket="$MUNGE_SOCKET" -n | unmunge --socket="$MUNGE_SOCKET" >/dev/null \
  || { echo "start-cluster: munge does not work (see $STATE/munge/munged.log)" >&2; exit 1; }

if ! running "$STATE/run/slurmctld.pid"; then
  "${SUDO[@]}" env SLURM_CONF="$CONF" slurmctld -f "$CONF"
fi
if ! running "$STATE/run/slurmd.pid"; then
  "${SUDO[@]}" env SLURM_CONF="$CONF" slurmd -f "$CONF"
fi

# --- wait until the node is idle ------------------------------------------------------------
for _ in $(seq 120); do
  NODE_STATE=$(sinfo -h -n "$HOST" -o '%T' 2>/dev/null || true)
  case "$NODE_STATE" in
    idle|mixed|allocated) break ;;
    down*|drain*) scontrol update NodeName="$HOST" State=RESUME 2>/dev/null || true ;;
  esac
  sleep 0.5
done
if [[ ! "$NODE_STATE" =~ ^(idle|mixed|allocated)$ ]]; then
  echo "start-cluster: node $HOST is '${NODE_STATE:-unreachable}' (logs in $STATE/log)" >&2
  exit 1
fi
echo "start-cluster: node $HOST $NODE_STATE ($CPUS CPUs); source $STATE/env for SLURM_CONF"
sinfo
