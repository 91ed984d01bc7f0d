#!/usr/bin/env bash
# bench/fuzz.sh SECONDS [TARGET...] -- builds the libFuzzer targets
# (fuzz/, clang, -fsanitize=fuzzer,address,undefined) into build-fuzz/ and
# runs each for SECONDS (default 60; all targets when none is named), one
# after the other.  Per target it prints executions, exec/s, coverage
# (libFuzzer's final "cov:" figure), corpus size and findings: the crash,
# leak, timeout and out-of-memory files libFuzzer wrote into
# build-fuzz/findings/<target>/.  A finding worth keeping goes, minimised
# (fuzz_<target> -minimize_crash=1 FILE), into fuzz/regress/<target>/,
# which tests/test_fuzz_regress.c replays in the normal build.
#
# The working corpus grows in build-fuzz/corpus/<target>/, seeded from
# fuzz/corpus/<target>/ (scenarios, profiles from `hetsim ingest`,
# sidecars, traces; see fuzz/README) and fuzz/regress/<target>/.
# Exit status: 0 no findings, 1 findings, 2 usage or build failure.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
case "$secs" in
    ''|*[!0-9]*) echo "usage: bench/fuzz.sh [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac
shift || true
all="units scenario links_csv profile sidecar trace"
targets=${*:-$all}
B=build-fuzz

if ! command -v clang >/dev/null; then
    echo "fuzz: clang is missing (apt-get install clang libclang-rt-14-dev)" >&2
    exit 2
fi
CC=clang cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DHETSIM_FUZZ=ON >/dev/null
tlist=""
for t in $targets; do tlist="$tlist --target fuzz_$t"; done
# shellcheck disable=SC2086
cmake --build "$B" -j"$(nproc)" $tlist >/dev/null

printf '%-10s %10s %8s %6s %7s %s\n' target execs exec/s cov corpus findings
found=0
for t in $targets; do
    corpus="$B/corpus/$t"
    out="$B/findings/$t"
    log="$B/fuzz-$t.log"
    # the targets' temporary files (libFuzzer may end without exit
    # handlers): a folder of ours, emptied after the run
    tmpd="$B/tmp/$t"
    mkdir -p "$corpus" "$out" "$tmpd"
    # -rss_limit_mb: ASan's shadow plus the library; -timeout: one input
    # taking over 10 s is a finding (a hang), not a slow machine
    set +e
    TMPDIR="$tmpd" ASAN_OPTIONS=detect_leaks=1 \
        UBSAN_OPTIONS=print_stacktrace=1 \
        "$B/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 \
        -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$out/" "$corpus" "fuzz/corpus/$t" \
        $( [ -d "fuzz/regress/$t" ] && echo "fuzz/regress/$t" ) \
        >"$log" 2>&1
    rc=$?
    set -e
    rm -rf "$tmpd"
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
