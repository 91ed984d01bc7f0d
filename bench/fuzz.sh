#!/usr/bin/env bash
# bench/fuzz.sh [SECONDS | --runs N [--max-time S]] [-j J] [TARGET...] --
# builds the
# libFuzzer targets (fuzz/, clang, -fsanitize=fuzzer,address,undefined)
# into build-fuzz/ and runs each for SECONDS (default 60) or, with --runs,
# until it has made N executions (libFuzzer's -runs=N; e.g. --runs
# 10000000, the goal of issue 15), or S seconds have passed if that comes
# first.  All targets when none is named; J of
# them at a time (default 1).  Per target it prints executions, exec/s,
# coverage (libFuzzer's final "cov:" figure), corpus size and findings:
# the crash, leak, timeout and out-of-memory files libFuzzer wrote into
# build-fuzz/findings/<target>/.  A finding worth keeping goes, minimised
# (fuzz_<target> -minimize_crash=1 FILE), into fuzz/regress/<target>/,
# which tests/test_fuzz_regress.c replays in the normal build.  The
# libFuzzer log of each target is build-fuzz/fuzz-<target>.log.
#
# The working corpus grows in build-fuzz/corpus/<target>/, seeded from
# fuzz/corpus/<target>/ (scenarios, profiles from `hetsim ingest`,
# sidecars, traces; see fuzz/README) and fuzz/regress/<target>/.
# Exit status: 0 no findings, 1 findings, 2 usage or build failure.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
    echo "usage: bench/fuzz.sh [SECONDS | --runs N [--max-time S]] [-j J] [TARGET...]" >&2
    exit 2
}
isnum() { case "$1" in ''|*[!0-9]*) return 1 ;; esac; }
secs=60
runs=""
jobs=1
maxt=""
if [ $# -gt 0 ] && [ "$1" = "--runs" ]; then
    [ $# -ge 2 ] && isnum "$2" || usage
    runs=$2
    shift 2
    if [ $# -gt 0 ] && [ "$1" = "--max-time" ]; then
        [ $# -ge 2 ] && isnum "$2" || usage
        maxt=$2
        shift 2
    fi
elif [ $# -gt 0 ]; then
    isnum "$1" || usage
    secs=$1
    shift
fi
if [ $# -gt 0 ] && [ "$1" = "-j" ]; then
    [ $# -ge 2 ] && isnum "$2" && [ "$2" -ge 1 ] || usage
    jobs=$2
    shift 2
fi
all="units scenario links_csv profile sidecar trace"
targets=${*:-$all}
for t in $targets; do
    case " $all " in *" $t "*) ;; *) echo "fuzz: no target '$t' (targets: $all)" >&2; exit 2 ;; esac
done
B=build-fuzz

if ! command -v clang >/dev/null; then
    echo "fuzz: clang is missing (apt-get install clang libclang-rt-14-dev)" >&2
    exit 2
fi
CC=clang cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DHETSIM_FUZZ=ON >/dev/null || exit 2
tlist=""
for t in $targets; do tlist="$tlist --target fuzz_$t"; done
# shellcheck disable=SC2086
cmake --build "$B" -j"$(nproc)" $tlist >/dev/null || exit 2

if [ -n "$runs" ]; then
    limit="-runs=$runs${maxt:+ -max_total_time=$maxt}"
else
    limit="-max_total_time=$secs"
fi

# One target, in the background or not: its log, then its exit status in
# $B/fuzz-<t>.rc.
run_one() {
    local t=$1 corpus="$B/corpus/$1" out="$B/findings/$1"
    local log="$B/fuzz-$1.log" tmpd rc
    # the targets' temporary files (libFuzzer may end without exit
    # handlers): a folder of ours, emptied after the run; in memory
    # (/dev/shm) where there is one, as the targets write a file per input
    if [ -d /dev/shm ] && [ -w /dev/shm ]; then
        tmpd=$(mktemp -d /dev/shm/hs-fuzz-"$1".XXXXXX)
    else
        tmpd="$B/tmp/$1"
    fi
    mkdir -p "$corpus" "$out" "$tmpd"
    # -rss_limit_mb: ASan's shadow plus the library; -timeout: one input
    # taking over 10 s is a finding (a hang), not a slow machine
    set +e
    TMPDIR="$tmpd" ASAN_OPTIONS=detect_leaks=1 \
        UBSAN_OPTIONS=print_stacktrace=1 \
        "$B/fuzz/fuzz_$t" $limit -timeout=10 \
        -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$out/" "$corpus" "fuzz/corpus/$t" \
        $( [ -d "fuzz/regress/$t" ] && echo "fuzz/regress/$t" ) \
        >"$log" 2>&1
    rc=$?
    set -e
    rm -rf "$tmpd"
    echo "$rc" >"$B/fuzz-$t.rc"
}

running=0
for t in $targets; do
    if [ "$jobs" -le 1 ]; then
        run_one "$t"
        continue
    fi
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait

printf '%-10s %10s %8s %6s %7s %s\n' target execs exec/s cov corpus findings
found=0
for t in $targets; do
    corpus="$B/corpus/$t"
    out="$B/findings/$t"
    log="$B/fuzz-$t.log"
    rc=$(cat "$B/fuzz-$t.rc" 2>/dev/null || echo 99)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    ncorp=$(find "$corpus" -type f | wc -l)
    nfind=$(find "$out" -type f | wc -l)
    [ "$nfind" -gt 0 ] && found=1
    [ "$rc" -ne 0 ] && [ "$nfind" -eq 0 ] && found=1
    printf '%-10s %10s %8s %6s %7s %s\n' "$t" "${execs:-?}" "${speed:-?}" \
        "${cov:-?}" "$ncorp" \
        "$nfind$( [ "$nfind" -gt 0 ] && echo " in $out/")$( [ "$rc" -ne 0 ] && echo " (exit $rc, see $log)")"
done
exit $found
