#!/usr/bin/env bash
# scripts/memcheck.sh [HETSIM] -- valgrind memcheck over the main CLI
# commands on every shipped scenario that has profiles (scenarios/*.yaml,
# scenarios/testbed/*.yaml; the testbed templates have none until `hetsim
# profile` measures them, and are listed as skipped; scenarios/default.yaml
# is the embedded default's text): predict, simulate (4 steps) with --h5 and
# --chrome to temporary files, validate (4 steps), and plot of the
# simulated timeline (when gnuplot is there); then advise ring, batch and
# mix, ring and batch on the nodes example, and a replayed sweep once each.
#
# A run fails on any memcheck error or definite leak (valgrind exits 9);
# the command's own exit status is not judged here (validate exits 1 on a
# tolerance it was not given, on purpose).  Prints one line per run and a
# summary line "memcheck: N runs, E with errors, ...".  Exit 0 when clean,
# 1 when a run had errors, 2 when valgrind or the binary is missing.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/hetsim}
if ! command -v valgrind >/dev/null; then
    echo "memcheck: valgrind is not installed" >&2
    exit 2
fi
if [ ! -x "$bin" ]; then
    echo "memcheck: no $bin (build first)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
VG=(valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite
    --show-leak-kinds=definite --error-exitcode=9 --quiet)
runs=0
bad=0
skipped=""
t0=$(date +%s)

# run NAME ARG... : one command under memcheck
run() {
    local name=$1 log rc
    shift
    log="$tmp/$(echo "$name" | tr ' /' '__').vg"
    "${VG[@]}" --log-file="$log" "$bin" "$@" >"$tmp/out" 2>&1
    rc=$?
    runs=$((runs + 1))
    if [ "$rc" -eq 9 ] || grep -q "ERROR SUMMARY: [1-9]" "$log" 2>/dev/null ||
        grep -q "definitely lost: [1-9]" "$log" 2>/dev/null ||
        [ "$rc" -ge 128 ]; then
        bad=$((bad + 1))
        echo "memcheck: FAIL $name (exit $rc)"
        cat "$log"
        tail -5 "$tmp/out"
    else
        echo "memcheck: ok   $name (exit $rc)"
    fi
}

scenarios=()
for f in scenarios/*.yaml scenarios/testbed/*.yaml; do
    if grep -q '^ *profile:' "$f"; then
        scenarios+=("$f")
    else
        skipped="$skipped $(basename "$f")"
    fi
done
have_gnuplot=0
command -v gnuplot >/dev/null && have_gnuplot=1
for s in "${scenarios[@]}"; do
    label=$s
    args=("$s")
    run "predict $label" predict "${args[@]}" --json --per-device
    run "simulate $label" simulate "${args[@]}" --steps 4 \
        --h5 "$tmp/run.h5" --chrome "$tmp/run.json"
    run "validate $label" validate "${args[@]}" --steps 4
    if [ "$have_gnuplot" = 1 ] && [ -s "$tmp/run.h5" ]; then
        run "plot $label" plot "$tmp/run.h5" -o "$tmp/run.png" \
            --max-devices 8
    fi
    rm -f "$tmp/run.h5" "$tmp/run.json" "$tmp/run.png"
done
# the what-if commands, once each on the validation scenarios
run "advise ring validate-divergent" advise ring \
    scenarios/validate-divergent.yaml --steps 4 -o "$tmp/adv.yaml"
run "advise batch default" advise batch --steps 3 -o "$tmp/adv.yaml"
run "advise mix default" advise mix --price MLU370=1.2 --price A100=2.5 \
    --avail MLU370=8 --avail A100=8 --budget 1e6 --steps 3 --json
run "advise ring nodes-example" advise ring scenarios/nodes-example.yaml \
    --steps 3 -o "$tmp/adv.yaml" --progress
run "advise batch nodes-example" advise batch scenarios/nodes-example.yaml \
    --steps 3 -o "$tmp/adv.yaml"
run "sweep validate-slow-owner" sweep scenarios/validate-slow-owner.yaml \
    --vary network.default_bandwidth=1GB/s,10GB/s --replay --steps 3 \
    -o "$tmp/sweep.csv"
[ "$have_gnuplot" = 1 ] || echo "memcheck: gnuplot missing: plot not checked"
echo "memcheck: $runs runs, $bad with errors or definite leaks," \
     "$(( $(date +%s) - t0 )) s; skipped (no profiles):${skipped:- none}"
[ "$bad" -eq 0 ]
