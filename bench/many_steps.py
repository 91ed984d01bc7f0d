#!/usr/bin/env python3
"""many_steps.py -- a small Kineto CPU trace with very many tiny steps.

usage: many_steps.py OUT.json[.gz] STEPS

Writes a Kineto-form ({"traceEvents": ...}) CPU trace of one rank of a
two-rank job with STEPS ProfilerStep#N windows of 1 ms each, every one
holding a DataLoader call, two forward operators, two backward operators,
two record_param_comms all-reduce calls (two buckets) and an optimizer
step: about 1.6 KB of JSON a step, so the number of steps is large while
the file stays small.  The durations vary with the step (a fixed
pattern, no randomness: the same file for the same arguments), so the
median and trimmed mean differ from the mean.  OUT is gzipped (level 6,
mtime 0) when it ends in ".gz".  For measuring what ingestion keeps per
step (docs/benchmarks.md); not a test fixture.
"""
import gzip
import sys


def ev(name, cat, ts, dur, tid=1, args=None):
    a = "" if args is None else ', "args": ' + args
    return ('{"ph": "X", "cat": "%s", "name": "%s", "pid": 1, "tid": %d, '
            '"ts": %d.%03d, "dur": %d.%03d%s}'
            % (cat, name, tid, ts // 1000, ts % 1000, dur // 1000,
               dur % 1000, a))


def step_events(k):
    s = 1000000 + k * 1000000          # ns
    j = (k * 7919) % 97                # a fixed pattern of variation
    out = [ev("ProfilerStep#%d" % k, "user_annotation", s, 990000)]
    t = s + 1000
    out.append(ev("enumerate(DataLoader)#_SingleProcessDataLoaderIter"
                  ".__next__", "user_annotation", t, 20000 + 100 * j))
    t += 30000
    for nm, d in (("aten::linear", 150000 + 300 * j),
                  ("aten::relu", 50000 + 11 * j)):
        out.append(ev(nm, "cpu_op", t, d))
        t += d + 1000
    for i, d in enumerate((200000 + 500 * j, 150000)):
        out.append(ev("autograd::engine::evaluate_function: "
                      "AddmmBackward0", "cpu_op", t, d, tid=2))
        out.append(ev("record_param_comms", "cpu_op", t + d + 500, 2000,
                      tid=2, args='{"Collective name": "allreduce", '
                      '"dtype": "Float", "In msg nelems": %d}'
                      % (1000000 + 1000 * i)))
        t += d + 5000
    out.append(ev("Optimizer.step#SGD.step", "user_annotation", t,
                  60000 + 40 * j))
    return out


def main():
    path, steps = sys.argv[1], int(sys.argv[2])
    wo = (lambda p: gzip.GzipFile(p, "wb", compresslevel=6, mtime=0)) \
        if path.endswith(".gz") else (lambda p: open(p, "wb"))
    with wo(path) as w:
        w.write(b'{"schemaVersion": 1, "distributedInfo": {"backend": '
                b'"gloo", "rank": 0, "world_size": 2}, "traceEvents": [\n')
        for k in range(steps):
            sep = b"" if k == 0 else b",\n"
            w.write(sep + ",\n".join(step_events(k)).encode())
        w.write(b"\n]}\n")


if __name__ == "__main__":
    main()
