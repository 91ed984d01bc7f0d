#!/usr/bin/env bash
# scripts/asan-python.sh [ASAN_BUILD] -- the Python package's tests
# (tests/python) over an AddressSanitizer build of libhetsim.so, the tool
# too (cmake -S . -B build-asan -DHETSIM_SANITIZE=ON -DBUILD_TESTING=OFF;
# cmake --build build-asan --target hetsim_shared hetsim), the ASan runtime
# preloaded into Debian's python3.  Fails on any ASan or UBSan error, or on a leak
# whose stack passes through libhetsim (an hs_ function): a Scenario or a
# timeline freed by Python must free the C side.  The interpreter's own
# leaks at exit are not ours and are only counted.  test_scenarios_are_freed
# is left out (ASan's quarantine makes the resident size grow).  ASan exits
# 0 (the interpreter leaks at exit): errors are counted from its logs.
set -uo pipefail
cd "$(dirname "$0")/.."
B=$(cd "${1:-build-asan}" && pwd) || exit 2
asan=$(gcc -print-file-name=libasan.so)
[ -f "$B/libhetsim.so" ] && [ -f "$asan" ] || { echo "asan-python: build $B first" >&2; exit 2; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=1:exitcode=0:log_path=$logs/asan \
    UBSAN_OPTIONS=print_stacktrace=1:log_path=$logs/ubsan \
    HETSIM=$B/hetsim HETSIM_LIBRARY=$B/libhetsim.so PYTHONPATH=python \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python \
    -k "not test_scenarios_are_freed"
rc=$?
errors=$(cat "$logs"/asan* "$logs"/ubsan* 2>/dev/null |
    grep -c -e "ERROR: AddressSanitizer" -e "runtime error" || true)
ours=$(cat "$logs"/asan* 2>/dev/null | awk '/^(Direct|Indirect) leak/{l=$0; p=0} / in hs_/{if (!p) {n++; p=1}} END{print n+0}')
others=$(cat "$logs"/asan* 2>/dev/null | grep -c "^Direct leak" || true)
echo "asan-python: pytest exit $rc; ASan/UBSan errors $errors; leaks through libhetsim $ours; other leak records (the interpreter's) $others"
[ "$rc" = 0 ] && [ "$errors" = 0 ] && [ "$ours" = 0 ]
