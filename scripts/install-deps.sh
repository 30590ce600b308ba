#!/usr/bin/env bash
# install-deps.sh — installs the Debian 12 packages rindle-sim builds and tests with, only if
# any is missing (so it is fast and needs no root on an already prepared machine). chromium:
# the headless browser cli/report_browser_test.cc opens the failure report in.
set -euo pipefail

packages=(cmake g++ ninja-build pkg-config libabsl-dev nlohmann-json3-dev libxxhash-dev
          libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev chromium)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-deps: missing packages (${missing[*]}) and not root; run as root" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
