#!/usr/bin/env python3
"""Read the AdaptDL-style throughput traces of Pollux (OSDI'21) and Sia (SOSP'23) into one CSV.

Both artifacts store, per workload and per cluster, the files

    placements[-CLUSTER].csv   placement,local_bsz,step_time,sync_time   (<= 4 or 2 nodes, every placement)
    scalability[-CLUSTER].csv  num_nodes,num_replicas,local_bsz,step_time,sync_time  (more nodes)

measured by AdaptDL's TRACE_THROUGHPUT mode (see ../pollux-osdi21/README.md). This script
copies their figures unchanged (the text as stored, no rounding) and adds, per row: the
cluster name used by the split in ../README.md, its set, the trace the row came from
(`pollux`, or Sia's file suffix: `azure`, `dgx`, `dgx-ext`, `rtx`, `quad`; `dgx` and `dgx-ext`
are two profiling passes over the same cluster SIA-dgx), the number of nodes and the GPUs in
all (a placement's digits are the GPUs of each node).

Usage (git directories from the `fetch` tool, or any clone):

    extract_adaptdl.py --pollux GITDIR > pollux-osdi21.csv
    extract_adaptdl.py --sia GITDIR > sia-sosp23.csv        # not committed: no licence
    extract_adaptdl.py --pollux GITDIR --summary             # calibration clusters only

--summary prints, for the calibration clusters only, the sync time by placement at each
workload's largest local batch that every listed placement has; it skips the held-apart
clusters (nothing is modelled or fitted here).
"""
import argparse
import csv
import io
import subprocess
import sys
from split import cluster_set

POLLUX_REF = "c793c7089bd307462686339d29707925c461f9a9"   # petuum/adaptdl, branch osdi21-artifact
SIA_REF = "aaf7a0de7b6cb5eab06ea020467ede5d2fd18e70"      # siasosp23/artifacts, main
WORKLOADS = ["bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"]
# Sia's file suffix -> the cluster (machines that ran together) in the split.
# dgx and dgx-ext are the same two DGX A100 machines, profiled twice (the second with more batch sizes).
SIA_CLUSTERS = {"azure": "SIA-azure", "dgx": "SIA-dgx", "dgx-ext": "SIA-dgx",
                "rtx": "SIA-rtx", "quad": "SIA-quad"}


def git_show(gitdir, ref, path):
    r = subprocess.run(["git", "--git-dir", gitdir, "show", f"{ref}:{path}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return r.stdout


FIELDS = ["cluster", "set", "trace", "workload", "kind", "placement",
          "num_nodes", "num_replicas", "local_bsz", "step_time_s", "sync_time_s"]


def rows_from(text, cluster, trace, workload, path, kind):
    for r in csv.DictReader(io.StringIO(text)):
        if kind == "placement":
            p = r["placement"].strip()
            per = [int(ch) for ch in p]     # one digit per node: its GPUs
            nodes, reps = len(per), sum(per)
        else:
            p = ""   # the trace does not say how the replicas were spread over the nodes
            nodes, reps = int(r["num_nodes"]), int(r["num_replicas"])
        yield {"cluster": cluster, "set": cluster_set(cluster)[1], "trace": trace, "source_file": path,
               "workload": workload, "kind": kind, "placement": p,
               "num_nodes": nodes, "num_replicas": reps,
               "local_bsz": r["local_bsz"].strip(), "step_time_s": r["step_time"].strip(),
               "sync_time_s": r["sync_time"].strip()}


def pollux_rows(gitdir):
    for w in WORKLOADS:
        for kind, name in (("placement", "placements.csv"), ("scalability", "scalability.csv")):
            path = f"simulator/traces/{w}/{name}"
            text = git_show(gitdir, POLLUX_REF, path)
            if text is None:
                sys.exit(f"missing {POLLUX_REF}:{path}")
            yield from rows_from(text, "PX-aws", "pollux", w, path, kind)


def sia_rows(gitdir):
    for suffix, cluster in SIA_CLUSTERS.items():
        for w in WORKLOADS:
            for kind, stem in (("placement", "placements"), ("scalability", "scalability")):
                path = f"sia-simulator/traces/{w}/{stem}-{suffix}.csv"
                text = git_show(gitdir, SIA_REF, path)
                if text is None:
                    continue
                yield from rows_from(text, cluster, suffix, w, path, kind)


def summary(rows):
    """Sync time by placement, calibration clusters only, one local batch per workload."""
    show = ["1", "2", "4", "8", "11", "22", "44", "88", "1111", "2222", "4444", "1144", "1124"]
    by, skipped = {}, set()
    for r in rows:
        if r["set"] != "calibration":
            skipped.add(r["cluster"])   # held apart: not read, not summarised
            continue
        if r["kind"] != "placement":
            continue
        by.setdefault((r["cluster"], r["source_file"], r["workload"]), []).append(r)
    for (c, src, w), rs in sorted(by.items()):
        have = {}
        for r in rs:
            have.setdefault(r["placement"], {})[int(float(r["local_bsz"]))] = r
        places = [p for p in show if p in have]
        common = set.intersection(*(set(have[p]) for p in places))
        if not common:
            continue
        b = max(common)
        cells = ", ".join(f"{p}: {float(have[p][b]['sync_time_s']):.3f}/{float(have[p][b]['step_time_s']):.3f}"
                          for p in places)
        print(f"{c} {w} ({src.split('/')[-1]}) local_bsz {b}: sync/step s by placement: {cells}")
    for c in sorted(skipped):
        print(f"{c}: held apart, not summarised")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pollux", help="git dir of petuum/adaptdl (has branch osdi21-artifact)")
    ap.add_argument("--sia", help="git dir of siasosp23/artifacts")
    ap.add_argument("--summary", action="store_true")
    a = ap.parse_args()
    rows = []
    if a.pollux:
        rows += list(pollux_rows(a.pollux))
    if a.sia:
        rows += list(sia_rows(a.sia))
    if a.summary:
        summary(rows)
        return
    srcs = []
    if a.pollux:
        srcs.append(f"petuum/adaptdl {POLLUX_REF} (branch osdi21-artifact) simulator/traces/<workload>/{{placements,scalability}}.csv"
                    " -> cluster PX-aws; Apache-2.0 (LICENSE beside this file)")
    if a.sia:
        srcs.append(f"siasosp23/artifacts {SIA_REF} sia-simulator/traces/<workload>/{{placements,scalability}}-<cluster>.csv"
                    " -> SIA-azure, SIA-dgx (files -dgx and -dgx-ext), SIA-rtx, SIA-quad; no licence: do not commit")
    print("# Figures copied unchanged (text as stored) by tools/extract_adaptdl.py from:")
    for s_ in srcs:
        print("#   " + s_)
    print("# kind=placement: placement = GPUs per node, one digit a node; kind=scalability: only nodes and GPUs in all are known.")
    print("# step_time_s: mean wall time of an optimizer step (s); sync_time_s: mean time from the last local gradient to the end of"
          " the gradient all-reduce (s); see the README beside this file. set: the split of ../README.md.")
    out = csv.DictWriter(sys.stdout, FIELDS, lineterminator="\n", extrasaction="ignore")
    out.writeheader()
    for r in rows:
        out.writerow(r)


if __name__ == "__main__":
    main()
