#!/usr/bin/env bash
# start-sshd.sh — a private sshd on 127.0.0.1:2222 so the remote form of the GNU parallel recipe
# (--basefile, --transferfile, --return, --workdir) can be tried on one machine: jobs run over
# ssh in ~/rindle-work, so results come back only if the transfers work. Its host key, client
# key, authorized_keys and configs live in /tmp/rindle-ssh (never ~/.ssh); installs
# openssh-server and rsync (apt-get) when missing. Idempotent. Prints the PARALLEL_SSH and
# SSHLOGIN values for scripts/parallel/test.sh. `kill $(cat /tmp/rindle-ssh/sshd.pid)` stops it.
set -euo pipefail

X=/tmp/rindle-ssh
SUDO=()
[[ $(id -u) -eq 0 ]] || SUDO=(sudo)
if [[ ! -x /usr/sbin/sshd ]] || ! command -v rsync >/dev/null; then
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends openssh-server rsync >/dev/null
fi
mkdir -p "$X" && chmod 700 "$X"
[[ -f "$X/hostkey" ]] || ssh-keygen -q -t ed25519 -N '' -f "$X/hostkey"
[[ -f "$X/id" ]] || ssh-keygen -q -t ed25519 -N '' -f "$X/id"
cp "$X/id.pub" "$X/authorized_keys" && chmod 600 "$X/authorized_keys"
cat >"$X/sshd_config" <<EOF
Port 2222
ListenAddress 127.0.0.1
HostKey $X/hostkey
AuthorizedKeysFile $X/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
PidFile $X/sshd.pid
StrictModes no
UsePAM no
EOF
cat >"$X/ssh_config" <<EOF
Host *
  Port 2222
  IdentityFile $X/id
  StrictHostKeyChecking no
  UserKnownHostsFile $X/known_hosts
  LogLevel ERROR
EOF
if ! { [[ -s "$X/sshd.pid" ]] && kill -0 "$(cat "$X/sshd.pid")" 2>/dev/null; }; then
  "${SUDO[@]}" mkdir -p /run/sshd
  "${SUDO[@]}" /usr/sbin/sshd -f "$X/sshd_config" -E "$X/sshd.log"
fi
ssh -F "$X/ssh_config" 127.0.0.1 true
echo "PARALLEL_SSH='ssh -F $X/ssh_config' SSHLOGIN=2/127.0.0.1"
