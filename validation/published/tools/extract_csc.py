#!/usr/bin/env python3
"""Read mvsjober/ml-benchmarks' results.md (CSC's Puhti, Mahti and LUMI clusters) into CSV.

The repository (CSC, Finland: benchmark scripts run on its supercomputers) keeps one table,
`results.md`, of training throughput: benchmark, framework version, cluster, GPUs, date and
images (or samples) per second. Its scripts run 1, 2 and a full node of GPUs on one node and
"two nodes" for the largest count (run-all-benchmarks.sh: Puhti and Mahti 4 GPUs per node,
8 = two nodes; LUMI 8 GPUs (GCDs) per node, 16 = two nodes). This script copies every row
unchanged and adds the cluster name of the split in ../README.md, its set, the nodes and GPUs
per node implied by the scripts, and the model and per-GPU batch of the benchmark's script at
the commit read (the script at a row's date may have differed: not checked).

The repository has no licence file: the output must not be committed (cited only, see
../csc-ml-benchmarks/README.md).

Usage (GITDIR: a clone or fetched snapshot of mvsjober/ml-benchmarks):

    extract_csc.py GITDIR > /tmp/csc-ml-benchmarks.csv     # do not commit
    extract_csc.py GITDIR --counts                         # rows per cluster, benchmark and GPUs
"""
import argparse
import subprocess
import sys
from split import cluster_set, print_counts, write_csv

REF = "d5c4253c418e74811ea38367d165b4af84cd8fb2"   # master, 2026-06-10
# results.md cluster -> (split cluster, GPU, GPUs per node) from run-all-benchmarks.sh / slurm/*.sh
CLUSTERS = {"puhti": ("CSC-puhti", "V100", 4), "mahti": ("CSC-mahti", "A100", 4),
            "lumi": ("CSC-lumi", "MI250X GCD", 8)}
# benchmark (as results.md names it) -> (model, per-GPU batch) in the scripts at REF
MODELS = {
    "DDP, synthetic": ("ResNet-50 (torchvision), fp32", "32"),
    "DDP, synthetic, fp16": ("ResNet-50 (torchvision), fp16 AMP", "32"),
    "DDP, Imagenet data": ("ResNet-50 (torchvision), fp32, ImageNet", "32"),
    "DDP Lightning, synthetic": ("ResNet-50 (torchvision), PyTorch Lightning DDP", "32"),
    "DeepSpeed, synthetic data": ("ResNet-50, DeepSpeed (benchmarks/ds_config_benchmark.json)", "32"),
    "Horovod, synthetic": ("ResNet-50, Horovod", "32"),
    "Horovod, Imagenet data": ("ResNet-50, Horovod, ImageNet", "32"),
    "run_clm, synthetic": ("EleutherAI/gpt-neo-125M (Hugging Face run_clm)", "2"),
}
FIELDS = ["cluster", "set", "line", "benchmark", "framework", "machine", "gpu", "gpus", "nodes",
          "gpus_per_node", "date", "value", "unit", "model", "batch_per_gpu_at_ref"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gitdir")
    ap.add_argument("--counts", action="store_true", help="rows per cluster, benchmark and GPUs only")
    a = ap.parse_args()
    r = subprocess.run(["git", "--git-dir", a.gitdir, "show", f"{REF}:results.md"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"extract_csc.py: cannot read {REF}:results.md: {r.stderr.strip()}")
    lines = r.stdout.splitlines()
    hdr = [c.strip() for c in lines[0].strip().strip("|").split("|")]
    if hdr != ["Benchmark", "Framework", "Cluster", "GPUs", "Date", "Img/sec"]:
        sys.exit(f"extract_csc.py: unexpected header {hdr}")
    rows = []
    for n, line in enumerate(lines[2:], start=3):
        if not line.startswith("|"):
            continue
        bench, fw, mach, gpus, date, val = [c.strip() for c in line.strip().strip("|").split("|")]
        cl, gpu, gpn = CLUSTERS[mach]
        g = int(gpus)
        nodes = 1 if g <= gpn else g // gpn
        model, bs = MODELS.get(bench, ("", ""))
        rows.append({"cluster": cl, "set": cluster_set(cl)[1], "line": n, "benchmark": bench,
                     "framework": fw, "machine": mach, "gpu": gpu, "gpus": gpus, "nodes": nodes,
                     "gpus_per_node": g if nodes == 1 else gpn, "date": date, "value": val,
                     "unit": "samples/s" if bench.startswith("run_clm") else "images/s",
                     "model": model, "batch_per_gpu_at_ref": bs})
    if a.counts:
        print_counts(rows, lambda x: (x["cluster"], x["set"], x["benchmark"],
                                      f'{x["nodes"]}x{x["gpus_per_node"]}'))
        return
    write_csv(rows, FIELDS)


if __name__ == "__main__":
    main()
