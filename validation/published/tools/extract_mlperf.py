#!/usr/bin/env python3
"""Read the throughput figures of selected MLPerf Training submissions (multi-node GPU systems) into CSV.

mlcommons/training_results_vX.Y hold, per submitter, `systems/<system>.json` (nodes, GPUs per
node, GPU model, host networking, software) and `results/<system>/<benchmark>/result_<n>.txt`
(the full log of one timed run, MLPerf's `:::MLLOG {...}` lines among the framework's output).
For the clusters in CLUSTERS (a submitter's machines of one server model, every node count
and round) this script copies, unchanged (the text as logged):

* systems: one row per system JSON (nodes, GPUs per node, GPU, networking, frameworks, NCCL).
* throughput: one row per logged throughput figure of a run:
  - `mllog_throughput`: the MLLOG `throughput` event's value (one per epoch or block; MLPerf
    reference code logs samples per second over all GPUs), with the epoch or step the log gives;
  - `mllog_epoch_ms`: for runs that log no `throughput` event (round v0.7), each epoch's
    `epoch_stop` minus `epoch_start` time in ms (`time_ms` = the epoch_start's);
  - `bert_summary`: `training_sequences_per_second` of the BERT scripts' final summary line.
  Each row repeats its run's `global_batch_size` and `gradient_accumulation_steps` (MLLOG
  keys, where logged) and the first `NCCL INFO NET/...: Using ...` line (the transport).

Usage (GITDIRs: fetched snapshots or clones of mlcommons/training_results_v0.7 ... v3.1):

    extract_mlperf.py --repo v0.7=GITDIR --repo v1.0=GITDIR ... --systems > ../mlperf-training/mlperf-systems.csv
    extract_mlperf.py --repo v0.7=GITDIR ... > ../mlperf-training/mlperf-throughput.csv
    extract_mlperf.py --repo ... --counts      # runs and rows per cluster, benchmark, nodes

Nothing is modelled or fitted here; --counts prints counts only.
"""
import argparse
import csv
import json
import re
import subprocess
import sys
from split import cluster_set

# Commits the committed CSVs were read from (HEAD of each snapshot; v0.7-v2.1 of 2023-05-18).
REFS = {
    "v0.7": "0a8a85a209c8e45b661596c382cc20f4e32fd2fe",
    "v1.0": "50619b5df63f1d646715a82c1fb8c35f271e25fa",
    "v1.1": "ebe92f81f7a69255a3b0a907595d8be623d75ec6",
    "v2.0": "8437fbb78349aa3c3054aeccb1d47d2a315a80e7",
    "v2.1": "158189d4cbfbee366c10da1f0f086c85d8f15b5f",
    "v3.0": "63e326c400f5d8bb8c6070a9ab08332d4931152e",
    "v3.1": "d06288b2bd675a9d88e0e6181f5bb5626b71ec19",   # 2025-01-14
}
# cluster -> (submitter directory regex, system-name regex). One cluster = one submitter's
# machines of one server model (every round, node count and GPU memory size): which physical
# machines ran a submission is not stated, so nothing finer can keep a machine out of both sets.
CLUSTERS = {
    "ML-dell-c4140": (r"^Dell", r"C4140"),
    "ML-dell-dss8440": (r"^Dell", r"DSS8440"),
    "ML-dell-xe8545": (r"^Dell", r"XE8545"),
    "ML-dell-r750xa": (r"^Dell", r"R750xa"),
    "ML-azure-ndv4": (r"^Azure", r"(?i)nd96amsr_a100_v4"),   # Azure and Azure-HazyResearch: one VM type
    "ML-h3c-r5500g5": (r"^H3C$", r"R5500G5"),
    # added after a first pass over v0.7-v2.0 (v2.1-v3.1 looked at; names fixed before the draw)
    "ML-hpe-xl675d": (r"^HPE$", r"XL675d"),
    "ML-dell-xe9680": (r"^Dell", r"XE9680"),
    "ML-dell-xe8640": (r"^Dell", r"XE8640"),
    "ML-clemson-r750": (r"^Clemson$", r"R750-2xA100"),
}
# Data-parallel benchmarks only (not dlrm: model-parallel embeddings; not minigo: self-play).
# Of these, maskrcnn, rnnt and unet3d log a throughput per few iterations (hundreds to thousands
# of rows per run, about 150,000 rows for the clusters below): not read, to keep the CSV small.
BENCHMARKS = {"resnet", "ssd", "bert"}

SYS_FIELDS = ["cluster", "set", "round", "commit", "submitter", "system", "number_of_nodes",
              "accelerators_per_node", "accelerator_model_name", "accelerator_memory_capacity",
              "accelerator_host_interconnect", "accelerator_interconnect", "host_networking",
              "host_networking_topology", "framework", "nccl_version"]
FIELDS = ["cluster", "set", "round", "submitter", "system", "benchmark", "logged_benchmark", "run", "nodes",
          "gpus_per_node", "global_batch_size", "gradient_accumulation_steps", "nccl_net", "kind",
          "epoch", "step", "time_ms", "value"]

MLLOG = re.compile(r":::MLLOG (\{.*\})\s*$")
NCCLNET = re.compile(r"NCCL INFO (NET/\w+ ?: ?Using .*)$")
BERT = re.compile(r"'training_sequences_per_second': ([0-9.e+-]+)")


def git(gitdir, *args):
    r = subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, text=True,
                       errors="replace")
    if r.returncode != 0:
        sys.exit(f"extract_mlperf.py: git {' '.join(args)} in {gitdir}: {r.stderr.strip()}")
    return r.stdout


def systems(rnd, gitdir):
    """(cluster, submitter, system name, parsed JSON) of every system JSON of a listed cluster."""
    ref = REFS[rnd]
    for path in git(gitdir, "ls-tree", "-r", "--name-only", ref).splitlines():
        parts = path.split("/")
        if len(parts) != 3 or parts[1] != "systems" or not parts[2].endswith(".json"):
            continue
        sub, name = parts[0], parts[2][:-5]
        for c, (rs, rn) in CLUSTERS.items():
            if re.search(rs, sub) and re.search(rn, name):
                text = git(gitdir, "show", f"{ref}:{path}")
                try:
                    d = json.loads(text)
                except ValueError:
                    d = json.loads(re.sub(r",\s*([}\]])", r"\1", text))
                yield c, sub, name, d


def nodes_of(d):
    """number_of_nodes (round v0.7 spells it "number of nodes")."""
    return str(d.get("number_of_nodes", d.get("number of nodes", ""))).strip()


def sys_row(rnd, c, sub, name, d):
    sw = d.get("other_software_stack", "")
    nccl = ""
    if isinstance(sw, list):
        for e in sw:
            if isinstance(e, dict) and "nccl_version" in e:
                nccl = e["nccl_version"]
    elif isinstance(sw, dict):
        nccl = sw.get("nccl_version", "")
    else:
        m = re.search(r"NCCL[ _-]?([0-9.]+)", str(sw), re.I)
        nccl = m.group(1) if m else ""
    row = {"cluster": c, "set": cluster_set(c)[1], "round": rnd, "commit": REFS[rnd],
           "submitter": sub, "system": name, "nccl_version": nccl}
    for k in SYS_FIELDS:
        if k not in row:
            row[k] = str(d.get(k, "")).strip()
    row["number_of_nodes"] = nodes_of(d)
    return row


def run_rows(text, base):
    """The throughput rows of one result file."""
    gbs = gas = net = bench = ""
    events, epochs, bert = [], [], []
    epoch, start = "", {}
    for line in text.splitlines():
        m = MLLOG.search(line)
        if m:
            try:
                e = json.loads(m.group(1))
            except ValueError:
                continue
            k, md = e.get("key"), e.get("metadata") or {}
            if k == "submission_benchmark":
                bench = str(e.get("value"))
            elif k == "global_batch_size":
                gbs = str(e.get("value"))
            elif k == "gradient_accumulation_steps":
                gas = str(e.get("value"))
            elif k == "epoch_start":
                epoch = str(md.get("epoch_num", ""))
                start.setdefault(epoch, e.get("time_ms"))
            elif k == "epoch_stop":
                ep = str(md.get("epoch_num", epoch))
                if ep in start and isinstance(e.get("time_ms"), int) and isinstance(start[ep], int):
                    t0 = start.pop(ep)   # time_ms = epoch_start's, value = epoch_stop - epoch_start
                    epochs.append(("mllog_epoch_ms", ep, "", str(t0), str(e["time_ms"] - t0)))
            elif k == "throughput":
                step = md.get("step", "")
                events.append(("mllog_throughput", str(md.get("epoch_num", epoch)),
                               json.dumps(step) if isinstance(step, list) else str(step),
                               str(e.get("time_ms", "")), str(e.get("value"))))
            continue
        m = NCCLNET.search(line)
        if m and not net:
            net = m.group(1).strip()[:100]
            continue
        m = BERT.search(line)
        if m:
            bert.append(("bert_summary", "", "", "", m.group(1)))
    # epoch durations only where no throughput is logged, and not for BERT (one "epoch" = the run)
    out = events if events else ([] if base["benchmark"] == "bert" else epochs)
    for kind, ep, step, t, v in out + bert:
        yield dict(base, logged_benchmark=bench, global_batch_size=gbs, gradient_accumulation_steps=gas, nccl_net=net,
                   kind=kind, epoch=ep, step=step, time_ms=t, value=v)


def throughput(rnd, gitdir, c, sub, name, d):
    ref = REFS[rnd]
    prefix = f"{sub}/results/{name}/"
    for path in git(gitdir, "ls-tree", "-r", "--name-only", ref, "--", prefix).splitlines():
        parts = path[len(prefix):].split("/")
        if len(parts) != 2 or parts[0] not in BENCHMARKS or not re.match(r"result_\d+\.txt$", parts[1]):
            continue
        base = {"cluster": c, "set": cluster_set(c)[1], "round": rnd, "submitter": sub,
                "system": name, "benchmark": parts[0], "run": parts[1][:-4],
                "nodes": nodes_of(d),
                "gpus_per_node": str(d.get("accelerators_per_node", "")).strip()}
        r = subprocess.run(["git", "--git-dir", gitdir, "show", f"{ref}:{path}"],
                           capture_output=True, text=True, errors="replace")
        if r.returncode != 0:   # files of 4 MiB and more are absent from the stored snapshots
            print(f"extract_mlperf.py: not in this copy, skipped: {rnd} {path}", file=sys.stderr)
            continue
        yield from run_rows(r.stdout, base)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", action="append", required=True, metavar="ROUND=GITDIR")
    ap.add_argument("--systems", action="store_true", help="the systems CSV instead")
    ap.add_argument("--counts", action="store_true", help="runs and rows per cluster only")
    a = ap.parse_args()
    rows, srows = [], []
    for spec in a.repo:
        rnd, _, gitdir = spec.partition("=")
        if rnd not in REFS:
            sys.exit(f"extract_mlperf.py: unknown round {rnd!r} (known: {', '.join(REFS)})")
        for c, sub, name, d in systems(rnd, gitdir):
            srows.append(sys_row(rnd, c, sub, name, d))
            if not a.systems:
                rows.extend(throughput(rnd, gitdir, c, sub, name, d))
    if a.counts:
        runs, cnt = {}, {}
        for r in rows:
            k = (r["cluster"], r["set"], r["benchmark"], r["nodes"] + "x" + r["gpus_per_node"])
            runs.setdefault(k, set()).add((r["round"], r["system"], r["run"]))
            cnt[k] = cnt.get(k, 0) + 1
        for k in sorted(cnt):
            print(*k, f"runs={len(runs[k])}", f"rows={cnt[k]}", sep="\t")
        return
    w = csv.DictWriter(sys.stdout, fieldnames=SYS_FIELDS if a.systems else FIELDS,
                       lineterminator="\n")
    w.writeheader()
    w.writerows(srows if a.systems else rows)


if __name__ == "__main__":
    main()
