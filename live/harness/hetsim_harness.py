#!/usr/bin/env python3
"""hetsim profiling harness: one rank of a data-parallel sub-system.

`hetsim profile` starts this script once per rank, torchrun-style: the
environment carries RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and
MASTER_PORT.  The rank builds the user's model from code, wraps it in
DistributedDataParallel, trains --iters iterations on its data share and
records the iterations after --warmup with the PyTorch profiler.  It writes
into --out:

  rank<R>.json          the Chrome trace of the recorded iterations, in the
                        Kineto layout ({"traceEvents": [...], ...}); one
                        "ProfilerStep#N" event per recorded iteration, the
                        DataLoader's "enumerate(DataLoader)#...__next__"
                        events and the autograd backward operators inside;
  rank<R>.sidecar.json  what the trace does not say reliably: the gradient
                        buckets DDP all-reduced (bytes, order, when each was
                        ready), the gradient and all-reduce bytes, the world
                        size, the device type, the torch version, the data
                        share and its seed, and the harness's own per-step
                        timings (data load, forward, backward, optimizer,
                        whole step).  Format: README.md, "The harness".

With --micro-batches V > 1 (gradient accumulation) each step runs V
micro-batches of --batch samples, DDP's no_sync() on all but the last, each
inside a record_function("hetsim.micro_batch#K") range; the sidecar's
per-step data, forward and backward times are then one micro-batch's.

Both files are written to a temporary name and renamed, so a rank that dies
leaves no half-written file.  The script works with PyTorch 1.13 (Debian's
python3-torch, whose profiler has no Kineto: the legacy autograd profiler is
used and its trace is rewritten into the Kineto layout) and with 2.x.

Exit status: 0 on success; 2 on bad arguments; 3 when the model or dataset
file cannot be imported or does not provide its entry; 1 on a failure while
training.  Every failure prints one line "hetsim-harness: rank R: step S:
what" on stderr so the caller can name the device and the step.
"""

import argparse
import contextlib
import json
import os
import random
import sys
import time

# the model-module contract, shared with bench/testbed/ddp_run.py: beside
# this file (installed with it, share/hetsim/live/harness/)
try:
    import hetsim_models as M
except ImportError as _e:
    sys.stderr.write("hetsim-harness: rank %s: step start-up: cannot import "
                     "hetsim_models.py, the model-module contract, which "
                     "belongs beside %s: %s\n"
                     % (os.environ.get("RANK", "?"), __file__, _e))
    sys.exit(3)

SIDECAR_FORMAT = 1

_STAGE = {"step": "start-up"}


def _fail(rank, code, msg):
    sys.stderr.write("hetsim-harness: rank %s: step %s: %s\n"
                     % (rank, _STAGE["step"], msg))
    sys.stderr.flush()
    sys.stdout.flush()
    # os._exit: a live process group's threads must not turn a clean error
    # into an abort (or a hang) during interpreter shutdown.
    os._exit(code)


def _phase(rank, step, phase):
    """One line per phase on stdout: the caller tells from the last one
    where a hung rank is (a rank in "backward" waits in the all-reduce)."""
    sys.stdout.write("hetsim-harness: rank %d: step %d begins %s\n"
                     % (rank, step, phase))
    sys.stdout.flush()


def _after(rank, stage):
    """After the last step: one line per stage on stdout ("after training:
    STAGE"), so that the caller names the stage a rank stopped in (a trace
    export of tens of MB takes minutes on a slow device) and stretches its
    time limit to the work that is left."""
    _STAGE["step"] = stage
    sys.stdout.write("hetsim-harness: rank %d: after training: %s\n"
                     % (rank, stage))
    sys.stdout.flush()


def _parse_args(argv):
    p = argparse.ArgumentParser(
        prog="hetsim_harness.py",
        description="Train one rank of a DDP sub-system under the profiler "
                    "(hetsim profile starts it).")
    p.add_argument("--model", required=True, metavar="FILE:ENTRY",
                   help="python file and the function that returns the "
                        "torch.nn.Module (entry defaults to build_model)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--dataset", metavar="FILE:ENTRY",
                   help="python file and the function that returns a "
                        "map-style dataset of (input, target) pairs")
    g.add_argument("--synthetic", metavar="SPEC",
                   help="built-in random dataset: SHAPE/CLASSES "
                        "(e.g. 784/10, 3x32x32/10) or "
                        "tokens:LEN:VOCAB/CLASSES")
    p.add_argument("--batch", type=int, required=True,
                   help="samples per micro-batch (the step's batch with "
                        "--micro-batches 1)")
    p.add_argument("--micro-batches", type=int, default=1,
                   help="gradient accumulation: micro-batches per step, "
                        "each a forward and backward of --batch samples, "
                        "DDP's no_sync() on all but the last (whose "
                        "backward all-reduces), one optimizer step; each "
                        "marked in the trace as hetsim.micro_batch#K "
                        "when above 1")
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--plain", type=int, default=-1,
                   help="iterations run after the warm-up and before the "
                        "profiled ones, without the profiler (which has "
                        "not run yet): their wall-clock phases (as "
                        "bench/testbed/ddp_run.py measures a real run) give "
                        "the compute means and the bucket ready times, the "
                        "profiled ones the operators and buckets (default: "
                        "half the profiled ones, 3 to 10; 0: none)")
    p.add_argument("--samples", type=int, default=0,
                   help="this rank's data share in samples, drawn at random "
                        "from the dataset (0: batch * iters)")
    p.add_argument("--backend", choices=["gloo", "nccl"], default="gloo")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device-type", default="",
                   help="the hetsim device type name (recorded only)")
    p.add_argument("--bucket-cap-mb", type=float, default=25.0)
    p.add_argument("--comm", choices=["after", "overlap"], default="after",
                   help="after (default): each bucket's all-reduce runs "
                        "after the backward, so the profiled backward is "
                        "the device's alone (on CPU devices gloo's threads "
                        "would otherwise share its cores); overlap: DDP's "
                        "own overlap")
    p.add_argument("--hop-trials", type=int, default=8,
                   help="trials of the hop-wait probe (an all-reduce of the "
                        "first bucket idle, then beside the backward; CPU "
                        "devices only; 0: no probe)")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--workers", type=int, default=0,
                   help="DataLoader worker processes")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds to wait for the other ranks")
    a = p.parse_args(argv)
    if a.batch < 1 or a.iters < 1 or a.warmup < 0 or a.warmup >= a.iters:
        p.error("need batch >= 1, iters >= 1 and 0 <= warmup < iters")
    if a.micro_batches < 1:
        p.error("need --micro-batches >= 1")
    if a.plain < 0:
        a.plain = min(max((a.iters - a.warmup) // 2, 3), 10)
    return a


def _load_entry(spec, default_entry, what, rank):
    """The file and entry of spec (FILE:ENTRY or FILE) imported through the
    model-module contract (hetsim_models.py); exit status 3 with the reason
    when it cannot be."""
    path, entry = M.split_spec(spec, default_entry)
    try:
        mod, fn = M.load_entry(path, entry, what)
    except M.ContractError as e:
        _fail(rank, 3, str(e))
    return mod, fn, path, entry


def _bucket_plan(params, cap_bytes, first_cap_bytes):
    """DDP's initial bucketing from parameter gradient sizes: parameters in
    reverse order, a bucket closes when it reaches its cap (the first one
    1 MiB, as DDP's bucket_cap for the first bucket)."""
    sizes = [p.numel() * p.element_size() for p in params if p.requires_grad]
    buckets, cur, cap = [], 0, first_cap_bytes
    for s in reversed(sizes):
        cur += s
        if cur >= cap:
            buckets.append(cur)
            cur, cap = 0, cap_bytes
    if cur:
        buckets.append(cur)
    return buckets


_ANNOTATION_PREFIXES = ("ProfilerStep#", "enumerate(DataLoader)",
                        "Optimizer.", "DistributedDataParallel.",
                        "gloo:", "nccl:", "hetsim::", "hetsim.")


def _kineto_layout(function_events, rank, world, backend, pid):
    """The legacy profiler's events (prof.function_events) in the Kineto
    layout: a dict with traceEvents, numeric pid and tid, a cat per event
    ("user_annotation" for record_function scopes, else "cpu_op"), times in
    microseconds, and the args Kineto writes for operators: "Input Dims"
    (with record_shapes), "Sequence number" and "Fwd thread id"."""
    out = []
    for fe in function_events:
        # FunctionEvent.name shows "ProfilerStep*" for every step;
        # trace_name keeps "ProfilerStep#N".
        name = getattr(fe, "trace_name", None) or fe.name
        annot = name.startswith(_ANNOTATION_PREFIXES)
        args = {"External id": int(fe.id)}
        shapes = getattr(fe, "input_shapes", None)
        if shapes and not annot:
            args["Input Dims"] = [list(x) if isinstance(x, (list, tuple))
                                  else x for x in shapes]
        seq = getattr(fe, "sequence_nr", -1)
        if seq is not None and seq >= 0:
            args["Sequence number"] = int(seq)
            fwd = getattr(fe, "fwd_thread", None)
            if fwd:
                args["Fwd thread id"] = int(fwd)
        start = fe.time_range.start
        out.append({"ph": "X",
                    "cat": "user_annotation" if annot else "cpu_op",
                    "name": name, "pid": pid, "tid": int(fe.thread),
                    "ts": start, "dur": fe.time_range.end - start,
                    "args": args})
    out.sort(key=lambda ev: (ev["ts"], -ev["dur"]))
    return {"schemaVersion": 1,
            "deviceProperties": [],
            "distributedInfo": {"backend": backend, "rank": rank,
                                "world_size": world},
            "traceEvents": out,
            "traceName": "hetsim harness (legacy autograd profiler)",
            "displayTimeUnit": "ms"}


def _use_figures(rank, steps):
    """Whether a rank had its device: its CPU share per step (process CPU
    time / wall time of the forward, in cores) and the spread of its
    compute times (forward + backward) over the steps."""
    if not steps:
        return {"rank": rank, "steps": 0}
    # the forward's share: no waiting for the peer in it
    share = [s["cpu_fwd_ns"] / max(s["t_fwd_ns"], 1) for s in steps]
    # the compute (forward + backward; with --comm after the backward does
    # not wait for the peer)
    t = sorted(s["t_fwd_ns"] + s["t_bwd_ns"] for s in steps)
    mean = sum(t) / len(t)
    sd = (sum((x - mean) ** 2 for x in t) / max(len(t) - 1, 1)) ** 0.5
    return {"rank": rank, "steps": len(steps),
            "cpu_share_mean": sum(share) / len(share),
            "cpu_share_min": min(share), "cpu_share_max": max(share),
            "compute_mean_ns": int(mean), "compute_sd_ns": int(sd),
            "compute_median_ns": int(t[len(t) // 2]),
            "compute_max_ns": int(t[-1])}


def _cgroup_mounts(mountinfo="/proc/self/mountinfo"):
    """[(kind, mount point, root in the hierarchy)] of the cgroup2 mount
    and the cgroup v1 mount that has the cpu controller."""
    out = []
    try:
        with open(mountinfo) as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for ln in lines:
        pre, sep, post = ln.partition(" - ")
        f1, f2 = pre.split(), post.split()
        if not sep or len(f1) < 5 or len(f2) < 3:
            continue
        if f2[0] == "cgroup2":
            out.append(("v2", f1[4], f1[3]))
        elif f2[0] == "cgroup" and "cpu" in f2[2].split(","):
            out.append(("v1", f1[4], f1[3]))
    return out


def _cpu_quota(proc_cgroup="/proc/self/cgroup",
               mountinfo="/proc/self/mountinfo"):
    """The CPU limit this process runs under, from its cgroup and every
    cgroup above it (the tightest, in cores): {"cores": q, "period_ns": P,
    "cgroup": dir}, or None when there is none or it cannot be read.
    cgroup v2: cpu.max ("max P" or "Q P", us); v1: the cpu controller's
    cpu.cfs_quota_us (-1 = none) and cpu.cfs_period_us.  The replay grows
    the hop wait to a longer ring with it (docs/method.md)."""
    try:
        with open(proc_cgroup) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    paths = {}
    for ln in lines:
        parts = ln.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[1] == "":
            paths["v2"] = parts[2]
        elif "cpu" in parts[1].split(","):
            paths["v1"] = parts[2]
    best = None
    for kind, mnt, mroot in _cgroup_mounts(mountinfo):
        path = paths.get(kind)
        if path is None:
            continue
        rel = os.path.relpath(path, mroot) if path.startswith(mroot) else "."
        d = os.path.normpath(os.path.join(mnt, rel))
        while d.startswith(mnt):
            q = p = None
            try:
                if kind == "v2":
                    with open(os.path.join(d, "cpu.max")) as f:
                        w = f.read().split()
                    if len(w) == 2 and w[0] != "max":
                        q, p = int(w[0]), int(w[1])
                else:
                    with open(os.path.join(d, "cpu.cfs_quota_us")) as f:
                        q = int(f.read().strip())
                    with open(os.path.join(d, "cpu.cfs_period_us")) as f:
                        p = int(f.read().strip())
            except (OSError, ValueError):
                q = p = None
            if q is not None and p and q > 0 and p > 0 and (
                    best is None or q / p < best["cores"]):
                best = {"cores": q / p, "period_ns": p * 1000, "cgroup": d}
            if d == mnt:
                break
            d = os.path.dirname(d)
    return best


# The hop probe's payload at most: the wait does not grow with the bytes
# (bench/hopwait: the same extra at 1 and 4 MB), while a large payload's
# reduction work, shared with the backward's thread beside it, would add
# its own slowdown (a 15.8 MB bucket of a wide MLP at 0.2 core: 70 ms a
# hop against 8-19 ms for the 1 MB buckets of the other models).
HOP_PROBE_MAX_BYTES = 1 << 20


def _hop_probe(model, loss_fn, loader, device, buckets, world, trials,
               dist, torch):
    """The wait a ring hop gets when its receiver computes (docs/method.md,
    bench/hopwait): on CPU devices the thread that takes each incoming
    segment and sends the next shares the device with the compute, and
    under a CPU quota it waits for the quota's next period once the
    compute has used it up.  Per trial, every rank (after a barrier)
    all-reduces the first bucket's bytes, at most HOP_PROBE_MAX_BYTES,
    with nothing else running (idle), then, after another barrier,
    starts the same all-reduce and
    runs the model's backward beside it (the unwrapped module, so no DDP
    hook fires; the graph is kept and the backward run again until the
    all-reduce is done) while a thread waits for it (beside).  Trials
    alternate the two, so a drift of the host's speed falls on both.
    Returns (probe, None) with the lists of ns of every rank, pooled,
    and the hops (2(world-1)) -- the ingestion takes the medians'
    difference over the hops -- or (None, why) when some rank's backward
    cannot run twice on one graph."""
    import threading
    now = time.perf_counter_ns
    nbytes = min(buckets[0]["bytes"], HOP_PROBE_MAX_BYTES)
    t = torch.ones(max(nbytes // 4, 1))
    x, y = next(iter(loader))
    x = x.to(device)
    y = y.to(device)
    loss = loss_fn(model(x), y)
    # The probe runs the backward again on one graph: a model that cannot
    # (a custom autograd function that frees its state, say) skips the
    # probe on every rank, said in the sidecar, instead of failing the
    # profile; the ranks agree first, so none waits in a collective alone.
    why = ""
    try:
        loss.backward(retain_graph=True)
        loss.backward(retain_graph=True)
    except Exception as e:  # noqa: BLE001 -- the user's model, any error
        why = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200]
                          if str(e) else "")
    every = [None] * world
    dist.all_gather_object(every, why)
    bad = [(r_, w_) for r_, w_ in enumerate(every) if w_]
    if bad:
        model.zero_grad(set_to_none=True)
        return None, ("rank %d: the backward cannot run twice on one graph "
                      "(%s)" % bad[0])
    for _ in range(2):
        dist.all_reduce(t)
    idle, beside = [], []
    for _ in range(trials):
        dist.barrier()
        s = now()
        dist.all_reduce(t)
        idle.append(now() - s)
        dist.barrier()
        done = [None]
        s = now()
        work = dist.all_reduce(t, async_op=True)

        def waiter():
            work.wait()
            done[0] = now() - s
        th = threading.Thread(target=waiter)
        th.start()
        while done[0] is None:
            loss.backward(retain_graph=True)
        th.join()
        beside.append(done[0])
        del th, waiter, work
    model.zero_grad(set_to_none=True)
    every = [None] * world
    dist.all_gather_object(every, (idle, beside))
    return {"bytes": nbytes, "hops": 2 * (world - 1), "trials": trials,
            "idle_ns": [v for r_ in every for v in r_[0]],
            "beside_ns": [v for r_ in every for v in r_[1]]}, None


def _write_json(path, obj):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, path)


def main(argv):
    a = _parse_args(argv)
    try:
        rank = int(os.environ["RANK"])
        world = int(os.environ["WORLD_SIZE"])
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        os.environ["MASTER_ADDR"]
        os.environ["MASTER_PORT"]
    except (KeyError, ValueError) as e:
        sys.stderr.write("hetsim-harness: need RANK, WORLD_SIZE, "
                         "MASTER_ADDR, MASTER_PORT in the environment (%s)\n"
                         % e)
        return 2

    _STAGE["step"] = "import torch"
    try:
        import datetime
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    except Exception as e:  # noqa: BLE001
        _fail(rank, 3, "cannot import torch: %s" % e)
    torch.manual_seed(a.seed)
    random.seed(a.seed)

    _STAGE["step"] = "load model"
    mod, build_model, model_path, model_entry = _load_entry(
        a.model, "build_model", "model", rank)
    dataset_desc = None
    if a.dataset:
        _STAGE["step"] = "load dataset"
        _, build_ds, ds_path, ds_entry = _load_entry(
            a.dataset, "build_dataset", "dataset", rank)
        dataset_desc = "%s:%s" % (ds_path, ds_entry)
    else:
        spec = M.synthetic_spec(mod, a.synthetic)
        if not spec:
            _fail(rank, 2, "no --dataset, no --synthetic and the model file "
                           "defines no SYNTHETIC spec")
        dataset_desc = "synthetic:" + spec

    use_cuda = a.backend == "nccl"
    if use_cuda:
        if not torch.cuda.is_available():
            _fail(rank, 1, "backend nccl but CUDA is not available")
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)
        device_type = "cuda"
        device_name = torch.cuda.get_device_name(local_rank)
    else:
        device = torch.device("cpu")
        device_type = "cpu"
        device_name = "cpu"

    _STAGE["step"] = "init process group"
    try:
        dist.init_process_group(a.backend, rank=rank, world_size=world,
                                timeout=datetime.timedelta(
                                    seconds=a.timeout))
    except Exception as e:  # noqa: BLE001
        _fail(rank, 1, "process group (%s, %s:%s): %s"
              % (a.backend, os.environ["MASTER_ADDR"],
                 os.environ["MASTER_PORT"], e))

    _STAGE["step"] = "build model"
    try:
        model = M.make_model(build_model, model_entry, torch).to(device)
    except Exception as e:  # noqa: BLE001
        _fail(rank, 1, "building the model: %s" % e)
    params = [p for p in model.parameters() if p.requires_grad]
    param_count = sum(p.numel() for p in params)
    grad_bytes = sum(p.numel() * p.element_size() for p in params)

    _STAGE["step"] = "build dataset"
    V = a.micro_batches
    n_share = a.samples if a.samples > 0 else a.batch * V * a.iters
    try:
        if a.dataset:
            full = build_ds()
            n_full = len(full)
        else:
            # Random data: only the samples K iterations can read are made.
            full = None
            n_full = min(n_share, a.batch * V * a.iters)
        # The data share: n_share samples drawn at random (recorded seed,
        # one stream per rank); with replacement only when the dataset is
        # smaller than the share.
        g = torch.Generator().manual_seed(M.loader_seed(a.seed, rank))
        n_take = min(n_share, n_full) if full is None else n_share
        if n_take <= n_full:
            idx = torch.randperm(n_full, generator=g)[:n_take]
        else:
            idx = torch.randint(0, n_full, (n_take,), generator=g)
        if full is None:
            full = M.SyntheticDataset(spec, n_full,
                                      M.data_seed(a.seed, rank))
        share = torch.utils.data.Subset(full, idx.tolist())
        loader = torch.utils.data.DataLoader(
            share, batch_size=a.batch, shuffle=True, drop_last=True,
            num_workers=a.workers, generator=g)
        if len(loader) < 1:
            raise ValueError("data share of %d samples is smaller than one "
                             "batch of %d" % (n_share, a.batch))
    except Exception as e:  # noqa: BLE001
        _fail(rank, 1, "building the dataset: %s" % e)

    _STAGE["step"] = "wrap in DDP"
    try:
        ddp = DDP(model, device_ids=[local_rank] if use_cuda else None,
                  bucket_cap_mb=a.bucket_cap_mb)
    except Exception as e:  # noqa: BLE001
        _fail(rank, 1, "DistributedDataParallel: %s" % e)

    # Record every bucket DDP hands to the all-reduce: DDP's own allreduce
    # hook, wrapped, so the reduction is unchanged.
    hook_log = []
    bwd_start = [0]

    deferred = []

    def recording_hook(state, bucket):
        hook_log.append((bucket.index(),
                         bucket.buffer().numel()
                         * bucket.buffer().element_size(),
                         time.perf_counter_ns() - bwd_start[0]))
        if a.comm == "overlap":
            return default_hooks.allreduce_hook(state, bucket)
        # after: hand DDP the local gradients now and average them after
        # the backward (reduce_after_backward), bucket by bucket
        deferred.append(list(bucket.parameters()))
        fut = torch.futures.Future()
        fut.set_result(bucket.buffer())
        return fut

    from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors

    def reduce_after_backward():
        for ps in deferred:
            grads = [q.grad for q in ps if q.grad is not None]
            if not grads:
                continue
            flat = _flatten_dense_tensors(grads)
            dist.all_reduce(flat)
            flat.div_(world)
            for g_, r_ in zip(grads, _unflatten_dense_tensors(flat, grads)):
                g_.copy_(r_)
        del deferred[:]

    ddp.register_comm_hook(None, recording_hook)

    def micro_scope(k):
        # each micro-batch's trace mark (none without accumulation, so a
        # step's trace is as it always was)
        if V == 1:
            return contextlib.nullcontext()
        return torch.autograd.profiler.record_function(
            "hetsim.micro_batch#%d" % k)

    loss_fn = M.make_loss(mod, torch)
    opt = M.make_optimizer(mod, ddp.parameters(), a.lr, torch)

    kineto = bool(getattr(torch.autograd, "kineto_available",
                          lambda: False)())
    sync = (lambda: torch.cuda.synchronize(device)) if use_cuda else \
        (lambda: None)
    now = time.perf_counter_ns
    cpu_now = time.process_time_ns   # all threads of this process

    steps = []
    prof = None
    legacy_step_rf = None
    last_hooks = []
    # The order of the iterations: the warm-up (not recorded), then the
    # plain ones (no profiler, timed as bench/testbed/ddp_run.py times a
    # real run), then the profiled ones.  The plain iterations come BEFORE
    # the profiler has ever run: the profiler leaves the process changed
    # (the allocator's state: with glibc's malloc thresholds fixed the
    # difference goes away, so most likely its large frees raise the mmap
    # threshold and afterwards the model's tensors come from the heap
    # instead of fresh zeroed pages), and on CPU devices the iterations
    # after it ran up to 2-3x faster than the same process's before it
    # (measured: a profile's forward of 68.8 ms against 93-116 ms in the
    # real run).  A real run never has a profiler in it, so its state is
    # the one before.
    p0 = a.warmup + a.plain            # the profiler starts here
    # torch.profiler: one iteration to let it settle (not recorded)
    n_settle = 1 if kineto else 0
    n_prof = a.iters - a.warmup        # profiled, recorded
    total = p0 + n_settle + n_prof
    # the whole run's length, for the caller's time limit
    sys.stdout.write("hetsim-harness: rank %d: steps %d (%d profiled)\n"
                     % (rank, total, n_prof))
    sys.stdout.flush()
    batches = M.Batches(loader)
    for i in range(total):
        _STAGE["step"] = str(i)
        if i == p0 and kineto:
            # torch.profiler with a schedule: one settle iteration
            # (warmup), the rest recorded (active).
            import torch.profiler as tp
            acts = [tp.ProfilerActivity.CPU]
            if use_cuda:
                acts.append(tp.ProfilerActivity.CUDA)
            prof = tp.profile(activities=acts, record_shapes=True,
                              schedule=tp.schedule(wait=0, warmup=1,
                                                   active=n_prof, repeat=1))
            prof.__enter__()
        if i == p0 and not kineto:
            # The legacy profiler (no Kineto) has no schedule: start it
            # now and mark each step as torch.profiler does.
            prof = torch.autograd.profiler.profile(
                record_shapes=True, use_cuda=use_cuda)
            prof.__enter__()
        if prof is not None and not kineto:
            legacy_step_rf = torch.autograd.profiler.record_function(
                "ProfilerStep#%d" % i)
            legacy_step_rf.__enter__()
        # the step's clock: the data, forward and backward times add up
        # over the step's micro-batches (one with --micro-batches 1)
        tm = {"dl": 0, "fwd": 0, "bwd": 0, "cfwd": 0}

        def clock(phase):
            # the step's clock and its phase lines (train_step calls it at
            # each phase's boundary)
            if phase == "data":
                _phase(rank, i, "data")
                tm["a"] = now()
                if "t0" not in tm:
                    tm["t0"], tm["c0"] = tm["a"], cpu_now()
            elif phase == "forward":
                t, tm["ca"] = now(), cpu_now()
                tm["dl"] += t - tm["a"]
                tm["a"] = t
                _phase(rank, i, "forward")
            elif phase == "backward":
                t, c = now(), cpu_now()
                tm["fwd"] += t - tm["a"]
                tm["cfwd"] += c - tm["ca"]
                tm["a"] = t
                del hook_log[:]
                bwd_start[0] = t
                _phase(rank, i, "backward")
            elif phase == "backward done":
                tm["t3"] = now()
                tm["bwd"] += tm["t3"] - tm["a"]
            elif phase == "optimizer":
                tm["t3b"] = now()
                _phase(rank, i, "optimizer")
            elif phase == "done":
                tm["t4"], tm["c4"] = now(), cpu_now()

        def after_backward():
            if deferred:
                _phase(rank, i, "all-reduce")
                reduce_after_backward()
                sync()
        try:
            loss = M.train_step(ddp, loss_fn, opt, batches, clock,
                                device=device, sync=sync,
                                after_backward=after_backward,
                                micro_batches=V, micro_scope=micro_scope)
        except Exception as e:  # noqa: BLE001
            _fail(rank, 1, "training: %s: %s" % (type(e).__name__, e))
        t0, t3, t3b, t4 = tm["t0"], tm["t3"], tm["t3b"], tm["t4"]
        c0, c4 = tm["c0"], tm["c4"]
        if legacy_step_rf is not None:
            legacy_step_rf.__exit__(None, None, None)
            legacy_step_rf = None
        if prof is not None and kineto:
            prof.step()
        # And one when the step is done.
        sys.stdout.write("hetsim-harness: rank %d: step %d done: %.3f ms\n"
                         % (rank, i, (t4 - t0) / 1e6))
        sys.stdout.flush()
        if i >= a.warmup and not (kineto and i == p0):
            # data, forward and backward: one micro-batch's (the mean
            # over the step's); the rest the step's
            steps.append({"step": i, "t_dl_ns": tm["dl"] // V,
                          "t_fwd_ns": tm["fwd"] // V,
                          "t_bwd_ns": tm["bwd"] // V,
                          "t_comm_ns": t3b - t3,
                          "t_opt_ns": t4 - t3b, "t_step_ns": t4 - t0,
                          "cpu_fwd_ns": tm["cfwd"] // V,
                          "cpu_step_ns": c4 - c0,
                          "profiled": i >= p0,
                          "loss": float(loss.item()),
                          "bucket_ready_ns": [r for _, _, r in hook_log]})
        last_hooks = list(hook_log)

    _after(rank, "write trace")
    out_dir = a.out
    try:
        os.makedirs(out_dir, exist_ok=True)
        trace_path = os.path.join(out_dir, "rank%d.json" % rank)
        try:
            prof.__exit__(None, None, None)
        except Exception as e:  # noqa: BLE001
            _fail(rank, 1, "stopping the profiler: %s" % e)
        if kineto:
            tmp = "%s.tmp.%d.json" % (trace_path, os.getpid())
            prof.export_chrome_trace(tmp)
            os.replace(tmp, trace_path)
        else:
            _write_json(trace_path, _kineto_layout(
                prof.function_events, rank, world, a.backend, os.getpid()))
    except Exception as e:  # noqa: BLE001
        _fail(rank, 1, "exporting the trace: %s" % e)

    # Buckets of the last recorded iteration, in all-reduce order; their
    # ready time is the mean over the recorded iterations with the same
    # bucket count (DDP rebuilds its buckets once, after the first step).
    buckets = []
    if last_hooks:
        nb = len(last_hooks)
        same = [s["bucket_ready_ns"] for s in steps
                if len(s["bucket_ready_ns"]) == nb and not s["profiled"]]
        if not same:
            same = [s["bucket_ready_ns"] for s in steps
                    if len(s["bucket_ready_ns"]) == nb]
        for k, (index, nbytes, _) in enumerate(last_hooks):
            ready = sum(r[k] for r in same) // max(len(same), 1)
            buckets.append({"index": index, "bytes": nbytes,
                            "ready_ns": ready})
        bucket_source = "comm_hook"
    else:
        for k, nbytes in enumerate(_bucket_plan(
                params, int(a.bucket_cap_mb * 1024 * 1024), 1024 * 1024)):
            buckets.append({"index": k, "bytes": nbytes, "ready_ns": None})
        bucket_source = "params"
    bucket_bytes = sum(b["bytes"] for b in buckets)
    # Ring all-reduce: each device sends 2(n-1)/n of the payload.
    ar_bytes = (2 * (world - 1) * bucket_bytes) // world if world > 1 else 0

    # The communication's own CPU cost (gloo on CPU devices: the sends,
    # receives and reductions run on the same cores as the compute, so in
    # a cluster they slow the device down).  The process's CPU time over
    # a few all-reduces of the real buckets, nothing else running; the
    # ingestion divides it by the device's CPU rate during the forward.
    # The profiler-free phases of every rank, pooled (rank 0's sidecar is
    # the one ingested), and per rank whether it had its device: its CPU
    # share (process CPU time over wall time) per step and the spread of
    # its step times.
    _after(rank, "gather phases")
    plain = [s for s in steps if not s["profiled"]]
    mine = {"rank": rank,
            "plain": {k: [s[k] for s in plain]
                      for k in ("t_dl_ns", "t_fwd_ns", "t_bwd_ns",
                                "t_opt_ns", "t_step_ns")},
            "use": _use_figures(rank, plain if len(plain) >= 3 else steps)}
    if world > 1:
        try:
            every = [None] * world
            dist.all_gather_object(every, mine)
        except Exception as e:  # noqa: BLE001
            _fail(rank, 1, "gathering the phases: %s" % e)
    else:
        every = [mine]
    plain_all = {k: [v for r_ in every for v in r_["plain"][k]]
                 for k in mine["plain"]}
    rank_use = [r_["use"] for r_ in every]

    comm_probe = None
    if device_type == "cpu" and world > 1 and buckets:
        _after(rank, "communication CPU probe")
        try:
            bufs = [torch.zeros(max(b["bytes"] // 4, 1)) for b in buckets]
            dist.barrier()
            w0 = now()
            for t in bufs:
                dist.all_reduce(t)
            # about 1 s of all-reduces (a few ms of CPU time are too noisy
            # to divide by), 4 to 64 of them; rank 0 decides for both
            n = torch.tensor([min(max(int(1e9 / max(now() - w0, 1)) + 1, 4),
                                  64)])
            dist.broadcast(n, 0)
            reps = int(n.item())
            dist.barrier()
            w0, k0 = now(), cpu_now()
            for _ in range(reps):
                for t in bufs:
                    dist.all_reduce(t)
            w1, k1 = now(), cpu_now()
            comm_probe = {"reps": reps, "bytes_sent": ar_bytes,
                          "cpu_ns": k1 - k0, "wall_ns": w1 - w0}
        except Exception as e:  # noqa: BLE001
            _fail(rank, 1, "communication CPU probe: %s" % e)

    hop_probe, hop_skipped = None, None
    if device_type == "cpu" and world > 1 and buckets and a.hop_trials > 0:
        _after(rank, "hop-wait probe")
        try:
            hop_probe, hop_skipped = _hop_probe(
                model, loss_fn, loader, device, buckets, world,
                a.hop_trials, dist, torch)
        except Exception as e:  # noqa: BLE001
            _fail(rank, 1, "hop-wait probe: %s" % e)

    cpu_quota = None
    if device_type == "cpu":
        _after(rank, "CPU quota")
        cpu_quota = _cpu_quota()

    side = {
        "hetsim_sidecar": SIDECAR_FORMAT,
        "rank": rank, "world_size": world, "local_rank": local_rank,
        "backend": a.backend, "device_type": device_type,
        "device_name": device_name, "hetsim_type": a.device_type,
        "torch": torch.__version__,
        "profiler": "kineto" if kineto else "legacy",
        "model": "%s:%s" % (model_path, model_entry),
        "dataset": dataset_desc,
        "param_count": param_count, "grad_bytes": grad_bytes,
        "bucket_cap_mb": a.bucket_cap_mb, "bucket_source": bucket_source,
        "comm": a.comm,
        "bucket_bytes": [b["bytes"] for b in buckets],
        "buckets": buckets,
        "allreduce_bytes": ar_bytes,
        "batch": a.batch, "micro_batches": V, "samples": n_share, "dataset_size": n_full,
        "seed": a.seed, "iterations": a.iters, "warmup": a.warmup,
        "trace": os.path.basename(trace_path),
        "steps": steps,
        "comm_probe": comm_probe,
        "hop_probe": hop_probe,
        "hop_probe_skipped": hop_skipped,
        "cpu_quota": cpu_quota,
        "alone": world == 1,
        "plain_iterations": a.plain,
        "plain": plain_all,
        "rank_use": rank_use,
    }
    _after(rank, "write sidecar")
    try:
        _write_json(os.path.join(out_dir, "rank%d.sidecar.json" % rank), side)
    except Exception as e:  # noqa: BLE001
        _fail(rank, 1, "writing the sidecar: %s" % e)
    try:
        if a.backend == "gloo":
            dist.monitored_barrier(timeout=datetime.timedelta(seconds=60))
        else:
            dist.barrier()
        dist.destroy_process_group()
    except Exception:  # noqa: BLE001 -- results are written already
        pass
    # os._exit, as in _fail: the results are written and closed, and
    # gloo's threads must not hang the interpreter's shutdown (a rank
    # waited there 300 s after writing its sidecar, once in ~20 runs
    # with the hop probe's asynchronous all-reduces).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
