#!/usr/bin/env bash
# test_deb: `cpack -G DEB` of the build tree makes a Debian package that
# works with the source and build trees out of the way:
#  1. the package: name, version, Depends (from dpkg-shlibdeps) naming
#     GSL, libyaml, yajl, HDF5, zlib and libc, each installed here;
#     Recommends gnuplot; the files (tool, library, headers, data, man
#     pages, completion, /usr/share/doc/hetsim/copyright naming the GPL);
#  2. unpacked with dpkg -x into a temporary root: its tool and library
#     hold no path of the source or build tree (stripped, nothing compiled
#     in); run from another directory it predicts the default scenario as
#     the build tree's tool does (the same JSON), and plots with its own
#     gnuplot scripts;
#  3. as root, when no hetsim package is installed: dpkg -i, the default
#     prediction from /, `man -w hetsim-simulate`, the completion file,
#     then dpkg -r, after which nothing of it is left (done under a lock,
#     and removed on any exit).  Elsewhere this part says why it is left
#     out; parts 1 and 2 always run.
# Usage: deb.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
T=$(mktemp -d /tmp/hetsim-deb.XXXXXX)
installed=0
cleanup() {
    if [ "$installed" = 1 ]; then
        dpkg -r hetsim >/dev/null 2>&1 || true
    fi
    rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "test_deb: FAIL: $*" >&2; exit 1; }
ok() { echo "test_deb: ok: $*"; }
t0=$(date +%s.%N)
for p in dpkg-deb dpkg-shlibdeps cpack; do
    command -v "$p" >/dev/null ||
        { echo "test_deb: SKIP: $p is missing (apt-get install dpkg-dev cmake)"; exit 77; }
done

# 1. the package
cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$T/pkg" >"$T/cpack.log" 2>&1 ||
    { cat "$T/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$T"/pkg/*.deb)
[ "$(dpkg-deb -f "$deb" Package)" = hetsim ] || fail "Package: $(dpkg-deb -f "$deb" Package)"
version=$("$BUILD/hetsim" --version | cut -d' ' -f2)
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version: $(dpkg-deb -f "$deb" Version)"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libgsl libyaml libyajl libhdf5 libc6; do
    grep -q "\b$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
# gzip traces: ISA-L's igzip when the build found it, else zlib
grep -qE "\b(libisal|zlib1g)" <<<"$depends" ||
    fail "Depends lacks an inflate library (libisal or zlib1g): $depends"
# every dependency (its first alternative) is installed here
tr ',' '\n' <<<"$depends" | sed 's/|.*//; s/(.*//; s/ //g' | while read -r dep; do
    [ -z "$dep" ] && continue
    grep -q "ok installed" <<<"$(dpkg-query -W -f='${Status}' "$dep" 2>/dev/null)" ||
        fail "Depends names $dep, which is not installed"
done
grep -q gnuplot <<<"$(dpkg-deb -f "$deb" Recommends)" || fail "Recommends lacks gnuplot"
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$T/files.txt"
for f in /usr/bin/hetsim /usr/include/hetsim/hetsim.h /usr/share/hetsim/plots/timeline.gp \
         /usr/share/hetsim/scenarios/default.yaml /usr/share/hetsim/live/harness/hetsim_harness.py \
         /usr/share/hetsim/live/harness/hetsim_models.py \
         /usr/share/man/man1/hetsim.1 /usr/share/man/man1/hetsim-simulate.1 \
         /usr/share/bash-completion/completions/hetsim /usr/share/doc/hetsim/copyright; do
    grep -qx "$f" "$T/files.txt" || fail "the package lacks $f"
done
grep -q '/libhetsim\.so\.[0-9.]*$' "$T/files.txt" || fail "the package lacks libhetsim.so.N"
ok "$(basename "$deb"): Depends: $depends"

# 2. unpacked elsewhere
dpkg-deb -x "$deb" "$T/root"
R=$T/root
grep -q "^License: GPL-3.0-or-later" "$R/usr/share/doc/hetsim/copyright" ||
    fail "copyright does not name GPL-3.0-or-later"
for f in "$R/usr/bin/hetsim" "$R"/usr/lib*/libhetsim.so.*.* "$R"/usr/lib/*/libhetsim.so.*.*; do
    [ -e "$f" ] || continue
    if grep -a -q -e "$SRC" -e "$BUILD" "$f"; then
        fail "${f#"$R"} holds the path of the source or build tree"
    fi
done
"$BUILD/hetsim" predict --json >"$T/want.json"
mkdir "$T/cwd"
cd "$T/cwd"
env -u HETSIM_DATADIR -u HETSIM_PLOTS_DIR "$R/usr/bin/hetsim" predict --json >"$T/got.json"
python3 - "$T/want.json" "$T/got.json" <<'EOF' || fail "the unpacked tool predicts otherwise"
import json, sys
w, g = (json.load(open(p)) for p in sys.argv[1:3])
assert w == g, [k for k in w if w.get(k) != g.get(k)]
EOF
"$R/usr/bin/hetsim" simulate --steps 3 --h5 "$T/run.h5" >/dev/null
if command -v gnuplot >/dev/null; then
    env -u HETSIM_DATADIR -u HETSIM_PLOTS_DIR "$R/usr/bin/hetsim" plot "$T/run.h5" \
        -o "$T/run.png" >/dev/null || fail "the unpacked tool cannot plot"
    [ -s "$T/run.png" ] || fail "no plot"
fi
got=$(env -u HETSIM_LIBRARY PYTHONPATH="$R/usr/lib/python3/dist-packages" python3 -c \
    "import hetsim; print(hetsim.Scenario.default().predict()['step_source_ns'])") ||
    fail "import hetsim from the unpacked package failed"
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_source_ns"])' "$T/want.json")
[ "$got" = "$want" ] || fail "hetsim (Python) from the package predicts $got, the tool $want"
ok "unpacked in $R: no source or build path inside, predicts and plots from $T/cwd, import hetsim too"

# 3. dpkg -i / dpkg -r on this machine
if [ "$(id -u)" != 0 ]; then
    echo "test_deb: the dpkg -i/-r round is left out: not root"
elif grep -q "installed" <<<"$(dpkg-query -W -f='${Status}' hetsim 2>/dev/null)"; then
    echo "test_deb: the dpkg -i/-r round is left out: a hetsim package is installed here"
else
    exec 9>/tmp/hetsim-test-deb.lock
    flock -w 300 9 || fail "another test_deb holds /tmp/hetsim-test-deb.lock"
    installed=1
    tries=0
    until dpkg -i "$deb" >"$T/dpkg.log" 2>&1; do
        # another dpkg or apt on the machine: wait for its lock
        grep -qi "lock" "$T/dpkg.log" && [ $((tries += 1)) -lt 60 ] ||
            { cat "$T/dpkg.log"; fail "dpkg -i"; }
        sleep 2
    done
    cd /
    hash -r
    [ "$(command -v hetsim)" = /usr/bin/hetsim ] || fail "hetsim is not /usr/bin/hetsim"
    env -u HETSIM_DATADIR hetsim predict --json >"$T/sys.json"
    python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); assert a==b' \
        "$T/want.json" "$T/sys.json" || fail "the installed tool predicts otherwise"
    mancheck="man hetsim-simulate"
    if ! command -v man >/dev/null; then
        mancheck="no man program to read the installed page"
    elif grep -rqs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/; then
        mancheck="dpkg here leaves out /usr/share/man (path-exclude)"
    else
        [ "$(man -w hetsim-simulate)" = /usr/share/man/man1/hetsim-simulate.1 ] ||
            fail "man -w hetsim-simulate: $(man -w hetsim-simulate 2>&1)"
        grep -q -- "--steps" <<<"$(man hetsim-simulate 2>/dev/null)" || fail "man hetsim-simulate"
    fi
    [ -s /usr/share/bash-completion/completions/hetsim ] || fail "no installed completion"
    until dpkg -r hetsim >"$T/dpkg.log" 2>&1; do
        grep -qi "lock" "$T/dpkg.log" && [ $((tries += 1)) -lt 60 ] ||
            { cat "$T/dpkg.log"; fail "dpkg -r"; }
        sleep 2
    done
    installed=0
    [ ! -e /usr/bin/hetsim ] && [ ! -e /usr/share/hetsim ] && [ ! -e /usr/include/hetsim ] ||
        fail "dpkg -r left files behind"
    dpkg -P hetsim >/dev/null 2>&1 || true
    ok "dpkg -i, hetsim predict from /, $mancheck, completion, dpkg -r"
fi
echo "test_deb: passed in $(awk -v a="$t0" -v b="$(date +%s.%N)" \
    'BEGIN { printf "%.1f", b - a }') s"
