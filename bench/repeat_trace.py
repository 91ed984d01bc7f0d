#!/usr/bin/env python3
"""repeat_trace.py -- a large Kineto trace made by repeating a real one.

usage: repeat_trace.py SRC.json[.gz] OUT.json[.gz] TARGET_MB

Copies SRC's top-level keys and repeats its traceEvents until the JSON text
reaches about TARGET_MB megabytes (10^6 bytes).  Copy c shifts every "ts"
by c times the source's time span (rounded up to a second), renumbers
ProfilerStep#N to N + c * (steps + 100), and shifts the ids that tie events
together ("correlation", "External id", flow "id") by c * 10^7, so each
copy is a new run of the same iterations.  Events are written one per line
with ", " and ": " separators.  OUT is gzipped (level 6) when it ends in
".gz".  For bench/bench_ingest; not a test fixture.
"""
import gzip
import json
import sys


def main():
    src, out, target_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    op = gzip.open if src.endswith(".gz") else open
    with op(src, "rt") as f:
        d = json.load(f)
    evs = d["traceEvents"]
    ts = [e["ts"] for e in evs if isinstance(e.get("ts"), (int, float))]
    ends = [e["ts"] + e.get("dur", 0) for e in evs
            if isinstance(e.get("ts"), (int, float))]
    span = int((max(ends) - min(ts)) // 1000000 + 1) * 1000000
    nsteps = sum(1 for e in evs
                 if str(e.get("name", "")).startswith("ProfilerStep#"))
    head = {k: v for k, v in d.items() if k != "traceEvents"}
    target = int(target_mb * 1e6)
    wo = (lambda p: gzip.open(p, "wt", compresslevel=6)) \
        if out.endswith(".gz") else (lambda p: open(p, "w"))
    n = 0
    with wo(out) as w:
        s = json.dumps(head, separators=(", ", ": "))[:-1]
        w.write(s + (", " if head else "") + '"traceEvents": [\n')
        n += len(s) + 20
        c = 0
        first = True
        while n < target:
            for e in evs:
                if c > 0:
                    e = dict(e)
                    if isinstance(e.get("ts"), (int, float)):
                        e["ts"] = e["ts"] + c * span
                    nm = e.get("name")
                    if isinstance(nm, str) and nm.startswith("ProfilerStep#"):
                        try:
                            k = int(nm[13:])
                            e["name"] = "ProfilerStep#%d" % (
                                k + c * (nsteps + 100))
                        except ValueError:
                            pass
                    if isinstance(e.get("id"), int):
                        e["id"] = e["id"] + c * 10000000
                    a = e.get("args")
                    if isinstance(a, dict):
                        a = dict(a)
                        for k in ("correlation", "External id"):
                            if isinstance(a.get(k), int):
                                a[k] = a[k] + c * 10000000
                        e["args"] = a
                s = json.dumps(e, separators=(", ", ": "))
                w.write(("" if first else ",\n") + s)
                first = False
                n += len(s) + 2
            c += 1
        w.write("\n]}\n")
    print("%s: %d copies, %.1f MB of JSON" % (out, c, n / 1e6))


if __name__ == "__main__":
    main()
