#!/usr/bin/env python3
"""Do two hetsim binaries give the same outputs, byte for byte?

    scripts/same-outputs.py REF_BIN NEW_BIN [--random N] [--seed S] [-j J]
                                            [--keep DIR] [--list]
                                            [--collective NAME] [--no-cost]
                                            [--random-only]

For a refactor that must change no behaviour: build the tree before the
change (e.g. `git archive BASE | tar -x -C /tmp/refsrc`, cmake into
/tmp/ref) and the tree after it, then run this with both `hetsim`s.

Scenarios: every shipped one that loads without live files
(scenarios/**/*.yaml minus scenarios/testbed/ and live-mlp.yaml; the
100,000-device one only through predict), the embedded default, and N
random ones from a seeded generator (2-4 types, 4-64 devices, nodes and the
hierarchical collective, buckets, stragglers, compute scales, extra
compute, t_dl/t_bwd/t_opt, comm_ns_per_byte, t_hop_wait with a CPU quota,
batch points, eager/rendezvous, every overlap mode, streams).
--collective NAME gives every random one nodes and that collective (the
tree is otherwise only in the shipped scenarios and under auto); --no-cost
leaves out comm_ns_per_byte and t_hop_wait (the same draws otherwise);
--random-only skips the shipped scenarios.

Commands per scenario: predict (text, --json, --per-device), simulate
(text, --json --per-device, --engine events, --stochastic, --chrome FILE,
--h5 FILE read through h5dump), validate (text, --json), sweep (--json,
--csv), advise ring, batch and mix (--json).  Both binaries get the same
arguments and the same scenario path and write files under the same
relative names, so nothing needs normalising but what truly varies from
run to run: advise's "search_cpu_s" (CPU time).  The exit status, stdout,
stderr and every written file are compared.  Exit status 0 when all are
byte-identical; 1 with the first differences shown (and kept under --keep).
"""
import argparse
import concurrent.futures as cf
import difflib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What varies between two runs of the same binary, and nothing else.
NORMALISE = [
    (re.compile(rb'"search_cpu_s": *[-0-9.eE+]+'), b'"search_cpu_s": X'),
]


def shipped():
    out = []
    for d, _, files in os.walk(os.path.join(ROOT, "scenarios")):
        rel = os.path.relpath(d, ROOT)
        if rel.startswith(os.path.join("scenarios", "testbed")):
            continue
        for f in sorted(files):
            if f.endswith(".yaml") and f != "live-mlp.yaml":
                out.append(os.path.join(d, f))
    return sorted(out)


# ---- the random scenarios ------------------------------------------------

def dur(rng, lo_us, hi_us):
    """A duration with a unit, sometimes with a fraction of a ns."""
    v = rng.uniform(lo_us, hi_us)
    return rng.choice(["%.3fus" % v, "%.6fms" % (v / 1000.0), "%dns" % int(v * 1000)])


def gen(seed, collective=None, no_cost=False):
    """Scenario `seed`; collective: every one with nodes and this
    collective; no_cost: no comm_ns_per_byte nor t_hop_wait (the same
    draws otherwise)."""
    rng = random.Random(seed)
    ntypes = rng.randint(2, 4)
    types = ["t%d" % i for i in range(ntypes)]
    use_nodes = rng.random() < 0.3 or collective is not None
    payload_mb = rng.choice([1, 4, 25, 100, 333])
    nbuckets = rng.choice([0, 0, 1, 3, 5])
    bucket_sizes = []
    if nbuckets:
        total = payload_mb * 1000000
        cuts = sorted(rng.sample(range(1, total), nbuckets - 1)) if nbuckets > 1 else []
        prev = 0
        for c in cuts + [total]:
            bucket_sizes.append(c - prev)
            prev = c
    y = ["name: rand-%d" % seed,
         "job:",
         "  model: random",
         "  dataset: {samples: %d}" % rng.randint(1000, 2000000),
         "  epochs: %d" % rng.randint(1, 5),
         "device_types:"]
    counts = {}
    total_dev = rng.randint(4, 64)
    for i, t in enumerate(types):
        counts[t] = max(1, total_dev // ntypes + (rng.randint(-1, 1) if i else 0))
    for t in types:
        y.append("  - name: %s" % t)
        if not use_nodes:
            y.append("    count: %d" % counts[t])
        batch = rng.choice([16, 32, 64, 128])
        y.append("    batch: %d" % batch)
        if rng.random() < 0.3:
            y.append("    backend: gloo")
        y.append("    profile:")
        y.append("      subsystem_size: %d" % rng.choice([2, 2, 4]))
        y.append("      t_dl: %s" % (rng.choice(["unknown", dur(rng, 100, 80000)])))
        fwd = rng.uniform(1000, 90000)
        if rng.random() < 0.5:
            y.append("      t_fwd: {mean: %.3fus, sd: %.3fus}" % (fwd, fwd * rng.uniform(0, 0.1)))
        else:
            y.append("      t_fwd: %.3fus" % fwd)
        b1 = fwd * rng.uniform(0.001, 0.1)
        y.append("      t_b1: %.3fus" % b1)
        if rng.random() < 0.7:
            # sometimes shorter than t_b1: the rest of the backward is then 0
            y.append("      t_bwd: %.3fus" % (fwd * rng.uniform(0.05, 2.5)))
        if rng.random() < 0.6:
            y.append("      t_opt: %s" % dur(rng, 10, 9000))
        y.append("      allreduce_bytes: %dMB" % payload_mb)
        if bucket_sizes:
            y.append("      buckets:")
            ready = 0.0
            for b in bucket_sizes:
                ready += rng.uniform(0, fwd / nbuckets)
                y.append("        - {bytes: %dB, ready: %.3fus}" % (b, ready))
        if rng.random() < 0.25:
            c = rng.uniform(0, 2)
            if not no_cost:
                y.append("      comm_ns_per_byte: %.4f" % c)
        if rng.random() < 0.25:
            w = dur(rng, 1, 3000)
            if not no_cost:
                y.append("      t_hop_wait: %s" % w)
            if rng.random() < 0.5:
                y.append("      cpu_quota_cores: %.2f" % rng.uniform(0.5, 8))
                y.append("      t_cpu_period: 100ms")
        if rng.random() < 0.3:
            y.append("      batch_points:")
            for bb in sorted(set([batch // 2, batch * 2])):
                y.append("        - {batch: %d, t_fwd: %.3fus, t_b1: %.3fus, t_bwd: %.3fus}"
                         % (bb, fwd * bb / batch, b1 * bb / batch, fwd * 1.5 * bb / batch))
    names = []
    if use_nodes:
        equal = rng.random() < 0.6
        per = rng.choice([2, 4, 8])
        y.append("nodes:")
        y.append("  kinds:")
        for i, t in enumerate(types):
            dev = per if equal else rng.choice([1, 2, 4, 8])
            cnt = max(1, counts[t] // dev)
            nics = rng.choice([0, 1, 2, 4])
            line = "    - {name: k%d, type: %s, devices: %d, count: %d" % (i, t, dev, cnt)
            if dev > 1:
                line += ", intra_bandwidth: %dGB/s" % rng.choice([2, 16, 300])
                if rng.random() < 0.5:
                    line += ", intra_latency: %dus" % rng.randint(0, 5)
            if nics:
                line += ", nics: %d, nic_bandwidth: %.1fGB/s" % (nics, rng.choice([1.25, 12.5, 25]))
            y.append(line + "}")
            for n in range(cnt):
                for j in range(dev):
                    names.append("k%d-%d-%d" % (i, n, j))
        y.append("  inter_bandwidth: %dGB/s" % rng.choice([1, 10, 25, 100]))
        if rng.random() < 0.5:
            y.append("  inter_latency: %dus" % rng.randint(1, 30))
        if ntypes >= 2 and rng.random() < 0.5:
            y.append("  kind_links:")
            y.append("    - [k0, k1, %dGB/s, %dus]" % (rng.choice([2, 10]), rng.randint(0, 20)))
        if collective is not None:
            y.append("collective: %s" % collective)
        elif equal and rng.random() < 0.7:
            y.append("collective: hierarchical")
        elif rng.random() < 0.3:
            y.append("collective: ring")
    else:
        explicit = rng.random() < 0.5
        for t in types:
            for k in range(counts[t]):
                names.append("%s-%d" % (t, k))
        if explicit:
            y.append("devices:")
            for n in names:
                t = n.split("-")[0]
                line = "  - {name: %s, type: %s" % (n, t)
                if rng.random() < 0.2:
                    line += ", compute_scale: %.4f" % rng.uniform(0.7, 2.0)
                if rng.random() < 0.15:
                    line += ", extra_compute: %s" % dur(rng, 1, 5000)
                y.append(line + "}")
        ring = rng.choice(["listing", "grouped", "interleave", "list", None])
        if ring == "list":
            perm = names[:]
            rng.shuffle(perm)
            y.append("ring: [%s]" % ", ".join(perm))
        elif ring:
            y.append("ring: %s" % ring)
        y.append("network:")
        y.append("  default_bandwidth: %s" % rng.choice(["1Gbps", "10Gbps", "25Gbps", "3.3GB/s", "100Gbps"]))
        if rng.random() < 0.7:
            y.append("  latency: %s" % dur(rng, 0, 80))
        if rng.random() < 0.5:
            y.append("  type_links:")
            y.append("    - [t0, t1, %s]" % rng.choice(["5Gbps", "40Gbps", "800MB/s"]))
            if rng.random() < 0.5:
                y.append("    - [t1, t1, %s, %s]" % (rng.choice(["2Gbps", "100Gbps"]), dur(rng, 0, 50)))
        if rng.random() < 0.3:
            a, b = rng.sample(names, 2)
            y.append("  links:")
            y.append("    - [%s, %s, %s]" % (a, b, rng.choice(["700Mbps", "3Gbps"])))
    y.append("simulate:")
    y.append("  steps: %d" % rng.randint(2, 8))
    y.append("  seed: %d" % rng.randint(0, 1 << 40))
    y.append("  overlap: %s" % rng.choice(["patent", "patent", "buckets", "none", "last_bucket"]))
    y.append("  send: %s" % rng.choice(["rendezvous", "eager"]))
    if rng.random() < 0.2:
        y.append("  hop_wait: %s" % rng.choice(["ring", "probe"]))
    if rng.random() < 0.2:
        y.append("  streams: %d" % rng.randint(1, 3))
    if rng.random() < 0.4:
        y.append("  stragglers:")
        for _ in range(rng.randint(1, 3)):
            first = rng.randint(0, 4)
            steps = str(first) if rng.random() < 0.5 else "[%d, %d]" % (first, first + rng.randint(0, 3))
            y.append("    - {device: %s, steps: %s, factor: %.3f, extra: %s}"
                     % (rng.choice(names), steps, rng.uniform(1, 3), dur(rng, 0, 4000)))
    return "\n".join(y) + "\n", types


# ---- the commands --------------------------------------------------------

def commands(types, big=False):
    """(label, argv after the binary with SCEN for the scenario, files written)."""
    cmds = [
        ("predict", ["predict", "SCEN"], []),
        ("predict-json", ["predict", "--json", "SCEN"], []),
        ("predict-per-device", ["predict", "--per-device", "SCEN"], []),
    ]
    if big:
        return cmds
    price = []
    for i, t in enumerate(types):
        price += ["--price", "%s=%.1f" % (t, 1.0 + i * 0.7)]
    cmds += [
        ("simulate", ["simulate", "SCEN"], []),
        ("simulate-json", ["simulate", "--json", "--per-device", "SCEN"], []),
        ("simulate-events", ["simulate", "--engine", "events", "--json", "--per-device", "SCEN"], []),
        ("simulate-stochastic", ["simulate", "--stochastic", "--json", "SCEN"], []),
        ("simulate-chrome", ["simulate", "--steps", "3", "--chrome", "out.json", "SCEN"], ["out.json"]),
        ("simulate-h5", ["simulate", "--steps", "3", "--h5", "out.h5", "SCEN"], ["out.h5"]),
        ("validate", ["validate", "SCEN"], []),
        ("validate-json", ["validate", "--json", "--formula", "source", "SCEN"], []),
        ("sweep-json", ["sweep", "--json", "--no-progress", "--vary", "network.latency=0us,7us",
                        "--vary", "simulate.overlap=patent,none", "SCEN"], []),
        ("sweep-csv", ["sweep", "--csv", "--no-progress", "--vary", "simulate.send=rendezvous,eager",
                       "--replay", "--steps", "3", "SCEN"], []),
        ("advise-ring", ["advise", "ring", "--json", "--quiet", "SCEN"], []),
        ("advise-batch", ["advise", "batch", "--json", "--quiet", "SCEN"], []),
        ("advise-mix", ["advise", "mix", "--json", "--quiet"] + price + ["--budget", "1000", "SCEN"], []),
    ]
    return cmds


def run_one(binary, workdir, argv, scen, files):
    os.makedirs(workdir, exist_ok=True)
    for f in files:
        p = os.path.join(workdir, f)
        if os.path.exists(p):
            os.unlink(p)
    args = [binary] + [scen if a == "SCEN" else a for a in argv if not (a == "SCEN" and scen is None)]
    try:
        p = subprocess.run(args, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=600)
        res = [b"rc=%d\n" % p.returncode, b"--stdout--\n", p.stdout, b"--stderr--\n", p.stderr]
    except subprocess.TimeoutExpired:
        res = [b"TIMEOUT\n"]
    for f in files:
        path = os.path.join(workdir, f)
        res.append(b"--file %s--\n" % f.encode())
        if not os.path.exists(path):
            res.append(b"(absent)\n")
        elif f.endswith(".h5"):
            d = subprocess.run(["h5dump", f], cwd=workdir, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            res.append(d.stdout)
            with open(path, "rb") as fh:   # h5dump shows values; the bytes too
                res.append(b"--bytes %d--\n" % len(fh.read()))
        else:
            with open(path, "rb") as fh:
                res.append(fh.read())
    out = b"".join(res)
    for rx, rep in NORMALISE:
        out = rx.sub(rep, out)
    return out


def job(task):
    ref, new, tmp, label, scen, argv, files = task
    a = run_one(ref, os.path.join(tmp, "ref"), argv, scen, files)
    b = run_one(new, os.path.join(tmp, "new"), argv, scen, files)
    return label, a, b


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ref")
    ap.add_argument("new")
    ap.add_argument("--random", type=int, default=300, help="random scenarios (default 300)")
    ap.add_argument("--seed", type=int, default=31, help="first generator seed (default 31)")
    ap.add_argument("-j", type=int, default=2, help="parallel jobs (default 2)")
    ap.add_argument("--keep", help="write differing outputs under this directory")
    ap.add_argument("--list", action="store_true", help="print each comparison")
    ap.add_argument("--collective", help="every random scenario with nodes and this "
                    "collective (ring, hierarchical, tree, auto)")
    ap.add_argument("--no-cost", action="store_true", help="random scenarios without "
                    "comm_ns_per_byte and t_hop_wait")
    ap.add_argument("--random-only", action="store_true", help="skip the shipped "
                    "scenarios and the default")
    o = ap.parse_args()
    ref, new = os.path.abspath(o.ref), os.path.abspath(o.new)
    tmp = tempfile.mkdtemp(prefix="same-outputs.")
    tasks = []
    scen_dir = os.path.join(tmp, "scenarios")
    os.makedirs(scen_dir)
    n_scen = 0
    for path in ([] if o.random_only else [None] + shipped()):
        big = path is not None and "large" in path
        label = os.path.relpath(path, ROOT) if path else "<default>"
        types = None
        # the type names for advise mix's prices: from the reference's predict
        p = subprocess.run([ref, "predict", "--json", "--closed-only"] + ([path] if path else []),
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        types = re.findall(rb'\n {12}"name": "([^"]+)",\n {12}"count"', p.stdout)
        types = [t.decode() for t in types]
        n_scen += 1
        for c, argv, files in commands(types, big):
            wd = os.path.join(tmp, "w%d" % len(tasks))
            tasks.append((ref, new, wd, "%s %s" % (label, c), path, argv, files))
    for k in range(o.random):
        text, types = gen(o.seed + k, o.collective, o.no_cost)
        path = os.path.join(scen_dir, "rand-%d.yaml" % (o.seed + k))
        with open(path, "w") as f:
            f.write(text)
        n_scen += 1
        for c, argv, files in commands(types):
            wd = os.path.join(tmp, "w%d" % len(tasks))
            tasks.append((ref, new, wd, "rand-%d %s" % (o.seed + k, c), path, argv, files))
    diffs = 0
    rcs = {}
    with cf.ThreadPoolExecutor(max_workers=o.j) as ex:
        for label, a, b in ex.map(job, tasks):
            rc = a.split(b"\n", 1)[0].decode()
            rcs[rc] = rcs.get(rc, 0) + 1
            same = a == b
            if o.list:
                print("%s %s (%s)" % ("same" if same else "DIFF", label, rc))
            if not same:
                diffs += 1
                if diffs <= 5:
                    print("DIFF %s" % label)
                    for line in list(difflib.unified_diff(
                            a.decode(errors="replace").splitlines(),
                            b.decode(errors="replace").splitlines(),
                            "ref", "new", lineterm="", n=1))[:40]:
                        print("   " + line)
                if o.keep:
                    os.makedirs(o.keep, exist_ok=True)
                    base = os.path.join(o.keep, re.sub(r"[^A-Za-z0-9._-]", "_", label))
                    open(base + ".ref", "wb").write(a)
                    open(base + ".new", "wb").write(b)
    shutil.rmtree(tmp, ignore_errors=True)
    print("same-outputs: %d scenarios, %d comparisons (%s), %d differ"
          % (n_scen, len(tasks), ", ".join("%s: %d" % kv for kv in sorted(rcs.items())), diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
