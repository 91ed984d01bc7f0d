#!/bin/sh
# sweep.sh -- the step time against the number of devices N, for
# `hetsim plot --kind sweep`.
#
# usage: scripts/sweep.sh SCENARIO OUT.csv K1 [K2 ...]
#
# For each K, runs `hetsim simulate --json` on a copy of SCENARIO in which
# every device type's `count:` is K (so N = K x number of types), and
# writes OUT.csv with the header n,closed_ns,sim_ns: N, the closed form's
# cluster step max_i T(i) and the replay's steady-state step, in ns.
# SCENARIO must generate its devices from the counts (no `devices:` list,
# no explicit ring permutation).  Environment: HETSIM (the hetsim binary,
# default build/hetsim), STEPS (steps replayed per point, default 3).
#
# example:
#   scripts/sweep.sh scenarios/fig3-compute-bound.yaml sweep.csv 1 2 4 8 16 32
#   hetsim plot --kind sweep sweep.csv -o sweep.png
set -eu
if [ $# -lt 3 ]; then
    echo "usage: $0 SCENARIO OUT.csv K1 [K2 ...]" >&2
    exit 2
fi
scn=$1
out=$2
shift 2
hetsim=${HETSIM:-build/hetsim}
steps=${STEPS:-3}
if grep -q '^devices:' "$scn"; then
    echo "$0: $scn lists its devices; the sweep needs counts only" >&2
    exit 2
fi
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/hetsim-sweep.XXXXXX")
# the copy sits beside SCENARIO, so its relative profile paths resolve
copy=$(mktemp "$(dirname "$scn")/.hetsim-sweep.XXXXXX")
trap 'rm -rf "$tmpd" "$copy"' EXIT
echo "n,closed_ns,sim_ns" > "$tmpd/out.csv"
for k in "$@"; do
    sed "s/^\([[:space:]]*\)count:[[:space:]]*[0-9][0-9]*/\1count: $k/" \
        "$scn" > "$copy"
    "$hetsim" simulate "$copy" --json --steps "$steps" > "$tmpd/k$k.json"
    /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("%d,%d,%d" % (d["n_devices"], d["closed_step_ns"], d["step_ns"]))
' "$tmpd/k$k.json" >> "$tmpd/out.csv"
done
mv "$tmpd/out.csv" "$out"
echo "wrote $out"
