#!/bin/bash
# The Python binding's overhead: N closed-form predictions (the replay
# off) of a 10,000-device scenario (scenarios/default.yaml with 5,000
# MLU370 + 5,000 A100) through hetsim.Scenario.predict(closed_only=True)
# against the same through the C API (bench_capi), in the same run; prints
# both and the ratio (C runs before and after Python; the reference is
# their mean, so a machine that gets busier or quieter in between shows).
#   bench/bench_python.sh [BUILD [N]]
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build} N=${2:-1000}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
c=$("$BUILD/bench/bench_capi" "$SRC/scenarios/default.yaml" "$N")
echo "$c"
c1=$(awk '/^c_s_per_predict/{print $2}' <<<"$c")
py=$(HETSIM_LIBRARY=$BUILD/libhetsim.so PYTHONPATH=$SRC/python "$PY" - "$SRC" "$N" <<'PYEOF'
import sys, time
import hetsim
src, n = sys.argv[1], int(sys.argv[2])
s = hetsim.Scenario.load(src + "/scenarios/default.yaml")
s["device_types.A100.count"] = 5000
s["device_types.MLU370.count"] = 5000
s.predict(closed_only=True)
t0 = time.perf_counter()
for _ in range(n):
    a = s.predict(closed_only=True)
py_s = (time.perf_counter() - t0) / n
print("py_s_per_predict %.9f\nn_devices %d\nstep_extended_ns %d"
      % (py_s, a["n_devices"], a["step_extended_ns"]))
PYEOF
)
echo "$py"
c=$("$BUILD/bench/bench_capi" "$SRC/scenarios/default.yaml" "$N")
c2=$(awk '/^c_s_per_predict/{print $2}' <<<"$c")
echo "c_s_per_predict (after) $c2"
awk -v c1="$c1" -v c2="$c2" -v n="$N" '/^py_s_per_predict/{py=$2}
    END { c = (c1 + c2) / 2
          printf "ratio python/C %.3f (%d closed-form predictions of 10,000 devices: C %.3f s and %.3f s, Python %.3f s)\n", py / c, n, c1 * n, c2 * n, py * n }' <<<"$py"
