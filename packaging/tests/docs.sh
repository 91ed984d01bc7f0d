#!/usr/bin/env bash
# test_docs: the man pages and the bash completion that the build wrote
# from the option tables (BUILD/doc, cmake/hs_gen_docs.cmake) agree with
# the tool's --help and render:
#  1. there is a page per command (hetsim --list-commands) and hetsim(1);
#     each is what the built tool writes now (no stale page);
#  2. groff renders each page without a warning (-ww), and `man -l` shows
#     its NAME line and every option that `hetsim CMD --help` lists;
#  3. the completion, sourced in bash, offers for `hetsim CMD --` exactly
#     the options of `hetsim CMD --help`, the commands after `hetsim `,
#     the names of a set after such an option (--overlap, --formula,
#     --kind) and files after a path option (-o).
# Usage: docs.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
BUILD=$(cd "$2" && pwd)
H=$BUILD/hetsim
D=$BUILD/doc
T=$(mktemp -d /tmp/hetsim-docs.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "test_docs: FAIL: $*" >&2; exit 1; }
ok() { echo "test_docs: ok: $*"; }
t0=$(date +%s.%N)
command -v groff >/dev/null || { echo "test_docs: SKIP: groff is missing (apt-get install groff-base)"; exit 77; }

# the options `hetsim CMD --help` lists, one per line, sorted
help_opts() {
    "$H" "$1" --help | awk '/^options:/ { o = 1; next } o && /^  -/ {
        for (i = 1; i <= 2; i++) { w = $i; sub(/,$/, "", w); if (w ~ /^-/) print w } }' |
        sort -u
}

cmds=$("$H" --list-commands)
[ -n "$cmds" ] || fail "hetsim --list-commands is empty"
pages=hetsim
for c in $cmds; do pages="$pages hetsim-$c"; done
for p in $pages; do
    f=$D/man1/$p.1
    [ -s "$f" ] || fail "no page $f"
    if [ "$p" = hetsim ]; then "$H" --help-man >"$T/now.1"
    else "$H" --help-man "${p#hetsim-}" >"$T/now.1"; fi
    cmp -s "$f" "$T/now.1" || fail "$f is not what hetsim writes now (stale)"
    groff -man -Tutf8 -ww -z "$f" 2>"$T/warn.txt"
    [ ! -s "$T/warn.txt" ] || fail "groff warns on $p.1: $(cat "$T/warn.txt")"
    if command -v man >/dev/null; then
        MANWIDTH=200 man -l -E ascii "$f" 2>/dev/null | sed 's/.\x08//g' >"$T/page.txt"
    else
        groff -man -Tascii -rLL=200n "$f" | sed 's/.\x08//g' >"$T/page.txt"
    fi
    grep -q "^ *$p - " "$T/page.txt" || fail "$p.1 has no NAME line '$p - ...'"
    if [ "$p" != hetsim ]; then
        for o in $(help_opts "${p#hetsim-}"); do
            grep -q -- "^ *\(-., \)\?$o\b" "$T/page.txt" ||
                fail "$p.1 does not show option $o"
        done
    else
        for c in $cmds; do
            grep -q "hetsim-$c(1)" "$T/page.txt" || fail "hetsim.1 does not list hetsim-$c(1)"
        done
    fi
done
ok "$(echo "$pages" | wc -w) man pages, current, render without warnings, every option shown"

# completion: COMPREPLY for the words given, one per line, sorted
complete_words() {
    (cd "$T" && bash --norc --noprofile -c '
        source "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
        _hetsim; printf "%s\n" "${COMPREPLY[@]}"' _ "$D/completion/hetsim" "$@") |
        sed '/^$/d' | sort -u
}
bash -n "$D/completion/hetsim" || fail "the completion is not valid bash"
"$H" --completion bash | cmp -s - "$D/completion/hetsim" ||
    fail "the completion is not what hetsim writes now (stale)"
diff <(complete_words hetsim "") <( (echo "$cmds"; echo --help; echo --version) | sort -u) ||
    fail "hetsim <TAB> does not offer the commands"
for c in $cmds; do
    diff <(complete_words hetsim "$c" --) <(help_opts "$c" | grep '^--') >"$T/d.txt" ||
        fail "hetsim $c --<TAB> differs from --help's options: $(cat "$T/d.txt")"
done
[ "$(complete_words hetsim simulate --overlap "" | tr '\n' ' ')" = "buckets last_bucket none patent " ] ||
    fail "simulate --overlap <TAB>: $(complete_words hetsim simulate --overlap "")"
[ "$(complete_words hetsim validate --formula = s | tr '\n' ' ')" = "source " ] ||
    fail "validate --formula=s<TAB>: $(complete_words hetsim validate --formula = s)"
[ "$(complete_words hetsim plot --kind "" | tr '\n' ' ')" = "steps sweep timeline " ] ||
    fail "plot --kind <TAB>: $(complete_words hetsim plot --kind "")"
touch "$T/run.h5" "$T/run.png"
[ "$(complete_words hetsim plot -o ru | tr '\n' ' ')" = "run.h5 run.png " ] ||
    fail "plot -o ru<TAB>: $(complete_words hetsim plot -o ru)"
[ -z "$(complete_words hetsim simulate --steps "")" ] ||
    fail "simulate --steps <TAB> offers something"
ok "completion: commands, every command's options, set values, files"
echo "test_docs: passed in $(awk -v a="$t0" -v b="$(date +%s.%N)" \
    'BEGIN { printf "%.1f", b - a }') s"
