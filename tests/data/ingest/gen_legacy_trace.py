#!/usr/bin/python3
"""Generates the legacy-form (bare JSON array, no args) profiler traces that
hetsim's ingestion tests use, with Debian's python3-torch 1.13 (built without
Kineto).

Trains a tiny MLP data-parallel (DistributedDataParallel, gloo, CPU) on
WORLD ranks on loopback, under torch.profiler with a schedule (so that every
iteration is a `ProfilerStep#N` window), and writes per rank:
  OUT/rank<R>.json.gz            the trace, via export_chrome_trace, gzipped
  OUT/rank<R>.sidecar.json       the sidecar hetsim ingest --sidecar reads:
        {"hetsim_sidecar": 1, "rank": R, "world_size": WORLD,
         "device_type": "cpu", "backend": "gloo", "torch": "1.13.0",
         "grad_bytes": M, "bucket_bytes": [b0, b1, ...]}
    grad_bytes is the gradient payload M of one step (sum of numel x
    element size over parameters that require grad); bucket_bytes are the
    DDP buckets as its comm hook saw them, in all-reduce order.

usage: gen_legacy_trace.py OUTDIR [--steps N] [--world W] [--port P]
"""
import argparse
import gzip
import json
import os
import shutil
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def build_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(32, 512), nn.ReLU(), nn.Linear(512, 512),
                         nn.ReLU(), nn.Linear(512, 10))


def run(rank, world, steps, outdir, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    model = build_model()
    # small buckets so that a step has more than one all-reduce
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.5)
    buckets = []  # per step: the bucket sizes the comm hook saw

    def hook(state, bucket):
        buf = bucket.buffer()
        buckets[-1].append(buf.numel() * buf.element_size())
        fut = dist.all_reduce(buf, async_op=True).get_future()
        return fut.then(lambda f: f.value()[0] / world)

    ddp.register_comm_hook(None, hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(rank)
    ds = TensorDataset(torch.randn(8 * (steps + 2), 32, generator=g),
                       torch.randint(0, 10, (8 * (steps + 2),), generator=g))
    dl = DataLoader(ds, batch_size=8)
    raw = os.path.join(outdir, "rank%d.json" % rank)
    sched = torch.profiler.schedule(wait=0, warmup=1, active=steps)
    it = iter(dl)
    with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU],
            schedule=sched,
            on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
        for _ in range(steps + 1):
            buckets.append([])
            x, y = next(it)
            opt.zero_grad()
            loss = nn.functional.cross_entropy(ddp(x), y)
            loss.backward()
            opt.step()
            prof.step()
    with open(raw, "rb") as f, gzip.GzipFile(raw + ".gz", "wb", mtime=0) as g:
        shutil.copyfileobj(f, g)
    os.remove(raw)
    side = {
        "hetsim_sidecar": 1,
        "rank": rank,
        "world_size": world,
        "device_type": "cpu",
        "backend": "gloo",
        "torch": torch.__version__,
        "grad_bytes": sum(p.numel() * p.element_size()
                          for p in model.parameters() if p.requires_grad),
        "bucket_bytes": buckets[-1],
    }
    with open(os.path.join(outdir, "rank%d.sidecar.json" % rank), "w") as f:
        json.dump(side, f, indent=1)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--port", type=int, default=29517)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    mp.spawn(run, args=(a.world, a.steps, a.outdir, a.port), nprocs=a.world)
    return 0


if __name__ == "__main__":
    sys.exit(main())
