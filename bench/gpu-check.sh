#!/usr/bin/env bash
# bench/gpu-check.sh: hetsim's prediction against a short real run on this machine's
# NVIDIA GPUs, in under 5 minutes.
#
#   1. the all-reduce bandwidth between the ranks (NCCL on two GPUs; the model's gradient
#      bytes, nccl-tests' bus-bandwidth convention 2(n-1)/n S / t), written as the link;
#   2. `hetsim profile` of a small model (scenarios/models/cnn.py) with hetsim's harness:
#      two ranks with NCCL where two GPUs exist, else one rank alone (--alone: the harness
#      puts a rank on CUDA only with backend nccl, so gloo on CUDA is not available);
#   3. `hetsim ingest --summary` of the Kineto traces the harness wrote (the profile
#      itself was ingested by `hetsim profile`);
#   4. `hetsim predict --json` of the profiled scenario (two GPUs), or the profile's
#      compute t_dl + t_fwd + t_bwd + t_opt (one GPU: a ring needs two devices);
#   5. a real DDP run of the same model, batch and synthetic data (no profiler), its mean
#      step after the warm-up; then the figures side by side.
#
# Usage: bench/gpu-check.sh [--cpu-dry-run]
#   --cpu-dry-run  the same steps on two CPU ranks with gloo, no GPU needed: checks the
#                  script's own parts (not a GPU figure).
# Environment: HETSIM (default build/hetsim), PYTHON (python3), MODEL, BATCH (128),
#   OUTDIR (default a new /tmp/hs-gpu-check.XXXXXX, kept); GPU_CHECK_RANKS (1 or 2, with
#   --cpu-dry-run only).
# Exit status: 0 figures printed, 77 no NVIDIA GPU (skipped), 2 hetsim not built,
#   4 an external step failed (torch without CUDA, profile, real run).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
HETSIM=${HETSIM:-$ROOT/build/hetsim}
PY=${PYTHON:-python3}
MODEL=${MODEL:-$ROOT/scenarios/models/cnn.py}
BATCH=${BATCH:-128}
ITERS=40
WARMUP=10
REAL_ITERS=60
REAL_WARMUP=15
PORT=29571

dry=0
if [ "${1:-}" = "--cpu-dry-run" ]; then
    dry=1
elif [ $# -gt 0 ]; then
    echo "usage: bench/gpu-check.sh [--cpu-dry-run]" >&2
    exit 2
fi

if [ "$dry" = 0 ]; then
    if ! command -v nvidia-smi >/dev/null 2>&1; then
        echo "gpu-check: no NVIDIA GPU here (nvidia-smi not found): skipped"
        exit 77
    fi
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
    if [ "${ngpu:-0}" -lt 1 ]; then
        echo "gpu-check: nvidia-smi lists no GPU: skipped"
        exit 77
    fi
    nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
    if ! "$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)'; then
        echo "gpu-check: $PY has no torch with CUDA" >&2
        exit 4
    fi
    backend=nccl
    device=cuda
    [ "$ngpu" -ge 2 ] && nranks=2 || nranks=1
else
    echo "gpu-check: --cpu-dry-run: two CPU ranks with gloo (checks the script, not a GPU)"
    backend=gloo
    device=cpu
    nranks=${GPU_CHECK_RANKS:-2}     # 1 exercises the one-GPU path (--alone)
fi
if [ ! -x "$HETSIM" ]; then
    echo "gpu-check: no hetsim at $HETSIM (build it: cmake -S . -B build && cmake --build build)" >&2
    exit 2
fi
OUT=${OUTDIR:-$(mktemp -d /tmp/hs-gpu-check.XXXXXX)}
mkdir -p "$OUT"
echo "gpu-check: $nranks rank(s), backend $backend, model $MODEL, batch $BATCH, output $OUT"
t_start=$(date +%s)

# The real run and the bandwidth probe: one rank of plain DDP (the harness's loop without
# its profiler and hooks: same synthetic data, DataLoader, loss, SGD with momentum;
# NCCL_ALGO=Ring as hetsim profile sets it).
cat >"$OUT/real_run.py" <<'PYEOF'
import importlib.util, json, os, sys, time
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

mode, model_file, batch, iters, warmup, device_kind, out = sys.argv[1:8]
batch, iters, warmup = int(batch), int(iters), int(warmup)
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
backend = "nccl" if device_kind == "cuda" else "gloo"
if device_kind == "cuda":
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    sync = lambda: torch.cuda.synchronize(dev)
else:
    dev = torch.device("cpu")
    sync = lambda: None
dist.init_process_group(backend, rank=rank, world_size=world)
spec = importlib.util.spec_from_file_location("m", model_file)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
torch.manual_seed(1)
model = mod.build_model().to(dev)
grad_bytes = sum(p.numel() * p.element_size() for p in model.parameters() if p.requires_grad)
res = {"rank": rank, "world": world, "grad_bytes": grad_bytes}
if mode == "bw":
    x = torch.ones(grad_bytes // 4, dtype=torch.float32, device=dev)
    for _ in range(5):
        dist.all_reduce(x)
    sync()
    t0 = time.perf_counter()
    reps = 20
    for _ in range(reps):
        dist.all_reduce(x)
    sync()
    t = (time.perf_counter() - t0) / reps
    res.update(allreduce_s=t, busbw_bytes_per_s=2 * (world - 1) / world * grad_bytes / t)
else:
    shape_s, _, classes_s = getattr(mod, "SYNTHETIC", "784/10").partition("/")
    classes = int(classes_s or "10")
    n = batch * 8
    g = torch.Generator().manual_seed(7 + rank)
    if shape_s.startswith("tokens:"):
        _, length, vocab = shape_s.split(":")
        xs = torch.randint(0, int(vocab), (n, int(length)), generator=g)
    else:
        xs = torch.randn((n,) + tuple(int(v) for v in shape_s.split("x")), generator=g)
    ys = torch.randint(0, classes, (n,), generator=g)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xs, ys), batch_size=batch,
                                         shuffle=True, drop_last=True, generator=g)
    net = DDP(model, device_ids=[rank] if device_kind == "cuda" else None) if world > 1 else model
    loss_fn = getattr(mod, "build_loss", lambda: torch.nn.CrossEntropyLoss())()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    steps, it = [], iter(loader)
    if world > 1:
        dist.barrier()
    for i in range(iters):
        t0 = time.perf_counter()
        try:
            x, y = next(it)
        except StopIteration:
            it = iter(loader)
            x, y = next(it)
        x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        sync()
        steps.append(time.perf_counter() - t0)
    kept = steps[warmup:]
    res.update(step_mean_s=sum(kept) / len(kept), step_min_s=min(kept), step_max_s=max(kept))
if rank == 0:
    with open(out, "w") as f:
        json.dump(res, f)
dist.destroy_process_group()
PYEOF

# run_ranks MODE OUTFILE ITERS WARMUP: the ranks as local processes, torchrun-style.
run_ranks() {
    local pids=() r
    for ((r = 0; r < nranks; r++)); do
        RANK=$r WORLD_SIZE=$nranks LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT \
            OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} NCCL_ALGO=Ring \
            timeout 120 "$PY" "$OUT/real_run.py" "$1" "$MODEL" "$BATCH" "$3" "$4" "$device" "$2" \
            >"$OUT/real_${1}_rank$r.log" 2>&1 &
        pids+=($!)
    done
    local rc=0
    for r in "${pids[@]}"; do wait "$r" || rc=1; done
    PORT=$((PORT + 1))
    return $rc
}

jget() { "$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# 1. the link: the all-reduce of the model's gradient bytes between the ranks
bw=""
if [ "$nranks" -ge 2 ]; then
    if ! run_ranks bw "$OUT/bw.json" 0 0; then
        echo "gpu-check: the bandwidth probe failed (logs: $OUT/real_bw_rank*.log)" >&2
        exit 4
    fi
    bw=$(jget "$OUT/bw.json" busbw_bytes_per_s)
    printf 'link: all-reduce of %s B in %.3f ms: bus bandwidth %.3f GB/s\n' \
        "$(jget "$OUT/bw.json" grad_bytes)" "$("$PY" -c "print($(jget "$OUT/bw.json" allreduce_s)*1e3)")" \
        "$("$PY" -c "print($bw/1e9)")"
fi

# 2. the scenario, and hetsim profile with the harness
{
    echo "name: gpu-check"
    echo "job:"
    echo "  model: {file: $MODEL, entry: build_model}"
    echo "  dataset: {samples: $((BATCH * 64))}"
    echo "device_types:"
    # a ring needs two devices: with one GPU the second is listed but never started
    # (--alone), and the placeholder link is not used by the comparison
    echo "  - {name: gpu, count: 2, batch: $BATCH, backend: $backend}"
    echo "devices:"
    echo "  - {name: gpu-0, type: gpu, addr: 127.0.0.1}"
    echo "  - {name: gpu-1, type: gpu, addr: 127.0.0.1}"
    if [ -n "$bw" ]; then
        printf '%s\n' "network: {default_bandwidth: $(printf '%.0f' "$bw")B/s, latency: 0ns}"
    else
        echo "network: {default_bandwidth: 1GB/s, latency: 0ns}"
    fi
    echo "profiling: {python: $PY, iterations: $ITERS, warmup: $WARMUP, timeout: 120s, master_port: $PORT}"
} >"$OUT/scenario.yaml"
PORT=$((PORT + 1))
alone=()
[ "$nranks" -lt 2 ] && alone=(--alone gpu)
if ! timeout 200 "$HETSIM" profile "$OUT/scenario.yaml" -o "$OUT/prof" --hop-trials 0 "${alone[@]}" \
        >"$OUT/profile.log" 2>&1; then
    tail -20 "$OUT/profile.log" >&2
    echo "gpu-check: hetsim profile failed (log: $OUT/profile.log)" >&2
    exit 4
fi
grep -E '^(gpu |WARNING|note)' "$OUT/profile.log" || true

# 3. the Kineto traces, ingested again for the per-step table
sidecar=()
[ -f "$OUT/prof/gpu/rank0.sidecar.json" ] && sidecar=(--sidecar "$OUT/prof/gpu/rank0.sidecar.json")
traces=()
for f in "$OUT"/prof/gpu/rank[0-9].json "$OUT"/prof/gpu/rank[0-9][0-9].json; do
    [ -f "$f" ] && traces+=("$f")
done
"$HETSIM" ingest --summary "${sidecar[@]}" "${traces[@]}" | tail -8 || true

# 4. the prediction
if [ "$nranks" -ge 2 ]; then
    "$HETSIM" predict --json "$OUT/prof/scenario.yaml" >"$OUT/predict.json"
    pred=$("$PY" -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d["step_recommended_ns"] / 1e9, d["predictor_recommended"], d["step_source_ns"] / 1e9,
      d["step_extended_ns"] / 1e9, (d["step_replay_ns"] or 0) / 1e9)' "$OUT/predict.json")
else
    pred=$("$PY" -c 'import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
def t(k):
    v = p.get(k)
    if isinstance(v, dict):
        v = v.get("mean")
    if v in (None, "unknown"):
        return 0.0
    v = str(v).replace(" ", "")
    for u, f in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if v.endswith(u):
            return float(v[:-len(u)]) * f
    return 0.0
c = t("t_dl") + t("t_fwd") + t("t_bwd") + t("t_opt")
print(c, "profile-compute", c, c, c)' "$OUT/prof/gpu.profile.yaml")
fi

# 5. the real run
if ! run_ranks train "$OUT/real.json" "$REAL_ITERS" "$REAL_WARMUP"; then
    echo "gpu-check: the real run failed (logs: $OUT/real_train_rank*.log)" >&2
    exit 4
fi
real=$(jget "$OUT/real.json" step_mean_s)

read -r p_rec p_why p_src p_ext p_rep <<<"$pred"
"$PY" - "$p_rec" "$p_why" "$p_src" "$p_ext" "$p_rep" "$real" "$nranks" "$backend" <<'PYEOF'
import sys
rec, why, src, ext, rep, real = float(sys.argv[1]), sys.argv[2], *map(float, sys.argv[3:7])
print("gpu-check: %s rank(s), %s" % (sys.argv[7], sys.argv[8]))
print("  real run, mean step        %10.3f ms" % (real * 1e3))
rows = [("recommended (%s)" % why, rec), ("source", src), ("extended", ext), ("replay", rep)]
if why == "profile-compute":      # one GPU: the profile's compute against a lone rank's step
    rows = [("profile t_dl+t_fwd+t_bwd+t_opt", rec)]
for name, v in rows:
    print("  %-31s %10.3f ms   error %+6.1f%%   predicted/real %.3f"
          % (name, v * 1e3, 100 * (v - real) / real, v / real))
PYEOF
echo "gpu-check: done in $(( $(date +%s) - t_start )) s; files in $OUT"
