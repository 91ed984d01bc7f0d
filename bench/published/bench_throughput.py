#!/usr/bin/env python3
"""hetsim against published multi-node throughput tables (MLPerf Training, DeepLearningExamples, CSC).

Predicts the throughput of every multi-node configuration of a cluster from that cluster's
smallest configurations only (validation/published/README.md, "What a calibration may use"):
per-GPU compute from the reference (one-node) rows, gradient bytes from the model's
parameter count and precision, the network from the system description. Nothing is fitted
on a multi-node row. hetsim predicts through its Python binding (python/hetsim,
libhetsim.so); this program only builds scenarios, solves the compute and scores.

Inputs (committed, Apache-2.0): validation/published/mlperf-training/mlperf-throughput.csv
with mlperf-systems.csv (`--mlperf-csv`, `--mlperf-systems`), and
validation/published/dle-readmes/dle-readmes.csv (`--dle-csv`); CSC's table (no licence, never
committed) only when `--csc-csv PATH` gives the output of
validation/published/tools/extract_csc.py (mvsjober/ml-benchmarks at d5c4253c); HKBU's
ddl-benchmarks table (no licence, never committed) only when `--ddl-csv PATH` gives the output
of validation/published/tools/extract_ddlbench.py (HKBU-HPML/ddl-benchmarks at 30de09bc).

The mapping (also in the JSON's `mapping`; every item is an assumption):

* a run (MLPerf: one result file, its throughput = the median of its logged figures;
  `mllog_epoch_ms` figures turned into samples/s with 1,281,167 ImageNet training images
  per epoch; byte-identical runs resubmitted in later rounds counted once) or a table row
  (DLE) -> a configuration: nodes, GPUs per node, micro-batch per GPU b, accumulation V
  (samples per optimizer step = nodes x GPUs x b x V; MLPerf b = global / (nodes x GPUs x V),
  V = gradient_accumulation_steps or 1; DLE V = accum_steps or 1 where not printed (BioBERT,
  Transformer-XL); where DLE prints an accumulated batch per GPU A and b x V != A, A is the
  samples per GPU per step and V = round(A / b) unless the printed V is within 10 %, then
  b = A / V);
  step time T = samples per step / throughput (throughput in the table's unit: samples,
  sequences or tokens per second; Transformer-XL samples = 384 tokens (large));
* benchmarks read: MLPerf ResNet-50 and BERT-large (SSD / RetinaNet left out: their
  parameter counts are not stated in the data, and RetinaNet's v2.0+ `mllog_throughput`
  figures are not samples/s over all GPUs as logged by the other benchmarks); DLE
  BERT-large, BioBERT-base, Transformer-XL large (Transformer-XL base has no multi-node row);
  CSC every benchmark of ResNet-50 (32 images per GPU) and GPT-Neo-125M run_clm (2 sequences
  per GPU), V = 1 (the scripts' defaults at d5c4253c; a row's date may have run other
  scripts: not checked); DDL (ddl-benchmarks) ResNet-50 (64 images per GPU), BERT-Large (8
  sentences) and BERT-Base (64 sentences), V = 1, the Horovod all-reduce rows only (BytePS
  parameter-server rows skipped and counted), the measured figure the mean of 5 runs (its std
  in the row); the table's "1 GPU" column not read (a constant in the authors' plotting
  script);
* gradient bytes M = parameters x 2 (mixed precision: FP16/BF16 gradients) or x 4
  (fp32/tf32): ResNet-50 25,557,032 (torchvision's count, as in pollux-osdi21/README.md);
  BERT-large 335 M (mlperf-training/README.md) and 330 M (dle-readmes/README.md, the same
  model as that README rounds it); BioBERT-base 110 M (dle-readmes/README.md);
  Transformer-XL large 257 M (Dai et al., ACL 2019, Table 1, WikiText-103 "Large": 18
  layers, d_model 1024, as DLE's large); CSC: x 4 always (fp32 gradients: torch.amp and
  run_clm --fp16 keep fp32 parameters, DeepSpeed's config enables no fp16), ResNet-50 as
  above, GPT-Neo-125M 125 M (its name); DDL: x 4 (fp32), ResNet-50 as above, BERT-Large 335
  M, BERT-Base 110 M;
* groups: a target is predicted from the reference configurations of its group (MLPerf:
  cluster, benchmark, GPU model (name without memory-independent suffixes), GPUs per node;
  DLE: cluster, README, model, sequence length, precision, GPUs per node; CSC: cluster,
  benchmark, framework, date, GPUs per node, as csc-ml-benchmarks/README.md asks; DDL: cluster,
  model, connection, method, GPUs per node); the references
  are the group's configurations with the fewest nodes (1 where there is one; else, as for
  ML-clemson-r750, the smallest node count, and the targets are the larger ones); of those,
  the ones of the target's own round (MLPerf) or own table (DLE heading) where there are
  any, else all of them;
* compute, per predictor: on each reference the per-micro-batch compute C (t_fwd + t_bwd,
  t_bwd = 2/3 C) is solved (regula falsi, Illinois) so that hetsim's prediction of the
  reference configuration equals its measured T (so C is the one-node step less what that
  predictor does not hide of the intra-node all-reduce); C(b) at the target's micro-batch:
  the solved point at b (mean over references at b), linear between the two nearest solved
  micro-batches inside their range, proportional (C x b / b_ref, constant time per sample)
  from the nearest outside it;
* network (`nodes` form): one kind, `count` = nodes, `devices` = GPUs per node,
  intra_bandwidth = the GPU's NVLink bandwidth per direction from its public spec (V100
  SXM2 150 GB/s = 6 links x 25 GB/s, A100 SXM 300 GB/s = 12 x 25, H100 SXM 450 GB/s = 18 x
  25; PCIe cards: PCIe 3.0 x16 16 GB/s (V100), 4.0 x16 32 GB/s (A100, A30), 5.0 x16 64
  GB/s (H100)); NICs from the system description: MLPerf `host_networking` of the target
  system ("Nx ... R Gb/s", its `Compute:` part where it has one; "1Gb Ethernet" = 1 x 1
  Gb/s), DLE from NVIDIA's system specs (DGX-1 4 x 100 Gb/s EDR, DGX-2H 8 x 100 Gb/s EDR,
  DGX A100 8 x 200 Gb/s HDR), CSC from CSC_NODES below (Puhti 2 x 100 Gb/s, Mahti 4 x 200
  Gb/s (count assumed), LUMI-G 4 x 200 Gb/s; LUMI's intra-node 50 GB/s), DDL one NIC of the
  connection's stated rate (10 Gb/s, or 100 Gb/s for both InfiniBand rows, TCP over IPoIB
  included) and V100 PCIe inside a host; nics = N,
  nic_bandwidth = R, inter_bandwidth = N x R;
  latencies 0;
* predictors: collective ring, hierarchical, tree, auto, each with overlap `none`
  (step = compute + all-reduce) and `buckets` (25 MiB buckets, bucket b ready at
  t_bwd x bytes_up_to_b / M of the last micro-batch's backward), each figure `replay`
  (step_replay_ns, 4 steps) and `closed` (step_extended_ns); naive `perfect`: the reference
  time per micro-batch interpolated in b as C above, x V, throughput = GPUs x b x V / that
  (perfect scaling); naive `nodes`: the reference throughput nearest in b x nodes /
  reference nodes;
* scored: throughput, relative error (predicted - measured) / measured per run, MAPE per
  cluster and predictor over the targets (multi-node runs); predicted step = samples per
  step / predicted throughput is in the JSON too.

Sets: the held-apart clusters are HELD_APART below (validation/published/README.md). The
calibration mode drops every row of them (and every row whose `set` is not `calibration`)
as it reads, before any figure is parsed, and reports only their count; a row whose `set`
says calibration but whose cluster is held apart, or `--clusters` naming a held-apart
cluster, is refused (exit 2).

Held-apart mode (pre-registered; the coordinator runs it once, with HEAD = COMMIT and a
clean tree):
  bench_throughput.py --held-apart --frozen COMMIT --csc-csv PATH --json FILE
(PATH: extract_csc.py's output of mvsjober/ml-benchmarks at d5c4253c, never committed)
reads the same committed CSVs, keeps only the held-apart clusters' rows (ML-dell-dss8440,
ML-dell-r750xa, ML-azure-ndv4, ML-hpe-xl675d, ML-clemson-r750, DLE-dgx1, CSC-puhti) and
applies the rules above unchanged: references = each group's one-node configurations
(ML-clemson-r750: its 8 x 2 BERT runs, the smallest node count; DLE-dgx1 BioBERT: the 1 x 8
rows of its own table; CSC-puhti: the one-node 4-GPU row of the same benchmark, framework
and date), targets = the configurations with more nodes than their references, the same 16
hetsim predictors and the two naive ones. Primary metric: the MAPE of throughput per cluster
over its multi-node runs (every run; MLPerf resubmissions counted once), predictor
`replay/tree/none` (the best pooled MAPE on the calibration clusters; docs/accuracy.md's
pre-registration); every other predictor is
reported beside it, `naive/perfect` the baseline to beat. In that mode the per-run listing
is not printed (the JSON holds the rows).
DDL-hkbu (held apart, a later round; docs/accuracy.md "DDL-hkbu: a fourth held-apart set"):
  bench_throughput.py --held-apart --frozen COMMIT --no-mlperf --no-dle --ddl-csv PATH --json FILE
references = each group's one-host (4-GPU) row, targets = its 2-, 4- and 8-host rows.

Usage:
  bench_throughput.py [--mlperf-csv P] [--mlperf-systems P] [--dle-csv P] [--csc-csv P]
                      [--ddl-csv P] [--no-mlperf] [--no-dle] [--clusters C1,C2] [--lib LIBHETSIM]
                      [--json FILE]
  bench_throughput.py --held-apart --frozen COMMIT [--csc-csv P] [--ddl-csv P] [--no-mlperf]
                      [--no-dle] [--json FILE]  (final only)

Exit status: 0 ok, 2 bad arguments, a refused mode or row, 1 hetsim failed on some row.
"""
import argparse
import csv
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, HERE)
import bench_published as bp  # noqa: E402  (ns(), frozen_commit(), head_desc(), write_json())

PUB = os.path.join(ROOT, 'validation', 'published')
ML_CSV = os.path.join(PUB, 'mlperf-training', 'mlperf-throughput.csv')
ML_SYS = os.path.join(PUB, 'mlperf-training', 'mlperf-systems.csv')
DLE_CSV = os.path.join(PUB, 'dle-readmes', 'dle-readmes.csv')
# validation/published/README.md, "Calibration and held-apart sets"
HELD_APART = ('ML-dell-dss8440', 'ML-dell-r750xa', 'ML-azure-ndv4', 'ML-hpe-xl675d',
              'ML-clemson-r750', 'DLE-dgx1', 'CSC-puhti', 'DDL-hkbu')
IMAGENET_TRAIN = 1281167
PARAMS = {('mlperf', 'resnet'): 25557032, ('mlperf', 'bert'): 335000000,
          ('dle', 'BERT-large'): 330000000, ('dle', 'BioBERT-base'): 110000000,
          ('dle', 'Transformer-XL large'): 257000000}
# CSC (extract_csc.py's `model` column): torchvision ResNet-50 and GPT-Neo-125M; every CSC
# run all-reduces fp32 gradients (torch.amp autocast + GradScaler and run_clm --fp16 keep
# fp32 parameters; DeepSpeed's ds_config_benchmark.json enables no fp16): 4 bytes a parameter
CSC_PARAMS = {'ResNet': 25557032, 'gpt-neo-125M': 125000000}
# CSC nodes: (chip, intra-node bytes/s, NICs, bytes/s each). Puhti AI: 4 V100 SXM2 with NVLink,
# dual-rail HDR100 (docs.csc.fi "Technical details about Puhti"); Mahti GPU: 4 A100 SXM4,
# InfiniBand HDR, 4 x 200 Gb/s assumed (the BullSequana XH2000 GPU blade's two dual-port HDR
# cards, as documented for Vega's identical nodes; Mahti's own count not found); LUMI-G: 8
# MI250X GCDs, 4 x 200 Gb/s Slingshot-11, GCD-GCD Infinity Fabric 50 GB/s a direction (the
# slowest ring edge, one xGMI link; from AMD's public figures, not checked here)
CSC_NODES = {'CSC-puhti': ('V100', 150e9, 2, 100e9 / 8), 'CSC-mahti': ('A100', 300e9, 4, 200e9 / 8),
             'CSC-lumi': ('MI250X', 50e9, 4, 200e9 / 8)}
# DDL-hkbu (extract_ddlbench.py's `dnn` column; ddl-benchmarks/README.md): fp32 gradients (the
# scripts' --fp16 is off): 4 bytes a parameter; ResNet-50 as above, BERT-Large BertForPreTraining
# 335 M (as MLPerf's BERT-large above), BERT-Base 110 M (as BioBERT-base above)
DDL_PARAMS = {'ResNet-50': 25557032, 'BERT-Large': 335000000, 'BERT-Base': 110000000}
# DDL-hkbu's hosts: 4 V100 PCIe (PCIe 3.0 x16 inside a host), one NIC of the connection each
# (the paper's abstract: "a 32-GPU cluster with both 10Gbps Ethernet and 100Gbps InfiniBand"): the
# stated rate, whatever the transport (TCP over IPoIB included)
DDL_NETS = {'10GbE with TCP/IP': 10e9 / 8, '100GbIB with RDMA': 100e9 / 8,
            '100GbE with TCP/IP': 100e9 / 8}
TOKENS_PER_SAMPLE = {'Transformer-XL large': 384}
NVLINK_GBS = {'V100': 150, 'A100': 300, 'H100': 450}
PCIE_GBS = {'V100': 16, 'A100': 32, 'A30': 32, 'H100': 64}
DGX = {'DGX-1': ('V100', 4, 100e9), 'DGX-2H': ('V100', 8, 100e9), 'DGX A100': ('A100', 8, 200e9)}
BUCKET_BYTES = 25 * 1024 * 1024
BWD_FRAC = 2.0 / 3.0
REPLAY_STEPS = 4
COLLECTIVES = ['ring', 'hierarchical', 'tree', 'auto']
OVERLAPS = ['buckets', 'none']
FIGURES = {'replay': 'step_replay_ns', 'closed': 'step_extended_ns'}
PRIMARY = 'replay/tree/none'   # chosen on the calibration set (docs/accuracy.md, pre-registration)
TOL = 1e-6
MAX_IT = 80


def die(msg, code=2):
    sys.stderr.write('bench_throughput: %s\n' % msg)
    sys.exit(code)


def skip(skipped, why):
    """Counts one row left out for the reason why."""
    skipped[why] = skipped.get(why, 0) + 1


# ---- reading: held-apart rows leave here, before any figure is parsed ----------------------

def read_rows(path, held_mode, dropped):
    """The rows of one CSV of the wanted set. Calibration mode: rows of a held-apart cluster
    or with set != calibration are dropped and counted (dropped[path]); a held-apart cluster
    labelled calibration is refused (exit 2). Held-apart mode: only held-apart rows."""
    try:
        with open(path) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith('#')))
    except OSError as e:
        die('cannot read %s: %s' % (path, e))
    if rows and ('cluster' not in rows[0] or 'set' not in rows[0]):
        die('%s: no cluster/set columns' % path)
    if held_mode:
        return [r for r in rows if r['cluster'] in HELD_APART]
    bad = sum(1 for r in rows if r['cluster'] in HELD_APART and r['set'] == 'calibration')
    if bad:
        die('%s: %d row(s) of a held-apart cluster labelled calibration: refused; the '
            'calibration mode never reads held-apart rows' % (path, bad))
    keep = [r for r in rows if r['cluster'] not in HELD_APART and r['set'] == 'calibration']
    dropped[os.path.basename(path)] = len(rows) - len(keep)
    return keep


def gpu_short(name):
    """'NVIDIA A100-SXM4-80GB (500W)' -> ('A100', 'SXM', 'A100-SXM-80GB')."""
    n = re.sub(r'\(.*?\)|\bCTS\b|NVIDIA|Nvidia|Tesla', ' ', name).strip().upper()
    n = re.sub(r'\s+', '-', n)
    n = re.sub(r'SXM\d?', 'SXM', n)
    chip = re.match(r'(V100S?|A100|A30|H100)', n)
    form = 'PCIE' if 'PCIE' in n else 'SXM'
    return (chip.group(1).rstrip('S') if chip else None), form, n


def intra_bw(chip, form):
    table = PCIE_GBS if form == 'PCIE' else NVLINK_GBS
    g = table.get(chip)
    return g * 1e9 if g else None


FABRIC = re.compile(r'\bIB\b|InfiniBand|\b[HEN]DR|Omni-Path|Slingshot|RoCE', re.I)


def parse_nics(text):
    """(nics, bytes/s each) of a host_networking text, or None. The part after 'Compute:' when
    the text labels it; else, of several entries (split at ',', ';', '+'), the first that names a
    compute fabric (InfiniBand, Omni-Path, ...), not one marked Management: '1x Ethernet 40Gb/Sec,
    8x ConnectX-6 IB HDR 200Gb/Sec' is 8 x 200 Gb/s."""
    t = text.split('Compute:', 1)[1] if 'Compute:' in text else text
    parts = [p for p in re.split(r'[,;+]', t) if p.strip() and not p.strip().startswith('Management')]
    fabric = [p for p in parts if FABRIC.search(p)]
    if len(parts) > 1 and fabric:
        t = fabric[0]
    m = re.search(r'(\d+)\s*x\s*[^,;]*?(\d+(?:\.\d+)?)\s*Gb', t, re.I)
    if m:
        return int(m.group(1)), float(m.group(2)) * 1e9 / 8
    m = re.search(r'(\d+(?:\.\d+)?)\s*Gb\w*\s+Ethernet', t, re.I)
    if m:
        return 1, float(m.group(1)) * 1e9 / 8
    return None


def mlperf_runs(opts, held, dropped, skipped):
    sysrows = {(r['round'], r['system']): r for r in read_rows(opts.mlperf_systems, held, dropped)}
    runs = {}
    for r in read_rows(opts.mlperf_csv, held, dropped):
        if r['benchmark'] not in ('resnet', 'bert'):
            skip(skipped, 'mlperf benchmark %s (not read)' % r['benchmark'])
            continue
        k = (r['cluster'], r['round'], r['system'], r['benchmark'], r['run'])
        x = runs.setdefault(k, {'row': r, 'vals': []})
        v = float(r['value'])
        x['vals'].append(IMAGENET_TRAIN / (v / 1000.0) if r['kind'] == 'mllog_epoch_ms' else v)
    out, seen = [], set()
    for (c, rnd, system, bench, run), x in sorted(runs.items()):
        r = x['row']
        nodes, gpn = int(r['nodes']), int(r['gpus_per_node'])
        v = int(r['gradient_accumulation_steps'] or 1)
        gb = int(r['global_batch_size'])
        dup = (c, system, bench, nodes, gpn, gb, v, tuple(x['vals']))
        if dup in seen:
            skip(skipped, 'mlperf run resubmitted unchanged (counted once)')
            continue
        seen.add(dup)
        s = sysrows.get((rnd, system))
        if gb % (nodes * gpn * v) or s is None:
            skip(skipped, 'mlperf run without whole micro-batch or system')
            continue
        chip, form, gname = gpu_short(s['accelerator_model_name'])
        out.append({'source': 'mlperf', 'cluster': c, 'run': '%s/%s/%s/%s' % (rnd, system, bench, run),
                    'config': (rnd, system, bench, nodes, gpn, gb, v),
                    'group': ('mlperf', c, bench, gname, gpn), 'pref': rnd,
                    'model': bench, 'nodes': nodes, 'gpn': gpn, 'micro': gb // (nodes * gpn * v),
                    'V': v, 'samples_per_step': gb, 'grad_bytes': 2 * PARAMS[('mlperf', bench)],
                    'throughput': statistics.median(x['vals']), 'figures': len(x['vals']),
                    'intra_bps': intra_bw(chip, form), 'nics': parse_nics(s['host_networking'] or ''),
                    'unit': 'samples/s'})
    return out


def dle_runs(opts, held, dropped, skipped):
    out = []
    for r in read_rows(opts.dle_csv, held, dropped):
        key = ('dle', r['model'])
        if key not in PARAMS or r['system'] not in DGX:
            skip(skipped, 'dle model or system not modelled')
            continue
        try:
            b = float(r['batch_per_gpu'])
            v = int(r['accum_steps']) if r['accum_steps'] else 1
            thr = float(r['throughput'])
        except ValueError:
            skip(skipped, 'dle row with unreadable batch/accumulation')
            continue
        if r['accum_batch_per_gpu']:
            a = float(r['accum_batch_per_gpu'])
            if abs(b * v - a) > 1e-9:
                if abs(b * v - a) > 0.1 * a:
                    v = max(1, int(round(a / b)))
                b = a / v
        nodes, gpn = int(r['nodes']), int(r['gpus_per_node'])
        chip, nics, nic_bps = DGX[r['system']]
        tok = TOKENS_PER_SAMPLE.get(r['model'], 1)
        out.append({'source': 'dle', 'cluster': r['cluster'],
                    'run': '%s:%s' % (r['readme'], r['line']),
                    'config': (r['readme'], r['line'], r['precision']),
                    'group': ('dle', r['cluster'], r['readme'], r['model'], r['seq_len'],
                              r['precision'], gpn),
                    'pref': r['heading'], 'model': r['model'], 'nodes': nodes, 'gpn': gpn,
                    'micro': b, 'V': v, 'samples_per_step': nodes * gpn * b * v * tok,
                    'grad_bytes': PARAMS[key] * (2 if r['precision'] == 'mixed' else 4),
                    'throughput': thr, 'figures': 1, 'intra_bps': intra_bw(chip, 'SXM'),
                    'nics': (nics, nic_bps / 8), 'unit': r['throughput_unit']})
    return out


def csc_runs(opts, held, dropped, skipped):
    """CSC rows of extract_csc.py's output: group = cluster, benchmark, framework and date
    (the README: pair a two-node row with one-node rows of the same date and framework)."""
    out = []
    for r in read_rows(opts.csc_csv, held, dropped):
        model = next((k for k in CSC_PARAMS if k in r['model']), None)
        if model is None or r['cluster'] not in CSC_NODES or not r['batch_per_gpu_at_ref']:
            skip(skipped, 'csc row without a modelled model')
            continue
        try:
            value = float(r['value'])
        except ValueError:      # the table records a failed run ('ERROR'): no figure
            skip(skipped, 'csc row without a figure (failed run)')
            continue
        chip, intra, nics, nic_bps = CSC_NODES[r['cluster']]
        nodes, gpn, b = int(r['nodes']), int(r['gpus_per_node']), int(r['batch_per_gpu_at_ref'])
        out.append({'source': 'csc', 'cluster': r['cluster'], 'run': 'results.md:%s' % r['line'],
                    'config': (r['line'],),
                    'group': ('csc', r['cluster'], r['benchmark'], r['framework'], r['date'], gpn),
                    'pref': r['date'], 'model': r['benchmark'], 'nodes': nodes, 'gpn': gpn,
                    'micro': b, 'V': 1, 'samples_per_step': nodes * gpn * b,
                    'grad_bytes': 4 * CSC_PARAMS[model], 'throughput': value,
                    'figures': 1, 'intra_bps': intra, 'nics': (nics, nic_bps), 'unit': r['unit']})
    return out


def ddl_runs(opts, held, dropped, skipped):
    """DDL-hkbu rows of extract_ddlbench.py's output: the Horovod all-reduce methods only (the
    BytePS parameter-server rows are another architecture: skipped and counted); group =
    cluster, model, connection, method; the one-host (4-GPU) row the reference; the table's
    '1 GPU' constant not read (plots.py's placeholder, not a logged run)."""
    out = []
    for r in read_rows(opts.ddl_csv, held, dropped):
        if r['dnn'] not in DDL_PARAMS or r['connection'] not in DDL_NETS:
            skip(skipped, 'ddl row without a modelled model or connection')
            continue
        if not r['architecture'].startswith('Horovod'):
            skip(skipped, 'ddl parameter-server row (BytePS: not modelled)')
            continue
        nodes, gpn, b = int(r['nodes']), int(r['gpus_per_node']), int(r['batch_per_gpu'])
        out.append({'source': 'ddl', 'cluster': r['cluster'],
                    'run': 'README.md:%s/%dx%d' % (r['line'], nodes, gpn),
                    'config': (r['line'], nodes, gpn),
                    'group': ('ddl', r['cluster'], r['dnn'], r['connection'], r['method'], gpn),
                    'pref': r['method'], 'model': r['dnn'], 'nodes': nodes, 'gpn': gpn,
                    'micro': b, 'V': 1, 'samples_per_step': nodes * gpn * b,
                    'grad_bytes': 4 * DDL_PARAMS[r['dnn']],
                    'throughput': float(r['throughput_mean']),
                    'throughput_std': float(r['throughput_std']), 'figures': 5,
                    'intra_bps': intra_bw('V100', 'PCIE'), 'nics': (1, DDL_NETS[r['connection']]),
                    'unit': r['unit'], 'connection': r['connection'], 'method': r['method']})
    return out


# ---- scenarios and the compute solve --------------------------------------------------------

def scenario(x, comp_s, coll, ov):
    t_bwd = BWD_FRAC * comp_s
    m = int(x['grad_bytes'])
    prof = {'t_fwd': bp.ns(comp_s - t_bwd), 't_bwd': bp.ns(t_bwd), 'gradient_bytes': '%dB' % m}
    if ov == 'buckets':
        bk, cum = [], 0
        while cum < m:
            s = min(BUCKET_BYTES, m - cum)
            cum += s
            bk.append({'bytes': '%dB' % s, 'ready': bp.ns(t_bwd * cum / m)})
        prof['buckets'] = bk
    micro = max(1, int(round(x['micro'])))
    typ = {'name': 'gpu', 'batch': micro * x['V'], 'profile': prof}
    if x['V'] > 1:
        typ['micro_batches'] = x['V']
    kind = {'name': 'n', 'type': 'gpu', 'devices': x['gpn'], 'count': x['nodes']}
    if x['gpn'] > 1:
        kind['intra_bandwidth'] = '%dB/s' % round(x['intra_bps'])
    nodes = {'kinds': [kind], 'inter_latency': '0ns'}
    if x['nodes'] > 1:
        n, bps = x['nics']
        kind['nics'], kind['nic_bandwidth'] = n, '%dB/s' % round(bps)
        nodes['inter_bandwidth'] = '%dB/s' % round(n * bps)
    else:
        nodes['inter_bandwidth'] = '1000000000B/s'
    doc = {'name': 'throughput', 'device_types': [typ], 'nodes': nodes,
           'simulate': {'steps': REPLAY_STEPS, 'overlap': ov}}
    if coll != 'ring':
        doc['collective'] = coll
    return doc


class Predictor:
    """hetsim through its Python binding, cached by (configuration, compute, variant)."""

    def __init__(self, hetsim):
        self.hs, self.cache, self.calls, self.errors, self.missing = hetsim, {}, 0, {}, {}

    def step(self, x, comp_s, coll, ov):
        key = (x['nodes'], x['gpn'], x['micro'], x['V'], x['grad_bytes'], x['intra_bps'],
               x['nics'] if x['nodes'] > 1 else None, comp_s, coll, ov)
        if (x['gpn'] > 1 and x['intra_bps'] is None) or (x['nodes'] > 1 and x['nics'] is None):
            self.missing.setdefault('network', 'no intra-node or NIC bandwidth for %s '
                                    '(unknown GPU or host_networking text): not predicted' % x['run'])
            return None
        if key not in self.cache:
            self.calls += 1
            try:
                a = self.hs.Scenario.from_dict(scenario(x, comp_s, coll, ov)).predict()
                self.cache[key] = {f: (a[k] / 1e9 if a[k] is not None else None)
                                   for f, k in FIGURES.items()}
                for f, k in FIGURES.items():
                    if a[k] is None:
                        self.missing.setdefault('%s %s/%s' % (f, coll, ov), a['predictor_why'])
            except self.hs.Error as e:
                self.errors.setdefault('%s/%s' % (coll, ov), str(getattr(e, 'message', e)))
                self.cache[key] = None
        return self.cache[key]


def solve_compute(pr, x, t_meas, coll, ov, fig):
    """(C per micro-batch, note) with hetsim's step of reference x = t_meas."""
    def f(c):
        r = pr.step(x, c, coll, ov)
        return None if r is None or r[fig] is None else (r[fig] - t_meas) / t_meas
    lo, hi = t_meas / x['V'] * 1e-6, t_meas / x['V']
    flo, fhi = f(lo), f(hi)
    if flo is None or fhi is None:
        return None, 'hetsim failed on the reference'
    if flo > 0:
        return lo, 'bound: the all-reduce alone exceeds the measured reference step'
    if fhi < 0:
        return hi, 'bound: compute = whole step still under-predicts'
    c, ok = bp.illinois(f, lo, flo, hi, fhi, TOL, MAX_IT)
    return (c, None) if ok else (None, 'hetsim failed on the reference')

def interp(points, b):
    """points {b: value per micro-batch}: the value at b (see the mapping's `compute`)."""
    bs = sorted(points)
    if b in points:
        return points[b]
    if b < bs[0]:
        return points[bs[0]] * b / bs[0]
    if b > bs[-1]:
        return points[bs[-1]] * b / bs[-1]
    hi = next(i for i, v in enumerate(bs) if v > b)
    b0, b1 = bs[hi - 1], bs[hi]
    return points[b0] + (points[b1] - points[b0]) * (b - b0) / (b1 - b0)


def keys():
    return [('%s/%s/%s' % (fig, coll, ov), coll, ov, fig)
            for fig in FIGURES for ov in OVERLAPS for coll in COLLECTIVES]


# ---- configurations, references, predictions -------------------------------------------------

def configs_of(runs):
    """Runs grouped by configuration; each configuration's throughput the mean of its runs."""
    cf = {}
    for x in runs:
        cf.setdefault((x['group'], x['config']), []).append(x)
    out = []
    for (g, c), xs in sorted(cf.items(), key=lambda kv: str(kv[0])):
        y = dict(xs[0])
        y['throughput'] = sum(z['throughput'] for z in xs) / len(xs)
        y['t_step'] = y['samples_per_step'] / y['throughput']
        y['runs'] = xs
        out.append(y)
    return out


def predict_group(pr, cfgs, notes):
    """Predictions (per run rows) of one group's targets from its references."""
    n_ref = min(c['nodes'] for c in cfgs)
    refs = [c for c in cfgs if c['nodes'] == n_ref]
    targets = [c for c in cfgs if c['nodes'] > n_ref]
    if not targets:
        return refs, targets, []
    used = {id(c) for t in targets for c in ([c for c in refs if c['pref'] == t['pref']] or refs)}
    solved = {}
    for c in refs:
        if id(c) not in used:
            continue
        for k, coll, ov, fig in keys():
            cval, n = solve_compute(pr, c, c['t_step'], coll, ov, fig)
            solved[(id(c), k)] = cval
            if n:
                notes.append('%s %s %s: %s' % (c['cluster'], c['run'], k, n))
    rows = []
    for t in targets:
        rs = [c for c in refs if c['pref'] == t['pref']] or refs
        pred = {}
        tm = {}
        for c in rs:
            tm.setdefault(c['micro'], []).append(c['t_step'] / c['V'])
        tm = {b: sum(v) / len(v) for b, v in tm.items()}
        t_naive = interp(tm, t['micro']) * t['V']
        pred['naive/perfect'] = t['samples_per_step'] / t_naive
        near = min(rs, key=lambda c: (abs(c['micro'] - t['micro']), c['run']))
        pred['naive/nodes'] = near['throughput'] * t['nodes'] / near['nodes']
        for k, coll, ov, fig in keys():
            pts = {}
            for c in rs:
                if solved[(id(c), k)] is not None:
                    pts.setdefault(c['micro'], []).append(solved[(id(c), k)])
            if not pts or t['nics'] is None or t['intra_bps'] is None:
                pred[k] = None
                continue
            comp = interp({b: sum(v) / len(v) for b, v in pts.items()}, t['micro'])
            r = pr.step(t, comp, coll, ov)
            pred[k] = t['samples_per_step'] / r[fig] if r and r[fig] else None
        for x in t['runs']:
            rows.append(row_of(t, x, rs, pred))
    return refs, targets, rows


def row_of(t, x, rs, pred):
    m = x['throughput']
    return {'cluster': t['cluster'], 'source': t['source'], 'run': x['run'], 'model': t['model'],
            'nodes': t['nodes'], 'gpus_per_node': t['gpn'], 'micro_batch': t['micro'],
            'micro_batches': t['V'], 'samples_per_step': t['samples_per_step'],
            'gradient_bytes': t['grad_bytes'], 'nics': t['nics'], 'intra_bytes_per_s': t['intra_bps'],
            'unit': t['unit'], 'measured_throughput': m,
            'measured_throughput_std': x.get('throughput_std'),
            'connection': t.get('connection'), 'method': t.get('method'),
            'measured_step_s': t['samples_per_step'] / m,
            'references': sorted({c['run'] for c in rs}),
            'predicted_throughput': {k: (round(v, 4) if v else None) for k, v in pred.items()},
            'predicted_step_s': {k: (round(t['samples_per_step'] / v, 6) if v else None)
                                 for k, v in pred.items()},
            'error_pct': {k: (round(100.0 * (v - m) / m, 3) if v else None) for k, v in pred.items()}}


def score(rows, k):
    es = [r['error_pct'][k] for r in rows if r['error_pct'].get(k) is not None]
    if not es:
        return None
    return {'runs': len(es), 'missing': len(rows) - len(es),
            'mape_pct': round(sum(abs(e) for e in es) / len(es), 2),
            'worst_pct': round(max(es, key=abs), 2)}


def summarize(rows, ks):
    sel = {}
    for c in sorted({r['cluster'] for r in rows}):
        rs = [r for r in rows if r['cluster'] == c]
        sel['%s all' % c] = rs
        for m in sorted({r['model'] for r in rs}):
            sel['%s %s' % (c, m)] = [r for r in rs if r['model'] == m]
        for m in sorted({r['connection'] for r in rs if r['connection']}):
            sel['%s %s' % (c, m)] = [r for r in rs if r['connection'] == m]
    return {n: {'runs': len(rs), 'by_predictor': {k: score(rs, k) for k in ks}}
            for n, rs in sel.items()}


def short(k):
    p = k.split('/')
    if p[0] == 'naive':
        return 'naive-' + p[1]
    return '%s%s-%s' % (p[0][0].upper(), '' if p[2] == 'buckets' else '0', p[1][:4])


def print_table(doc, ks):
    print('hetsim on published throughput tables (%s set), tree %s, %s; hetsim calls %d, %.1f s'
          % (doc['set'], doc['git_head'], doc['hetsim_library'], doc['hetsim_calls'], doc['runtime_s']))
    print('rows dropped on reading (other set): %s' % doc['dropped_on_reading'])
    for k, v in doc['skipped'].items():
        print('skipped: %s: %d' % (k, v))
    for e, m in doc['hetsim_errors'].items():
        print('hetsim refused %s: %s' % (e, m))
    for e, m in doc['hetsim_figure_missing'].items():
        print('hetsim gave no %s figure (some rows): %s' % (e, m))
    print('notes: %d (in the JSON)' % len(doc['notes']))
    print('legend: R/C = replay/closed; 0 = overlap none (else buckets); ring/hier/tree/auto; '
          'throughput MAPE %, (worst signed %)')
    print('%-32s %4s ' % ('cluster / model', 'runs') + ' '.join('%12s' % short(k) for k in ks))
    for n, s in doc['summary'].items():
        cells = []
        for k in ks:
            v = s['by_predictor'].get(k)
            cells.append('%12s' % ('n/a' if not v else '%.1f(%+.0f)' % (v['mape_pct'], v['worst_pct'])))
        print('%-32s %4d ' % (n[:32], s['runs']) + ' '.join(cells))
    if doc['set'] == 'calibration':
        print('runs (measured, predicted %s, error %%):' % PRIMARY)
        for r in doc['rows']:
            p = r['predicted_throughput'].get(PRIMARY)
            print('  %-15s %-60s %3dx%-2d b=%-6g V=%-3d %12.1f %12s %8s' % (
                r['cluster'], r['run'][:60], r['nodes'], r['gpus_per_node'], r['micro_batch'],
                r['micro_batches'], r['measured_throughput'], '%.1f' % p if p else 'n/a',
                '%+.1f' % r['error_pct'][PRIMARY] if p else 'n/a'))


def main(argv):
    t0 = time.time()
    ap = argparse.ArgumentParser(prog='bench_throughput.py', description=__doc__.split('\n')[0])
    ap.add_argument('--mlperf-csv', default=ML_CSV)
    ap.add_argument('--mlperf-systems', default=ML_SYS)
    ap.add_argument('--dle-csv', default=DLE_CSV)
    ap.add_argument('--csc-csv', metavar='PATH',
                    help='extract_csc.py output (never commit it); CSC is read only when given')
    ap.add_argument('--ddl-csv', metavar='PATH',
                    help='extract_ddlbench.py output (never commit it); DDL-hkbu is read only when given')
    ap.add_argument('--no-mlperf', action='store_true')
    ap.add_argument('--no-dle', action='store_true')
    ap.add_argument('--clusters', help='only these clusters (comma list)')
    ap.add_argument('--lib', help='libhetsim.so (default: the binding\'s search, build*/)')
    ap.add_argument('--json', metavar='FILE')
    ap.add_argument('--held-apart', action='store_true')
    ap.add_argument('--frozen', metavar='COMMIT')
    opts = ap.parse_args(argv)
    want = opts.clusters.split(',') if opts.clusters else None
    commit = None
    if opts.held_apart:
        if not opts.frozen:
            die('--held-apart needs --frozen COMMIT (final, one-time report)')
        commit, why = bp.frozen_commit(opts.frozen)
        if why:
            die(why)
        sys.stderr.write('WARNING: scoring the HELD-APART clusters against hetsim frozen at %s: '
                         'the final, one-time report; tune nothing on it.\n' % commit)
    elif opts.frozen:
        die('--frozen is for --held-apart only')
    elif want and set(want) & set(HELD_APART):
        die('--clusters names held-apart cluster(s): refused in the calibration mode')
    dropped, skipped = {}, {}
    runs = []
    if not opts.no_mlperf:
        runs += mlperf_runs(opts, opts.held_apart, dropped, skipped)
    if not opts.no_dle:
        runs += dle_runs(opts, opts.held_apart, dropped, skipped)
    if opts.csc_csv:
        runs += csc_runs(opts, opts.held_apart, dropped, skipped)
    if opts.ddl_csv:
        runs += ddl_runs(opts, opts.held_apart, dropped, skipped)
    if want:
        runs = [x for x in runs if x['cluster'] in want]
    if not runs:
        die('no rows to score')
    if opts.lib:
        os.environ['HETSIM_LIBRARY'] = opts.lib
    sys.path.insert(0, os.path.join(ROOT, 'python'))
    try:
        import hetsim
    except (ImportError, OSError) as e:
        die('cannot load hetsim\'s Python binding (build libhetsim.so, or give --lib): %s' % e)
    pr = Predictor(hetsim)
    cfgs = configs_of(runs)
    groups, rows, notes = [], [], []
    for g in sorted({c['group'] for c in cfgs}, key=str):
        gc = [c for c in cfgs if c['group'] == g]
        refs, targets, rs = predict_group(pr, gc, notes)
        if not targets:
            continue
        groups.append({'group': list(g), 'references': [c['run'] for c in refs],
                       'reference_nodes': refs[0]['nodes'], 'targets': len(targets),
                       'target_runs': len(rs)})
        rows += rs
    ks = ['naive/perfect', 'naive/nodes'] + [k for k, _, _, _ in keys()]
    doc = {'format': 'hetsim.bench.throughput', 'format_version': 1,
           'hetsim_library': bp.library_path(hetsim),
           'git_head': bp.head_desc(), 'set': 'held-apart' if opts.held_apart else 'calibration',
           'frozen_commit': commit, 'command': 'bench/published/bench_throughput.py ' + ' '.join(argv),
           'metric': 'throughput, (predicted - measured) / measured per run; MAPE per cluster',
           'primary_predictor': PRIMARY, 'mapping': MAPPING,
           'clusters': sorted({x['cluster'] for x in runs}), 'dropped_on_reading': dropped,
           'skipped': skipped, 'hetsim_calls': pr.calls, 'hetsim_errors': pr.errors,
           'hetsim_figure_missing': pr.missing,
           'notes': notes, 'groups': groups, 'summary': summarize(rows, ks), 'rows': rows}
    doc['runtime_s'] = round(time.time() - t0, 1)
    print_table(doc, ks)
    if opts.json:
        bp.write_json(opts.json, doc)
    return 1 if pr.errors else 0


MAPPING = {
    'runs': 'MLPerf: one result file, throughput = median of its figures (epoch_ms -> 1,281,167 / s); '
            'unchanged resubmissions counted once; DLE: one table row',
    'benchmarks': 'MLPerf resnet, bert; DLE BERT-large, BioBERT-base, Transformer-XL large (384 tokens a '
                  'sample); CSC ResNet-50 (32 a GPU) and GPT-Neo-125M (2 a GPU) benchmarks',
    'step': 'T = samples per step / throughput; samples per step = nodes x GPUs x b x V',
    'gradient_bytes': 'params x 2 (mixed) or 4 (fp32/tf32): ResNet-50 25,557,032; BERT-large 335 M '
                      '(MLPerf, DDL) / 330 M (DLE); BioBERT-base and DDL BERT-Base 110 M; '
                      'Transformer-XL large 257 M',
    'groups': 'MLPerf: cluster, benchmark, GPU model, GPUs per node; DLE: cluster, README, model, '
              'seq_len, precision, GPUs per node; CSC: cluster, benchmark, framework, date, GPUs per node; '
              'DDL: cluster, model, connection, method, GPUs per node; references = fewest nodes; '
              'same round / table preferred',
    'compute': 'per predictor, C per micro-batch solved so hetsim reproduces the reference step; '
               'linear in b between solved points, proportional outside; t_bwd = 2/3 C',
    'network': 'nodes form; intra = NVLink per-direction spec (V100 150, A100 300, H100 450 GB/s) or '
               'PCIe x16 (16/32/64 GB/s); NICs from host_networking (MLPerf), DGX specs (DLE), '
               'the connection\'s stated rate (DDL: one NIC, 10 or 100 Gb/s); '
               'inter_bandwidth = nics x nic_bandwidth; latencies 0',
    'predictors': 'collective ring/hierarchical/tree/auto x overlap buckets (25 MiB)/none x figure '
                  'replay/closed; naive perfect (reference time per micro-batch interpolated in b); '
                  'naive nodes (reference throughput x nodes / reference nodes)',
    'scored': 'throughput error per run of every configuration with more nodes than its references',
}

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
