#!/usr/bin/python3
"""Writes fuzz/data/tiny-rank0.json and tiny-rank1.json.gz (plain and
gzipped, so that both reading paths run), the two small traces the
sidecar fuzz target ingests on every input, from the test suite's legacy
traces (tests/data/ingest/legacy-rank{0,1}.json.gz, written by
tests/data/ingest/gen_legacy_trace.py): the events before the first
ProfilerStep window, the first STEPS windows and, in them and one more
step (left without its window), only the events the Kineto reader looks at
(traces/hs_kineto.c: steps, DataLoader, backward, optimizer, all-reduce)
plus the forward's linear layers.  About 4 kB each instead of 900 kB, so
that the target spends its time on the sidecar, not on JSON.

usage: fuzz/data/make_tiny.py [STEPS]   (default 3; run from the repo root)
"""
import gzip
import json
import sys

KEEP = ("ProfilerStep#", "enumerate(DataLoader)#",
        "autograd::engine::evaluate_function: ", "Optimizer.",
        "record_param_comms", "c10d::allreduce_", "gloo:all_reduce",
        "aten::linear")


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    for r in (0, 1):
        with gzip.open("tests/data/ingest/legacy-rank%d.json.gz" % r) as f:
            ev = json.load(f)
        win = sorted((e for e in ev
                      if e.get("name", "").startswith("ProfilerStep#")),
                     key=lambda e: e["ts"])[:steps + 1]
        start, end = win[0]["ts"], win[-1]["ts"] + win[-1]["dur"]
        # the events before the first window, and those of one more step
        # without its ProfilerStep (outside every window), as in a real trace
        out = [e for e in ev
               if e.get("ts", 0) < start or
               (e.get("ts", 0) <= end and
                e.get("name", "").startswith(KEEP) and e is not win[-1])]
        text = json.dumps(out, separators=(",", ":")).encode()
        if r == 0:
            with open("fuzz/data/tiny-rank0.json", "wb") as f:
                f.write(text)
        else:
            with open("fuzz/data/tiny-rank1.json.gz", "wb") as raw, \
                    gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as g:
                g.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
