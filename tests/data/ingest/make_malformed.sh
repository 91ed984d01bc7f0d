#!/bin/sh
# Rebuilds the malformed fixtures of tests/test_ingest.c from the legacy
# fixture (legacy-rank0.json.gz, made by gen_legacy_trace.py).  Each holds
# one defect hetsim ingest must report cleanly (exit 2, file named):
#   empty.json            0 bytes
#   truncated.json.gz     valid gzip of JSON cut after 3000 bytes
#   truncated-gz.json.gz  a gzip stream cut after 2000 bytes
#   not-gzip.json.gz      plain text under a .gz name
#   wrong-types.json      an event whose "ts" is a string
#   no-steps.json         well-formed events, but no ProfilerStep#N window
#   scalar.json           a JSON number at the top level
#   bad-sidecar.json      a sidecar whose world_size is a string
set -e
cd "$(dirname "$0")"
: > empty.json
zcat legacy-rank0.json.gz | head -c 3000 | gzip -n -9 > truncated.json.gz
head -c 2000 legacy-rank0.json.gz > truncated-gz.json.gz
printf '[{"name": "ProfilerStep#0", "ph": "X", "ts": 1, "dur": 5}]\n' > not-gzip.json.gz
cat > wrong-types.json <<'J'
[{"name": "ProfilerStep#0", "ph": "X", "ts": 100, "dur": 50, "tid": 1, "pid": "CPU functions", "args": {}},
 {"name": "aten::mm", "ph": "X", "ts": "one hundred and ten", "dur": 5, "tid": 1, "pid": "CPU functions", "args": {}}]
J
cat > no-steps.json <<'J'
[{"name": "aten::mm", "ph": "X", "ts": 110, "dur": 5, "tid": 1, "pid": "CPU functions", "args": {}},
 {"name": "autograd::engine::evaluate_function: MmBackward0", "ph": "X", "ts": 120, "dur": 7, "tid": 1, "pid": "CPU functions", "args": {}}]
J
printf '42\n' > scalar.json
printf '{"hetsim_sidecar": 1, "world_size": "two", "grad_bytes": 1000}\n' > bad-sidecar.json
