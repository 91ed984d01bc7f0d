#!/usr/bin/env bash
# test_install: `cmake --install` of the build tree into a temporary
# prefix, then checks what a user of the installed tree relies on:
#  1. the layout: bin/hetsim; libhetsim.so.VERSION with the SONAME
#     libhetsim.so.SOVERSION and libhetsim.a; include/hetsim/ with
#     hetsim.h and the public headers, no internal one; share/hetsim/
#     (plots, scenarios with models, the harness); hetsim.pc; the CMake
#     package files; the man pages; the bash completion; copyright and
#     LICENSE;
#  2. every installed header compiles on its own, and includes only
#     installed headers and system ones;
#  3. packaging/consumer/hs_consumer.c built against the installed tree
#     with pkg-config (shared; static with --static) and with
#     find_package(hetsim) (hetsim::hetsim, hetsim::hetsim_static): each
#     build predicts the default scenario and an installed example, the
#     same steps as `hetsim predict --json` (the shared library finds the
#     example beside itself; a static one at the configured prefix, so
#     here through HETSIM_DATADIR);
#  4. the tree moved to another folder and run from another directory:
#     `hetsim predict`, and `hetsim plot`, which finds its gnuplot scripts
#     beside the program (no path of the source or build tree is used);
#     HETSIM_DATADIR overrides the lookup.
# Usage: install.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
T=$(mktemp -d /tmp/hetsim-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
P=$T/prefix
fail() { echo "test_install: FAIL: $*" >&2; exit 1; }
ok() { echo "test_install: ok: $*"; }
t0=$(date +%s.%N)

cmake --install "$BUILD" --prefix "$P" >"$T/install.log" ||
    { cat "$T/install.log"; fail "cmake --install"; }
libdir=$(cd "$P" && ls -d lib*/libhetsim.so | head -1 | xargs dirname)
[ -n "$libdir" ] || fail "no libhetsim.so under $P/lib*"

# 1. the layout
for f in bin/hetsim "$libdir/libhetsim.a" include/hetsim/hetsim.h \
         share/hetsim/plots/timeline.gp share/hetsim/plots/steps.gp \
         share/hetsim/plots/sweep.gp share/hetsim/scenarios/default.yaml \
         share/hetsim/scenarios/models/mlp.py \
         share/hetsim/live/harness/hetsim_harness.py \
         share/hetsim/live/harness/hetsim_models.py \
         "$libdir/pkgconfig/hetsim.pc" "$libdir/cmake/hetsim/hetsimConfig.cmake" \
         "$libdir/cmake/hetsim/hetsimConfigVersion.cmake" \
         share/man/man1/hetsim.1 share/man/man1/hetsim-simulate.1 \
         share/bash-completion/completions/hetsim \
         share/doc/hetsim/copyright share/doc/hetsim/LICENSE; do
    [ -e "$P/$f" ] || fail "not installed: $f"
done
for c in $("$P/bin/hetsim" --list-commands); do
    [ -e "$P/share/man/man1/hetsim-$c.1" ] || fail "no man page hetsim-$c.1"
done
# the installed harness finds the model-module contract beside it
(cd "$T" && python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import hetsim_harness as h; assert h.M.__file__.startswith(sys.argv[1])' \
    "$P/share/hetsim/live/harness") || fail "the installed harness cannot import hetsim_models"
soname=$(objdump -p "$P/$libdir/libhetsim.so" | awk '$1 == "SONAME" {print $2}')
[[ $soname =~ ^libhetsim\.so\.[0-9]+$ ]] || fail "SONAME is '$soname'"
[ -e "$P/$libdir/$soname" ] || fail "no $soname link"
real=$(readlink -f "$P/$libdir/libhetsim.so")
[[ $real == */$soname.* ]] || fail "libhetsim.so -> $real, not $soname.VERSION"
grep -q ' T hs_closed_predict$' <<<"$(nm -D --defined-only "$P/$libdir/libhetsim.so")" ||
    fail "libhetsim.so does not export hs_closed_predict"
if grep -q '_int\.h$' <<<"$(ls "$P/include/hetsim/")"; then
    fail "internal headers installed: $(ls "$P/include/hetsim/" | grep '_int\.h$')"
fi
grep -q "GNU GENERAL PUBLIC LICENSE" "$P/share/doc/hetsim/LICENSE" ||
    fail "LICENSE is not the GPL"
grep -q "^License: GPL-3.0-or-later" "$P/share/doc/hetsim/copyright" ||
    fail "copyright does not name GPL-3.0-or-later"
ok "layout ($soname, $(ls "$P/include/hetsim" | wc -l) headers)"

# 2. the headers: self-contained, including only what is installed
for h in "$P"/include/hetsim/*.h; do
    n=$(basename "$h")
    { grep -o '^#include "[^"]*"' "$h" || true; } | sed 's/.*"\(.*\)"/\1/' |
    while read -r inc; do
        [ -e "$P/include/hetsim/$inc" ] ||
            fail "$n includes $inc, which is not installed"
    done
    printf '#include <hetsim/%s>\nint hs_test_unit;\n' "$n" >"$T/h.c"
    cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$P/include" "$T/h.c" ||
        fail "$n does not compile on its own"
done
ok "every installed header compiles alone"

# 3. a program against the installed tree
json_step() { # FILE.json: the cluster step of the source's closed form
    python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))
print(d["step_source_ns"] if "step_source_ns" in d else d["step_ns"])' "$1"
}
"$P/bin/hetsim" predict --json >"$T/default.json"
"$P/bin/hetsim" predict --json "$P/share/hetsim/scenarios/fig3-compute-bound.yaml" \
    >"$T/fig3.json"
want_default=$(json_step "$T/default.json")
want_fig3=$(json_step "$T/fig3.json")
check_consumer() { # NAME PROGRAM [ENV...]
    local name=$1 prog=$2 out
    shift 2
    out=$(env "$@" "$prog") || fail "$name: the program failed"
    grep -qx "version $("$P/bin/hetsim" --version | cut -d' ' -f2)" <<<"$out" ||
        fail "$name: version differs: $out"
    grep -qx "default_step_ns $want_default" <<<"$out" ||
        fail "$name: default step differs from predict's $want_default: $out"
    grep -qx "fig3_step_ns $want_fig3" <<<"$out" ||
        fail "$name: fig3 step differs from predict's $want_fig3: $out"
    grep -qx "datadir_scenario $(readlink -f "$P")/share/hetsim/scenarios/fig3-compute-bound.yaml" <<<"$out" ||
        fail "$name: the data directory is not the installed one: $out"
    grep -qx "time_1500ms_ns 1500000000" <<<"$out" || fail "$name: units: $out"
    ok "$name: default step $want_default ns, fig3 $want_fig3 ns, as predict"
}
export PKG_CONFIG_PATH="$P/$libdir/pkgconfig"
[ "$(pkg-config --modversion hetsim)" = "$("$P/bin/hetsim" --version | cut -d' ' -f2)" ] ||
    fail "pkg-config --modversion hetsim"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -o "$T/c_pc" "$SRC/packaging/consumer/hs_consumer.c" \
    $(pkg-config --cflags --libs hetsim)
check_consumer "pkg-config (shared)" "$T/c_pc" LD_LIBRARY_PATH="$P/$libdir"
grep -q "NEEDED.*\[$soname\]" <<<"$(readelf -d "$T/c_pc")" || fail "c_pc does not need $soname"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -o "$T/c_pc_static" "$SRC/packaging/consumer/hs_consumer.c" \
    $(pkg-config --cflags hetsim) "$P/$libdir/libhetsim.a" \
    $(pkg-config --static --libs hetsim | sed 's/-lhetsim\b//')
grep -q "libhetsim" <<<"$(readelf -d "$T/c_pc_static")" && fail "c_pc_static needs libhetsim.so"
# a static libhetsim in a program elsewhere finds its data at the prefix
# given when the build was configured, or at $HETSIM_DATADIR: here the tree
# was installed with another --prefix, so it is named
check_consumer "pkg-config --static" "$T/c_pc_static" HETSIM_DATADIR="$P/share/hetsim"
cmake -S "$SRC/packaging/consumer" -B "$T/cbuild" -DCMAKE_PREFIX_PATH="$P" \
    >"$T/cmake.log" 2>&1 || { cat "$T/cmake.log"; fail "find_package(hetsim)"; }
cmake --build "$T/cbuild" >>"$T/cmake.log" 2>&1 ||
    { cat "$T/cmake.log"; fail "building against hetsim::hetsim"; }
[ "$(cat "$T/cbuild/hetsim_datadir.txt")" = "$P/share/hetsim" ] ||
    fail "hetsim_DATADIR is $(cat "$T/cbuild/hetsim_datadir.txt")"
check_consumer "find_package hetsim::hetsim" "$T/cbuild/hs_consumer"
check_consumer "find_package hetsim::hetsim_static" "$T/cbuild/hs_consumer_static" \
    HETSIM_DATADIR="$P/share/hetsim"

# 4. the tree moved, run from elsewhere
mv "$P" "$T/moved"
M=$T/moved
mkdir "$T/cwd"
cd "$T/cwd"
"$M/bin/hetsim" predict --json >"$T/moved.json"
[ "$(json_step "$T/moved.json")" = "$want_default" ] || fail "moved: predict differs"
"$M/bin/hetsim" simulate --steps 3 --h5 "$T/run.h5" >/dev/null
if command -v gnuplot >/dev/null; then
    env -u HETSIM_PLOTS_DIR -u HETSIM_DATADIR \
        "$M/bin/hetsim" plot "$T/run.h5" -o "$T/run.png" >/dev/null ||
        fail "moved: hetsim plot did not find its scripts"
    [ -s "$T/run.png" ] || fail "moved: no plot"
    ok "moved tree: predict and plot (scripts from $M/share/hetsim)"
else
    echo "test_install: gnuplot is missing: the moved tree's plot is not run"
fi
# the override: a folder without the scripts fails and says so
mkdir "$T/empty"
if HETSIM_DATADIR=$T/empty "$M/bin/hetsim" plot "$T/run.h5" -o "$T/x.png" \
        2>"$T/err.txt"; then
    fail "HETSIM_DATADIR=empty: plot succeeded"
fi
grep -q "HETSIM_DATADIR" "$T/err.txt" || fail "the error does not name HETSIM_DATADIR: $(cat "$T/err.txt")"
[ -e "$T/x.png" ] && fail "HETSIM_DATADIR=empty left a picture"
if command -v gnuplot >/dev/null; then
    HETSIM_DATADIR=$M/share/hetsim "$M/bin/hetsim" plot --kind steps "$T/run.h5" \
        -o "$T/y.png" >/dev/null || fail "HETSIM_DATADIR=the data dir: plot failed"
fi
ok "HETSIM_DATADIR overrides the lookup"

# the Python package, from the moved installed tree only (no build tree, no
# HETSIM_LIBRARY): the same step as the installed tool
pydir=$(ls -d "$M"/lib/python3/dist-packages 2>/dev/null || true)
[ -n "$pydir" ] && [ -f "$pydir/hetsim/__init__.py" ] || fail "no Python package hetsim"
got=$(cd "$T" && env -u HETSIM_LIBRARY PYTHONPATH="$pydir" python3 -c "import hetsim; print(hetsim.Scenario.load('$M/share/hetsim/scenarios/fig3-compute-bound.yaml').predict()['step_source_ns'])") ||
    fail "import hetsim from the installed tree failed"
[ "$got" = "$want_fig3" ] || fail "hetsim (Python) predicts $got, the tool $want_fig3"
ok "import hetsim from $pydir predicts as the tool"
echo "test_install: passed in $(awk -v a="$t0" -v b="$(date +%s.%N)" \
    'BEGIN { printf "%.1f", b - a }') s"
