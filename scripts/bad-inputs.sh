#!/usr/bin/env bash
# scripts/bad-inputs.sh [HETSIM] -- every kind of bad input tried on hetsim,
# as a Markdown table: what was given, the command, its exit status and the
# first line of its message (issue 15's closing table; docs/bad-inputs.md
# is this script's output).  HETSIM defaults to build/hetsim.
#
# Each case writes its input into a temporary directory (removed on exit),
# runs one command on it and records the status.  A case passes when the
# status is the one expected (2 bad input, 3 I/O, 4 an external program or
# host) and the message names where the fault is (the file, and
# line:col or the byte offset where the case says so).  Exit status: 0
# every case passed, 1 some case did not (its row says "UNEXPECTED"), 2
# usage.  Network cases talk only to loopback addresses.
set -uo pipefail
cd "$(dirname "$0")/.."
H=${1:-build/hetsim}
[ -x "$H" ] || { echo "bad-inputs: no hetsim at $H (build first)" >&2; exit 2; }
H=$(cd "$(dirname "$H")" && pwd)/$(basename "$H")
T=$(mktemp -d "${TMPDIR:-/tmp}/hetsim-bad.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
fails=0

# base SCEN: a valid two-device scenario with one setting replaced.
# Arguments: sed expressions applied to the template.
base() {
    [ $# -gt 0 ] || set -- -e ''
    cat <<'EOF' | sed "$@"
name: bad
job:
  dataset: {samples: 1000000}
  epochs: 1
device_types:
  - name: g
    batch: 32
    profile:
      t_fwd: 10ms
      t_b1: 1ms
      t_bwd: 20ms
      allreduce_bytes: 100MB
devices:
  - {name: d0, type: g, addr: 10.0.0.1, compute_scale: 1}
  - {name: d1, type: g, addr: 10.0.0.2}
network: {default_bandwidth: 25Gbps, latency: 10us}
simulate:
  steps: 10
  stragglers: [{device: d1, steps: [2, 3], factor: 2}]
EOF
}

# row WHAT EXPECT_STATUS EXPECT_WHERE CMD... : runs CMD (hetsim's
# arguments), prints a table row.  EXPECT_WHERE: a text the message must
# hold (the file:line:col or byte offset), "-" for none.
row() {
    local what=$1 want=$2 where=$3 st msg ok
    shift 3
    msg=$(timeout 60 "$H" "$@" 2>&1 >/dev/null </dev/null)
    st=$?
    msg=$(printf '%s\n' "$msg" | grep -v '^$' | head -n 1)
    msg=${msg//$T\//}
    msg=${msg//|/\\|}
    ok=yes
    [ "$st" = "$want" ] || ok=no
    if [ "$where" != "-" ] && [[ "$msg" != *"$where"* ]]; then ok=no; fi
    if [ $ok = no ]; then fails=$((fails + 1)); st="$st UNEXPECTED (want $want)"; fi
    printf '| %s | `%s` | %s | `%s` |\n' "$what" "${1}" "$st" "${msg:0:240}"
}

# scen FILE LINE_COL WHAT CMD SED_EXPR... : the base scenario edited by
# SED_EXPR into FILE, then `hetsim CMD FILE` as a row that must exit 2 and
# name FILE:LINE_COL ("" for the file alone, with its colon).
scen() {
    local f=$1 at=$2 what=$3 cmd=$4
    shift 4
    base "$@" >"$f"
    row "$what" 2 "$f:$at" "$cmd" "$f"
}

echo "| bad input | command | exit | message (first line) |"
echo "|---|---|---|---|"

# -- the issue's own examples --
scen s1.yaml "14:" "compute_scale 1e12" predict -e 's/compute_scale: 1}/compute_scale: 1e12}/'
scen s2.yaml "" "a 1 TB payload on a 1 bit/s link" predict \
    -e 's/allreduce_bytes: 100MB/allreduce_bytes: 1TB/' \
    -e 's/default_bandwidth: 25Gbps/default_bandwidth: 1bps/'
scen s3.yaml "16:" "a latency of 2,500,000 h" simulate -e 's/latency: 10us/latency: 2500000h/'
scen s4.yaml "12:" "an all-reduce of 10,000 PB" predict -e 's/allreduce_bytes: 100MB/allreduce_bytes: 10000PB/'
scen s5.yaml "19:" "a straggler factor of 1e300" simulate -e 's/factor: 2}/factor: 1e300}/'
scen s6.yaml "14:" "an addr that starts with '-'" predict \
    -e 's/addr: 10.0.0.1,/addr: "-oProxyCommand=x",/'

# -- YAML and schema --
printf 'name: x\njob: [1, 2\n' >y1.yaml
row "YAML syntax error (unclosed flow)" 2 "y1.yaml:" predict y1.yaml
scen y2.yaml "5:3:" "an unknown key" predict -e 's/^  epochs: 1/  epochs: 1\n  colour: red/'
scen y3.yaml "7:" "a count that is not a number" predict -e 's/batch: 32/batch: lots/'
scen y4.yaml "9:" "an unknown unit" predict -e 's/t_fwd: 10ms/t_fwd: 10 parsecs/'
scen y5.yaml "7:" "a batch of 0" predict -e 's/batch: 32/batch: 0/'
scen y6.yaml "15:" "a device of an unknown type" predict \
    -e 's/type: g, addr: 10.0.0.2/type: h, addr: 10.0.0.2/'
scen y7.yaml "15:" "two devices with one name" predict -e 's/{name: d1,/{name: d0,/'
scen y8.yaml "4:" "a negative epoch count" predict -e 's/epochs: 1/epochs: -1/'
printf '' >y9.yaml
row "an empty file" 2 "y9.yaml" predict y9.yaml
printf '\xff\xfe\x00garbage' >y10.yaml
row "binary garbage" 2 "y10.yaml" predict y10.yaml
scen y11.yaml "6:" "a type name with white space" predict \
    -e 's/name: g$/name: "g h"/' -e 's/type: g,/type: "g h",/g'
scen y12.yaml "1:" "a self-referencing YAML alias" predict -e 's/^name: bad/name: \&x [*x]/'

# -- network --
scen n1.yaml "16:" "a ring link without bandwidth" predict \
    -e 's/network: {default_bandwidth: 25Gbps, latency: 10us}/network: {latency: 10us}/'
printf '10.0.0.1,10.0.0.2,fast\n' >n2.csv
base -e 's/network: {default_bandwidth: 25Gbps, latency: 10us}/network: {links_csv: n2.csv}/' >n2.yaml
row "a links CSV with a bad rate" 2 "n2.csv:1:" predict n2.yaml
base -e 's/network: {default_bandwidth: 25Gbps, latency: 10us}/network: {links_csv: missing.csv}/' >n3.yaml
row "a links CSV that does not exist" 3 "missing.csv" predict n3.yaml
base -e 's/addr: 10.0.0.1,/addr: 127.0.0.1,/' -e 's/addr: 10.0.0.2}/addr: 127.0.0.2}/' >n4.yaml
row "measure-bw, an iperf3 that cannot run" 4 "-" measure-bw n4.yaml -o n4.csv --iperf3 ./no-such-iperf3

# -- files --
row "a scenario that does not exist" 3 "nope.yaml" predict nope.yaml
row "a directory as the scenario" 3 "" predict "$T"
row "/dev/zero as the scenario" 3 "/dev/zero" predict /dev/zero

# -- profiles and traces --
printf 't_fwd: [1, 2]\n' >p1.yaml
base | sed -e '/^      t_/d' -e '/^      allreduce_bytes/d' \
           -e 's/^    profile:$/    profile: p1.yaml/' >p1s.yaml
row "a profile file whose time is a list" 2 "p1.yaml:1:" predict p1s.yaml
printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": -5}]}' >t1.json
row "a trace event with a negative duration" 2 "t1.json: byte" ingest --type g t1.json -o t1.yaml
printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1' >t2.json
row "a truncated trace" 2 "t2.json: byte" ingest --type g t2.json -o t2.yaml
printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}]}' | gzip -c | head -c 40 >t3.json.gz
row "a truncated gzip trace" 2 "t3.json.gz" ingest --type g t3.json.gz -o t3.yaml
printf '\x1f\x8bgarbage' >t4.json.gz
row "gzip magic then garbage" 2 "t4.json.gz" ingest --type g t4.json.gz -o t4.yaml
printf '{"traceEvents": []}' >t5.json
row "a trace with no steps" 2 "t5.json" ingest --type g t5.json -o t5.yaml
cp t5.json t6.json
printf '{"buckets": [{"bytes": -1}]}' >t6.side.json
row "a JSON file that is not a sidecar" 2 "t6.side.json" ingest --type g --sidecar t6.side.json t6.json -o t6.yaml

# -- the command line --
row "an unknown option" 2 "--frobnicate" predict --frobnicate
row "a negative --steps" 2 "steps" simulate --steps -3
row "sweep --set of an unknown key" 2 "nosuch" sweep --set nosuch.key=1 --vary job.epochs=1,2
row "a replay past the budget (default scenario)" 2 "--force" simulate --steps 100000000

# -- output that must not be half-written --
echo "keep me" >out.yaml
row "a failing ingest over an existing profile" 2 "t2.json" ingest --type g t2.json -o out.yaml
if [ "$(cat out.yaml)" != "keep me" ]; then
    echo "| (the file above) | | UNEXPECTED | out.yaml was changed |"
    fails=$((fails + 1))
fi
left=$(ls -a | grep -c '\.tmp\.' || true)
if [ "$left" != 0 ]; then
    echo "| (temporary files) | | UNEXPECTED | $left left |"
    fails=$((fails + 1))
fi
echo
echo "$fails unexpected"
[ "$fails" = 0 ]
