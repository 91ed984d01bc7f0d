#!/usr/bin/env python3
"""Read FLYING37520/LBB's training records (one machine, four different GPUs) into CSV.

LBB ("LBB: Load Balanced Batching for Efficient Distributed Learning on Heterogeneous GPU
Cluster", paper PDF in the repository) trains CIFAR and Caltech models with data parallelism on
one machine whose GPUs differ (the paper's Table 1: Tesla M40, two GTX 1070, GTX 750). Its
`LBB.py` runs one process per GPU (torch.distributed, gloo backend) and, each iteration,
times on every rank: `cp` = forward + backward of that rank's local batch (between
`torch.cuda.synchronize` and after a `dist.barrier()`), then, after another barrier, `cm` = one
blocking `all_reduce` per parameter tensor (gradients, or parameters for local SGD) plus
`optimizer.step()` (the code's comment: "cm includes the waiting"). Rank 1 stores, per epoch and
iteration, every rank's `cp`, `cm` (seconds, rounded to 3 decimals) and local batch in
`record/*.npy` (a pickled dict). Settings are in the file names (dataset, model, GPUs, local-SGD
steps `lstep`, `bbsp` = balanced batches, `DT` = dynamic tuning, `disturb`, global batch, lr,
date). The code at the commit read may differ from the code that wrote a record (records
2022-12 to 2023-02, code uploaded 2023-08).

This script copies every recorded figure unchanged and adds the cluster name of the split in
../README.md and its set. It reads the .npy files with a restricted unpickler (only NumPy's
array and scalar reconstructors are allowed, mapped to plain Python stand-ins), so NumPy is not
needed and no code from the files is run.

The repository has no licence file: the output must not be committed (cited only, see
../lbb/README.md).

Usage (GITDIR: a clone's .git or a fetched snapshot of FLYING37520/LBB):

    extract_lbb.py GITDIR > /tmp/lbb-iterations.csv     # every rank of every iteration; do not commit
    extract_lbb.py GITDIR --files                       # one line per record file: settings and sizes only
    extract_lbb.py GITDIR --profiles > /tmp/lbb-profiles.csv   # warmupRecord/*.csv measured samples
"""
import argparse
import csv
import io
import pickle
import re
import subprocess
import sys
from split import cluster_set

REF = "beab4069c5ce82f63380a610114507b38d66036f"   # main, 2023-08-18
CLUSTER = "LBB-host"
NAME = re.compile(r"^record/(?P<ok>OK_)?(?P<dataset>[A-Za-z0-9]+)_(?P<net>[A-Za-z0-9]+)(?P<bn>(_[A-Za-z]+BN)?"
                  r"(_bs\d+)?)_(?P<gpus>\d)GPU(_lstep(?P<lstep>\d+))?(_SyncBN)?_bbsp(?P<bbsp>True|False)"
                  r"_DT(?P<dt>True|False)(_disturb(?P<disturb>True|False))?_bs(?P<gbs>[\d_]+)"
                  r"_lr(?P<lr>[\d.]+)_(?P<rest>.*)\.npy$")
FIELDS = ["cluster", "set", "file", "dataset", "model", "variant", "gpus", "lstep", "bbsp", "dt",
          "disturb", "gbs", "lr", "epoch", "iteration", "rank", "batch", "cp_s", "cm_s"]


class _Arr:
    """Stand-in for numpy.ndarray: keeps the pickled state."""

    def __init__(self, *a):
        self.state = None

    def __setstate__(self, s):
        self.state = s


class _Unpickler(pickle.Unpickler):
    """Only NumPy's reconstructors, as inert stand-ins; anything else is refused."""

    def find_class(self, module, name):
        if module.split(".")[0] == "numpy":
            if name == "_reconstruct":
                return lambda *a: _Arr()
            if name == "scalar":
                return lambda dt, raw: ("numpy-scalar", raw)
            if name in ("dtype", "ndarray"):
                return _Arr
        raise pickle.UnpicklingError(f"refused {module}.{name}")


def git(gitdir, *args, text=True):
    r = subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True, text=text)
    if r.returncode != 0:
        sys.exit(f"extract_lbb.py: git {' '.join(args)}: {r.stderr if text else r.stderr.decode()}")
    return r.stdout


def load_record(raw, path):
    """The dict stored in a 0-d object .npy file."""
    if raw[:6] != b"\x93NUMPY":
        print(f"extract_lbb.py: {path}: absent from the snapshot or not a .npy file ({len(raw)} bytes), skipped", file=sys.stderr)
        return None
    hlen = int.from_bytes(raw[8:10], "little") if raw[6] == 1 else int.from_bytes(raw[8:12], "little")
    start = (10 if raw[6] == 1 else 12) + hlen
    obj = _Unpickler(io.BytesIO(raw[start:])).load()
    try:
        d = obj.state[4][0]
    except (AttributeError, TypeError, IndexError):
        sys.exit(f"extract_lbb.py: {path}: unexpected layout")
    if not isinstance(d, dict):
        sys.exit(f"extract_lbb.py: {path}: not a dict")
    return d


def settings(path):
    m = NAME.match(path)
    if not m:
        return None
    g = m.groupdict()
    return {"file": path, "dataset": g["dataset"], "model": g["net"], "variant": (g["bn"] or "").strip("_"),
            "gpus": g["gpus"], "lstep": g["lstep"] or "", "bbsp": g["bbsp"], "dt": g["dt"],
            "disturb": g["disturb"] or "", "gbs": g["gbs"], "lr": g["lr"]}


def record_rows(s, d):
    """One row per epoch, iteration and rank, figures as stored."""
    cl, st = CLUSTER, cluster_set(CLUSTER)[1]
    for ep, (cps, cms, bss) in enumerate(zip(d["cp_time_list"], d["cm_time_list"], d["batchsizes"])):
        for it, (cp, cm, bs) in enumerate(zip(cps, cms, bss)):
            for rank, (a, b, c) in enumerate(zip(cp, cm, bs)):
                yield dict(s, cluster=cl, set=st, epoch=ep, iteration=it, rank=rank, batch=c, cp_s=a, cm_s=b)


def profiles(gitdir, w):
    """warmupRecord/batchVStime*.csv: the measured warm-up samples LBB.py writes before its fits.

    The files' first four data rows (after a marker row where there is one) are per rank either
    "(batch, ms)" tuples or plain ms values for batches 2, 3, 4, ... (the marker row says
    "ground truth, from 2"); the rows after them are LBB's fitted curves and are not copied.
    """
    w.writerow(["cluster", "set", "file", "row", "rank", "batch", "ms", "batch_from"])
    for path in git(gitdir, "ls-tree", "--name-only", REF, "warmupRecord/").split():
        if not path.startswith("warmupRecord/batchVStime"):
            continue
        rows = list(csv.reader(io.StringIO(git(gitdir, "show", f"{REF}:{path}"))))
        data = [r for r in rows if len(r) > 1 and not re.search(r"[^\x00-\x7f]", r[1])]
        for rank, row in enumerate(data[:4]):
            for i, cell in enumerate(c for c in row[1:] if c.strip()):
                m = re.fullmatch(r"\((\d+), ([0-9.]+)\)", cell.strip())
                bs, ms, src = (m.group(1), m.group(2), "tuple") if m else (str(2 + i), cell.strip(), "index+2")
                w.writerow([CLUSTER, cluster_set(CLUSTER)[1], path, row[0], rank, bs, ms, src])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gitdir")
    ap.add_argument("--files", action="store_true", help="settings and sizes per record file only")
    ap.add_argument("--profiles", action="store_true", help="the warm-up profile samples only")
    a = ap.parse_args()
    w = csv.writer(sys.stdout, lineterminator="\n")
    if a.profiles:
        profiles(a.gitdir, w)
        return
    paths = [p for p in git(a.gitdir, "ls-tree", "--name-only", REF, "record/").split() if p.endswith(".npy")]
    dw = csv.DictWriter(sys.stdout, fieldnames=FIELDS, lineterminator="\n")
    if a.files:
        w.writerow(["file", "parsed", "gpus", "lstep", "bbsp", "dt", "disturb", "gbs", "epochs", "iterations"])
    else:
        dw.writeheader()
    for p in paths:
        s = settings(p)
        raw = subprocess.run(["git", "--git-dir", a.gitdir, "show", f"{REF}:{p}"], capture_output=True).stdout
        d = load_record(raw, p)
        if d is None:
            continue
        if a.files:
            n = sum(len(x) for x in d["cp_time_list"])
            w.writerow([p, "yes" if s else "no"] + ([s[k] for k in ("gpus", "lstep", "bbsp", "dt", "disturb", "gbs")]
                                                     if s else [""] * 6) + [len(d["cp_time_list"]), n])
            continue
        if s is None:
            print(f"extract_lbb.py: {p}: file name not understood, skipped", file=sys.stderr)
            continue
        dw.writerows(record_rows(s, d))


if __name__ == "__main__":
    main()
