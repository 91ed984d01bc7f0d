#!/usr/bin/python3
"""One rank of the testbed's FULL cluster run: plain DDP training, no profiler.

The accuracy benchmark (bench/accuracy) starts this script once per rank,
each inside its own network namespace and CPU quota (bench/testbed/inrun).
The environment carries RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (and
GLOO_SOCKET_IFNAME, OMP_NUM_THREADS).  The training loop is the one of the
profiling harness (live/harness/hetsim_harness.py) -- same model file,
synthetic data, DataLoader, loss, SGD with momentum, DDP bucket cap -- minus
the profiler and the comm hook: the run being predicted is real training
(its one addition, a hook on each parameter's gradient, only reads the
clock).  Both load the model file and run a step through the same module,
live/harness/hetsim_models.py (the model-module contract).

It writes --out/rank<R>.json:
  {"rank", "world_size", "host", "iters", "warmup",
   "step_start_ns": [...],       perf_counter_ns at the start of every step
                                 (after a barrier before step 0), plus one
                                 final entry at the end of the last step
   "t_dl_ns", "t_fwd_ns", "t_bwd_ns", "t_opt_ns": [...] per step,
   "t_grad_ns": [...] per step, from the backward's start to the last
                                 parameter gradient computed (its compute;
                                 t_bwd - t_grad is DDP waiting for the
                                 all-reduces after it),
   "cpu_ns": process CPU time of the measured window,
   "param_bytes", "torch_version"}
The mean step time after warm-up is
  (step_start_ns[iters] - step_start_ns[warmup]) / (iters - warmup).

Exit status 0 ok, 1 failure while training, 2 bad arguments.
"""

import argparse
import datetime
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# the model-module contract, the harness's (live/harness/hetsim_models.py)
sys.path.insert(0, os.path.join(ROOT, "live", "harness"))
import hetsim_models as M  # noqa: E402


def parse(argv):
    p = argparse.ArgumentParser(prog="ddp_run.py")
    p.add_argument("--model", required=True, metavar="FILE")
    p.add_argument("--entry", default="build_model")
    p.add_argument("--synthetic", default=None,
                   help="SHAPE/CLASSES or tokens:LEN:VOCAB/CLASSES "
                        "(default: the model file's SYNTHETIC)")
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--iters", type=int, default=60)
    p.add_argument("--warmup", type=int, default=15)
    p.add_argument("--bucket-cap-mb", type=float, default=25.0)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--host", default="")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    if a.batch < 1 or a.warmup < 0 or a.iters <= a.warmup:
        p.error("need batch >= 1 and 0 <= warmup < iters")
    return a


def load_model(a, torch):
    """(module, model, synthetic spec) of --model and --entry, through the
    model-module contract the harness uses (hetsim_models.py); raises
    hetsim_models.ContractError when the file or its entry cannot be used
    or no spec is given."""
    mod, build = M.load_entry(a.model, a.entry, "model")
    model = M.make_model(build, a.entry, torch)
    syn = M.synthetic_spec(mod, a.synthetic)
    if not syn:
        raise M.ContractError("no --synthetic and the model file %s defines "
                              "no SYNTHETIC spec" % a.model)
    return mod, model, syn


def main(argv):
    a = parse(argv)
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.manual_seed(a.seed)
    mod, model, syn = load_model(a, torch)

    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=a.timeout))
    params = [p for p in model.parameters() if p.requires_grad]
    param_bytes = sum(p.numel() * p.element_size() for p in params)
    # Enough distinct samples for a few batches; the loader cycles.
    n = a.batch * min(a.iters, 16)
    ds = M.SyntheticDataset(syn, n, M.data_seed(a.seed, rank))
    g = torch.Generator().manual_seed(M.loader_seed(a.seed, rank))
    loader = torch.utils.data.DataLoader(ds, batch_size=a.batch, shuffle=True,
                                         drop_last=True, generator=g)
    ddp = DDP(model, bucket_cap_mb=a.bucket_cap_mb)
    loss_fn = M.make_loss(mod, torch)
    opt = M.make_optimizer(mod, ddp.parameters(), a.lr, torch)

    now = time.perf_counter_ns
    # When the backward's compute ends: a hook on every parameter's
    # gradient keeps the time of the latest (about 1 us a parameter per
    # step); what loss.backward() takes after it is DDP waiting for its
    # all-reduces.
    last_grad = [0]

    def mark(_grad):
        last_grad[0] = now()

    for p in params:
        p.register_hook(mark)
    starts, t_dl, t_fwd, t_bwd, t_opt, t_grad = [], [], [], [], [], []
    batches = M.Batches(loader)
    dist.barrier()
    tm = {}

    def clock(phase):
        # the step's clock (train_step calls it at each phase's boundary)
        if phase == "data":
            tm["t0"] = now()
            if tm["i"] == a.warmup:
                tm["cpu0"] = time.process_time_ns()
            starts.append(tm["t0"])
        elif phase == "forward":
            tm["t1"] = now()
        elif phase == "backward":
            tm["t2"] = now()
            last_grad[0] = tm["t2"]
        elif phase == "backward done":
            tm["t3"] = now()
        elif phase == "done":
            tm["t4"] = now()

    for i in range(a.iters):
        tm["i"] = i
        M.train_step(ddp, loss_fn, opt, batches, clock)
        t0, t1, t2, t3, t4 = tm["t0"], tm["t1"], tm["t2"], tm["t3"], tm["t4"]
        t_dl.append(t1 - t0)
        t_fwd.append(t2 - t1)
        t_bwd.append(t3 - t2)
        t_opt.append(t4 - t3)
        t_grad.append(last_grad[0] - t2)
    cpu0 = tm["cpu0"]
    starts.append(now())
    cpu_ns = time.process_time_ns() - cpu0
    res = {"rank": rank, "world_size": world, "host": a.host,
           "iters": a.iters, "warmup": a.warmup, "batch": a.batch,
           "step_start_ns": starts, "t_dl_ns": t_dl, "t_fwd_ns": t_fwd,
           "t_bwd_ns": t_bwd, "t_opt_ns": t_opt, "t_grad_ns": t_grad,
           "cpu_ns": cpu_ns,
           "param_bytes": param_bytes, "torch_version": torch.__version__}
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "rank%d.json" % rank)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(res, f)
    os.replace(tmp, path)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001
        sys.stderr.write("ddp_run: rank %s: %s: %s\n"
                         % (os.environ.get("RANK", "?"), type(e).__name__, e))
        sys.exit(1)
