#!/usr/bin/python3
"""How much CPU does gloo's ring all-reduce take, and how fast is it under a
CPU quota?  A diagnostic for the accuracy benchmark (bench/accuracy).

  commcost.py [--bytes B] [--ranks N] [--rate RATE] [--quotas Q,Q,...]

For each quota q (all ranks under the same quota), N ranks in the testbed
(links shaped to RATE, default unshaped) all-reduce a float32 tensor of B
bytes (default 5,335,080: the MLP's gradients) 30 times after 5 warm-ups;
prints the mean time per all-reduce, the CPU time each rank spent per
all-reduce (cpuacct: user + system, gloo's threads included), and what a
pure network model predicts: 2(N-1)/N * B / rate.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testbed as T  # noqa: E402

WORKER = r"""
import os, sys, time, json, datetime, torch, torch.distributed as dist
n = int(sys.argv[1]) // 4
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=120))
x = torch.ones(n)
for _ in range(5):
    dist.all_reduce(x)
dist.barrier()
c0 = time.process_time_ns(); t0 = time.perf_counter_ns()
K = 30
for _ in range(K):
    dist.all_reduce(x)
t1 = time.perf_counter_ns(); c1 = time.process_time_ns()
print(json.dumps({"rank": dist.get_rank(), "t_ns": (t1 - t0) / K,
                  "cpu_ns": (c1 - c0) / K}))
dist.barrier()
"""


def measure(quota, n, nbytes, rate, tag=None):
    """One measurement: n ranks under quota (cores, None = unlimited) on
    links shaped to rate (bit/s, None = unshaped) all-reduce nbytes.
    Returns per rank {"rank", "t_ns", "cpu_ns"} (per all-reduce)."""
    hosts = [T.Host("r%d" % i, rate, quota) for i in range(n)]
    with T.Testbed(hosts, tag=tag) as tb:
        procs = []
        logdir = tempfile.mkdtemp(prefix="hetsim-commcost-")
        for i, h in enumerate(hosts):
            env = {"RANK": str(i), "WORLD_SIZE": str(n),
                   "MASTER_ADDR": hosts[0].addr, "MASTER_PORT": "29555",
                   "GLOO_SOCKET_IFNAME": "eth0"}
            env.update(T.THREAD_ENV)
            procs.append(T.Proc(h.name, tb.argv(h.name, [T.PYTHON, "-c",
                                                         WORKER,
                                                         str(nbytes)]),
                                env, logdir))
        try:
            T.run_all(procs, 300)
            res = []
            for p in procs:
                with open(p.out_path) as f:
                    res.append(json.loads(f.read().strip().splitlines()[-1]))
        finally:
            shutil.rmtree(logdir, ignore_errors=True)
    return res


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--bytes", type=int, default=5335080)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--rate", default="none")
    ap.add_argument("--quotas", default="0,0.5,0.25")
    a = ap.parse_args(argv)
    rate = T.parse_rate(a.rate)
    n = a.ranks
    wire = 2 * (n - 1) / n * a.bytes
    print("all-reduce of %d B over %d ranks (each sends %.0f B), links %s"
          % (a.bytes, n, wire, a.rate))
    for q in [float(x) for x in a.quotas.split(",")]:
        r = measure(q or None, n, a.bytes, rate)
        t = max(x["t_ns"] for x in r)
        cpu = sum(x["cpu_ns"] for x in r) / len(r)
        net = wire / (rate / 8) * 1e9 if rate else None
        print("quota %-5s: %.1f ms per all-reduce, CPU %.1f ms per rank "
              "(%.2f ns/B sent), network-only model %s"
              % (q or "none", t / 1e6, cpu / 1e6, cpu / wire,
                 "%.1f ms" % (net / 1e6) if net else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
