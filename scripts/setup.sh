#!/usr/bin/env bash
# Installs what hetsim needs from Debian's packages (as root, when missing)
# and builds it into build/.
#   setup.sh --tool   the tool alone (predict, simulate, validate, plot,
#                     sweep, advise, ingest): its libraries, cmake, gcc and
#                     gnuplot; builds the target hetsim (a new build/ is
#                     configured with -DBUILD_TESTING=OFF: no CUnit).
#                     run-default.sh uses it.
#   setup.sh --live   the same, plus what `hetsim profile` and
#                     `hetsim measure-bw` run: python3 with PyTorch, iperf3,
#                     iproute2.
#   setup.sh          everything test.sh needs: the above, the test tools
#                     (CUnit, SimGrid, valgrind, Open MPI, hdf5-tools) and
#                     the packaging checks' (dpkg-dev, file, groff-base,
#                     man-db);
#                     builds all of build/ with the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOL="cmake gcc make pkg-config libgsl-dev libyaml-dev libyajl-dev
libhdf5-dev zlib1g-dev libisal-dev gnuplot-nox"
LIVE="python3 python3-torch iperf3 iproute2"
TEST="libcunit1-dev hdf5-tools libsimgrid-dev libopenmpi-dev openmpi-bin
valgrind dpkg-dev file groff-base man-db python3-jsonschema python3-yaml"
case "${1:-}" in
    --tool) PKGS=$TOOL ;;
    --live) PKGS="$TOOL $LIVE" ;;
    "") PKGS="$TOOL $LIVE $TEST" ;;
    *) echo "usage: setup.sh [--tool | --live]" >&2; exit 2 ;;
esac
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
if [ -n "${1:-}" ]; then
  # the tool: a build/ configured before (with or without the tests) is
  # kept as it is
  if [ -f build/CMakeCache.txt ]; then
    cmake -S . -B build >/dev/null
  else
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
          -DBUILD_TESTING=OFF >/dev/null
  fi
  cmake --build build -j"$(nproc)" --target hetsim
else
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON \
        >/dev/null
  cmake --build build -j"$(nproc)"
fi
