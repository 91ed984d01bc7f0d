#!/usr/bin/env bash
# Installs what hetsim needs from Debian's packages (as root, when missing)
# and builds it into build/.  Used by run-default.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PKGS="cmake gcc make pkg-config libgsl-dev libyaml-dev libhdf5-dev hdf5-tools
gnuplot-nox libcunit1-dev libyajl-dev zlib1g-dev libisal-dev iperf3 iproute2 python3
python3-torch libsimgrid-dev libopenmpi-dev openmpi-bin valgrind"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
