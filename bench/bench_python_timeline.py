"""A big replay's timeline through Python: scenarios/large/nodes-100k.yaml
cut to NODES nodes of 8 devices (default 1250: 10,000 devices), the
hierarchical collective, 2 steps.  Prints the intervals, their bytes and
the peak resident size before and after, so that one sees the intervals
come back once (the C buffer grown by realloc, viewed by NumPy), not
copied a second time.  Takes 10-75 s and ~4.6 GB at 10,000 devices.

    python3 bench/bench_python_timeline.py [NODES]
(HETSIM_LIBRARY=BUILD/libhetsim.so when the build is not build/)
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import hetsim  # noqa: E402


def peak_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])


nodes = int(sys.argv[1]) if len(sys.argv) > 1 else 1250
s = hetsim.Scenario.load(os.path.join(HERE, "..", "scenarios", "large",
                                      "nodes-100k.yaml"))
s["nodes.dgx.count"] = nodes * 6 // 10
s["nodes.mi.count"] = nodes - nodes * 6 // 10
s["collective"] = "hierarchical"
before = peak_kb()
t0 = time.perf_counter()
run = s.simulate(steps=2, timeline=True, force=True)
dt = time.perf_counter() - t0
iv = run["timeline"].intervals
after = peak_kb()
print("devices %d, intervals %d, %.1f MiB of intervals, replay %.1f s (%s)"
      % (s.n_devices, len(iv), iv.nbytes / 2**20, dt, run["engine"]["path"]))
print("peak RSS before %.1f MiB, after %.1f MiB: grew %.2f x the intervals' "
      "bytes; the array owns no copy: %s"
      % (before / 1024, after / 1024,
         (after - before) * 1024 / max(iv.nbytes, 1),
         not iv.flags["OWNDATA"]))
