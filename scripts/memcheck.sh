#!/usr/bin/env bash
# scripts/memcheck.sh [HETSIM] -- valgrind memcheck over the main CLI
# commands on every shipped scenario that has profiles (scenarios/*.yaml,
# scenarios/testbed/*.yaml; the testbed templates have none until `hetsim
# profile` measures them, and are listed as skipped; scenarios/default.yaml
# is the embedded default's text): predict, simulate (2 steps: the second
# reuses what the first set up) with --h5 and --chrome to temporary files
# (not --chrome on the default: its 200 devices make a 23 MB trace, 35 s
# under memcheck, through the writer the other scenarios run), validate
# (2 steps); plot of the simulated timeline (when gnuplot is
# there) on a flat ring (the default) and a hierarchical one (the nodes
# example): the plot reads the same trace layout whatever the scenario;
# then advise ring, batch and mix, ring and batch on the nodes example, and
# a replayed sweep once each.  What this pass has that the sanitizer pass
# (scripts/test.sh) has not: uninitialised reads, on every scenario.
#
# The runs go MEMCHECK_JOBS at a time (default: the online CPUs), one
# scenario's commands in order.  A run fails on any memcheck error or
# definite leak (valgrind exits 9); the command's own exit status is not
# judged here (validate exits 1 on a tolerance it was not given, on
# purpose).  Prints one line per run and a summary line "memcheck: N runs,
# E with errors, ...".  Exit 0 when clean, 1 when a run had errors, 2 when
# valgrind or the binary is missing.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/hetsim}
jobs=${MEMCHECK_JOBS:-$(nproc)}
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
skipped=""
t0=$(date +%s)

# run NAME ARG... : one command under memcheck, in job directory $jd;
# appends "ok" or "FAIL" and the name to $jd/status, prints its line
run() {
    local name=$1 log rc
    shift
    log="$jd/$(echo "$name" | tr ' /' '__').vg"
    "${VG[@]}" --log-file="$log" "$bin" "$@" >"$jd/out" 2>&1
    rc=$?
    if [ "$rc" -eq 9 ] || grep -q "ERROR SUMMARY: [1-9]" "$log" 2>/dev/null ||
        grep -q "definitely lost: [1-9]" "$log" 2>/dev/null ||
        [ "$rc" -ge 128 ]; then
        echo "FAIL $name" >>"$jd/status"
        { echo "memcheck: FAIL $name (exit $rc)"; cat "$log"
          tail -5 "$jd/out"; } >"$jd/fail.$(date +%s%N)"
        echo "memcheck: FAIL $name (exit $rc)"
    else
        echo "ok $name" >>"$jd/status"
        echo "memcheck: ok   $name (exit $rc)"
    fi
}

# scenario_job FILE PLOT: predict, simulate, validate (and plot when PLOT
# is 1) on one scenario
scenario_job() {
    local s=$1 plot=$2 chrome=(--chrome "$jd/run.json")
    [ "$s" = scenarios/default.yaml ] && chrome=()
    run "predict $s" predict "$s" --json --per-device
    run "simulate $s" simulate "$s" --steps 2 --h5 "$jd/run.h5" \
        ${chrome[@]+"${chrome[@]}"}
    run "validate $s" validate "$s" --steps 2
    if [ "$plot" = 1 ] && [ "$have_gnuplot" = 1 ] && [ -s "$jd/run.h5" ]; then
        run "plot $s" plot "$jd/run.h5" -o "$jd/run.png" --max-devices 8
    fi
}

# the what-if commands, once each on the validation scenarios
whatif_job() {
    case $1 in
    1) run "advise ring validate-divergent" advise ring \
           scenarios/validate-divergent.yaml --steps 4 -o "$jd/adv.yaml" ;;
    2) run "advise batch default" advise batch --steps 3 -o "$jd/adv.yaml" ;;
    3) run "advise mix default" advise mix --price MLU370=1.2 \
           --price A100=2.5 --avail MLU370=8 --avail A100=8 --budget 1e6 \
           --steps 3 --json ;;
    4) run "advise ring nodes-example" advise ring \
           scenarios/nodes-example.yaml --steps 3 -o "$jd/adv.yaml" \
           --progress ;;
    5) run "advise batch nodes-example" advise batch \
           scenarios/nodes-example.yaml --steps 3 -o "$jd/adv.yaml" ;;
    6) run "sweep validate-slow-owner" sweep \
           scenarios/validate-slow-owner.yaml \
           --vary network.default_bandwidth=1GB/s,10GB/s --replay --steps 3 \
           -o "$jd/sweep.csv" ;;
    esac
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

# every job: "s FILE PLOT" or "w K"; the largest (the default's 200
# devices) first
joblist=()
for s in "${scenarios[@]}"; do
    case $s in
    scenarios/default.yaml|scenarios/nodes-example.yaml)
        joblist=("s $s 1" "${joblist[@]}") ;;
    *) joblist+=("s $s 0") ;;
    esac
done
for k in 1 2 3 4 5 6; do
    joblist+=("w $k")
done
n=0
for j in "${joblist[@]}"; do
    n=$((n + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n
    done
    jd="$tmp/job$n"
    mkdir -p "$jd"
    # shellcheck disable=SC2086
    set -- $j
    if [ "$1" = s ]; then
        scenario_job "$2" "$3" &
    else
        whatif_job "$2" &
    fi
done
wait
runs=$(cat "$tmp"/job*/status 2>/dev/null | wc -l)
bad=$(grep -c '^FAIL' "$tmp"/job*/status 2>/dev/null | awk -F: '{s += $NF} END {print s + 0}')
for f in "$tmp"/job*/fail.*; do
    [ -e "$f" ] && cat "$f"
done
[ "$have_gnuplot" = 1 ] || echo "memcheck: gnuplot missing: plot not checked"
echo "memcheck: $runs runs, $bad with errors or definite leaks," \
     "$(( $(date +%s) - t0 )) s, $jobs at a time; skipped (no profiles):${skipped:- none}"
[ "$bad" -eq 0 ]
