#!/usr/bin/env python3
"""Read HKBU-HPML/ddl-benchmarks' result table (one 32-GPU cluster, three networks) into CSV.

The repository (benchmark scripts of Shi, Tang, Chu et al., "Communication-Efficient
Distributed Deep Learning: Survey, Evaluation, and Challenges", arXiv:2005.13247) holds one
table, `results/2020-05-29/README.md`, written by its `plots.py` from the benchmark logs (the
logs are not committed): per model (ResNet-50, BERT-Large, BERT-Base), connection (10GbE with
TCP/IP, 100Gb InfiniBand with RDMA, TCP/IP over the same InfiniBand NICs) and method (Horovod
all-reduce: BSP, WFBP, MG-WFBP, ByteScheduler; BytePS parameter server: BSP, WFBP,
ByteScheduler), the total throughput over all GPUs as "mean +- std" of 5 runs
(`benchmarks.py`: NUM_OF_TRIES = 5, each run's "Total img/sec" or "Total sen/sec" line) at 4, 8,
16 and 32 GPUs, and a one-GPU throughput per model that `plots.py` holds as a constant
(`single_throughputs`, marked "TODO: should be read from log files").

This script copies every figure unchanged (as strings) and adds the cluster name of the split
in ../README.md, its set, the placement implied by the repository's host files
(`configs/cluster{4,8,16,32}`: 4 GPUs per host, 1 to 8 hosts), the per-GPU batch, BERT's
sequence length and precision from the scripts, and the connection's NCCL settings from
`horovod/horovod_mpi_cj.sh`.

The repository has no licence file: the output must not be committed (cited only, see
../ddl-benchmarks/README.md).

Usage (GITDIR: a clone's .git or a fetched snapshot of HKBU-HPML/ddl-benchmarks):

    extract_ddlbench.py GITDIR > /tmp/ddl-benchmarks.csv     # do not commit
    extract_ddlbench.py GITDIR --counts                      # rows per cluster, model, connection and GPUs
"""
import argparse
import re
import subprocess
import sys
from split import cluster_set, print_counts, write_csv

REF = "30de09bc38a599d213f5568acf9efeb79505aa42"   # master, 2020-05-29 ("format the result table")
TABLE = "results/2020-05-29/README.md"
CLUSTER = "DDL-hkbu"
GPUS_PER_NODE = 4
# table DNN -> (model, parameters source, sequence length, unit)
MODELS = {
    "ResNet-50": ("ResNet-50 (torchvision), fp32, synthetic 224x224 images", "", "images/s"),
    "BERT-Large": ("BERT-Large pre-training (BertForPreTraining, 24 layers, hidden 1024), fp32", "64",
                   "sentences/s"),
    "BERT-Base": ("BERT-Base pre-training (BertForPreTraining, 12 layers, hidden 768), fp32", "64",
                  "sentences/s"),
}
# table CONNECTION -> rdma value in the scripts and its NCCL settings (horovod/horovod_mpi_cj.sh)
CONNECTIONS = {
    "10GbE with TCP/IP": ("0", "10 Gb/s Ethernet; NCCL_IB_DISABLE=1, sockets on the Ethernet NICs"),
    "100GbIB with RDMA": ("1", "100 Gb/s InfiniBand; NCCL_IB_DISABLE=0 (NCCL's IB verbs transport)"),
    "100GbE with TCP/IP": ("2", "the same 100 Gb/s InfiniBand NICs used as IP (ib0) with NCCL_IB_DISABLE=1: "
                                "TCP sockets over IPoIB"),
}
# table METHOD -> architecture (all-reduce with Horovod 0.19, or BytePS parameter servers on other hosts)
PS_METHODS = {"BSP-PS", "WFBP-PS", "ByteScheduler-PS"}
FIELDS = ["cluster", "set", "line", "dnn", "model", "batch_per_gpu", "seq_len", "connection", "rdma",
          "network", "method", "architecture", "gpus", "nodes", "gpus_per_node", "throughput_mean",
          "throughput_std", "unit", "one_gpu_as_printed"]
MEANSTD = re.compile(r"^([0-9.]+) \+- ([0-9.]+)$")


def read_table(gitdir):
    """Return the table's lines at REF, or exit with a message."""
    r = subprocess.run(["git", "--git-dir", gitdir, "show", f"{REF}:{TABLE}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"extract_ddlbench.py: cannot read {REF}:{TABLE}: {r.stderr.strip()}")
    return r.stdout.splitlines()


def parse(lines):
    """One output row per table row and GPU count (4, 8, 16, 32)."""
    hdr = [c.strip() for c in lines[2].strip().strip("|").split("|")]
    want = ["DNN", "BS", "CONNECTION", "METHOD", "1 GPU", "4 GPUs", "8 GPUs", "16 GPUs", "32 GPUs"]
    if hdr != want:
        sys.exit(f"extract_ddlbench.py: unexpected header {hdr}")
    counts = [int(h.split()[0]) for h in hdr[5:]]
    rows = []
    for n, line in enumerate(lines, start=1):
        if not line.startswith("| ") or n <= 4:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != len(want):
            sys.exit(f"extract_ddlbench.py: {TABLE}:{n}: {len(cells)} cells")
        dnn, bs, conn, meth, one = cells[:5]
        model, seq, unit = MODELS[dnn]
        rdma, net = CONNECTIONS[conn]
        for g, cell in zip(counts, cells[5:]):
            m = MEANSTD.match(cell)
            if not m:
                sys.exit(f"extract_ddlbench.py: {TABLE}:{n}: cannot read '{cell}'")
            nodes = max(1, g // GPUS_PER_NODE)
            rows.append({"cluster": CLUSTER, "set": cluster_set(CLUSTER)[1], "line": n, "dnn": dnn,
                         "model": model, "batch_per_gpu": bs, "seq_len": seq, "connection": conn,
                         "rdma": rdma, "network": net, "method": meth,
                         "architecture": "BytePS parameter server" if meth in PS_METHODS
                         else "Horovod all-reduce (NCCL)",
                         "gpus": g, "nodes": nodes, "gpus_per_node": g // nodes,
                         "throughput_mean": m.group(1), "throughput_std": m.group(2), "unit": unit,
                         "one_gpu_as_printed": one})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gitdir")
    ap.add_argument("--counts", action="store_true", help="rows per cluster, model, connection and GPUs only")
    a = ap.parse_args()
    rows = parse(read_table(a.gitdir))
    if a.counts:
        print_counts(rows, lambda x: (x["cluster"], x["set"], x["dnn"], x["connection"],
                                      f'{x["nodes"]}x{x["gpus_per_node"]}'))
        return
    write_csv(rows, FIELDS)


if __name__ == "__main__":
    main()
