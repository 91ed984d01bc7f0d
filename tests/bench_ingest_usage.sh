#!/bin/sh
# bench_ingest_usage.sh BENCH_INGEST -- the benchmark's command line:
# --help prints the usage on stdout and exits 0; every bad argument below
# prints the usage on stderr and exits 2 (before generating or reading
# any trace, so each case takes milliseconds).
b="$1"
fail=0
out=$("$b" --help) ; rc=$?
if [ "$rc" -ne 0 ] || ! printf '%s\n' "$out" | grep -q '^usage: bench_ingest'; then
    echo "FAIL: --help: exit $rc, stdout: $out"; fail=1
fi
check() {
    err=$("$b" "$@" 2>&1 >/dev/null) ; rc=$?
    if [ "$rc" -ne 2 ] || ! printf '%s\n' "$err" | grep -q 'usage: bench_ingest'; then
        echo "FAIL: bench_ingest $*: exit $rc (want 2), stderr: $err"; fail=1
    fi
}
check --bogus
check -x
check --no-python 0
check --no-python -- 
check --no-python abc
check --no-python 12x
check --no-python 1.5
check --no-python 10 20 30
check --reps
check --reps 0
check --reps 16
check --reps two 10
check --python-reps 0
check --warmup -1
check --trace
check --write
check 10 --trace t.json
exit $fail
