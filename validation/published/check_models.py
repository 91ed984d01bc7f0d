#!/usr/bin/env python3
"""How much would each all-reduce model miss on the CALIBRATION set of the published runs?

Reads virtualflow-mlsys22.yaml (beside this file) and uses only runs whose `set` is
`calibration`; it refuses to look at a held-apart run. For every multi-host run:

  compute_i  = micro_batches_i x t(type_i, micro-batch size_i)      per GPU, from the standalone
               single-GPU runs (virtual-m*: one GPU, one host), linear in the micro-batch
               size between the two sizes measured per type and model (an assumption)
  step       = max_i compute_i + T_allreduce                         (VirtualFlow reduces after
               the last micro-batch: no overlap)

T_allreduce per model, each with ONE bandwidth B per cluster and model, calibrated on the
cluster's smallest configuration only (the calibration run's step minus its compute):

  naive      T = T_cal (the smallest configuration's all-reduce time, whatever the cluster size)
  flat_ring  T = 2(N-1)/N * M / B                     N = every GPU, each a ring member
  nccl_ring  T = C_calls * L_ring(N, K) + 2(N-1)/N * M / B
             the ring NCCL builds: each host's GPUs chained, one NIC hop out of each host
             per channel, the channels sharing the NIC: the bytes through a NIC are the
             same 2(N-1)/N * M, so only NCCL's latency model (tuning.cc, Simple protocol,
             per-step NET/PCI latencies, the 1.9x ring plateau for sm < 80) is added,
             once per collective call (TensorFlow issues one call per gradient tensor)
  tree       T = C_calls * L_tree(N, K) + max_node bytes_through_NIC(K) / B
             NCCL's double binary tree across the K hosts (chain inside a host): a host
             sends M/2 per tree to its parent and M/2 per tree to each child
  host_ring  T = 2(K-1)/K * M / B                     a two-level scheme's NIC bytes
             (reduce inside the host for free, then a ring over the K hosts): for reference

Output: per run the measured step, each model's prediction and error, then MAPE per model
over the mixed runs and over the homogeneous multi-GPU runs. Figures only; nothing is
asserted. Usage: python3 check_models.py [--json]
"""
import json
import math
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = yaml.safe_load(open(os.path.join(HERE, 'virtualflow-mlsys22.yaml')))

MODEL_KEY = {('resnet', 'imagenet'): 'resnet-imagenet', ('transformer', ''): 'transformer',
             ('bert', 'CoLA'): 'bert', ('resnet', 'cifar10'): 'resnet-cifar10'}
# Gradient tensors (collective calls per step): ResNet-50 of tensorflow/models official has
# 53 convolutions without bias, 53 batch norms (gamma, beta) and the dense layer (kernel, bias).
# The Transformer and BERT counts were not derived here: their latency term is left out (0).
CALLS = {'resnet-imagenet': 161}

RUNS = {r['run'].replace('virtual-', ''): r for r in DATA['runs']}


def model_of(r):
    ds = r['dataset'] if r['model'] != 'transformer' else ''
    return MODEL_KEY[(r['model'], ds)]


def short_type(t):
    return 'V100' if t.startswith('V100') else 'P100'


# Standalone single-GPU step times (one micro-batch, one optimizer update), per model and
# type: (micro-batch size, median step s) from the m runs of cluster VF-D.
STANDALONE = {}
for name, r in RUNS.items():
    if r['kind'] != 'standalone' or not name.startswith('m'):
        continue
    p = r['processes'][0]
    key = (model_of(r), short_type(p['type']))
    STANDALONE.setdefault(key, []).append((p['batch_per_gpu'], r['step_s_median']))


def t_micro(model, typ, b):
    pts = sorted(STANDALONE[(model, typ)])
    if len(pts) == 1:
        return pts[0][1]          # one size measured: use it as is
    (b0, t0), (b1, t1) = pts[0], pts[-1]
    return t0 + (t1 - t0) * (b - b0) / (b1 - b0)


def compute_of(r):
    m = model_of(r)
    out = []
    for p in r['processes']:
        micro = p['batch_per_gpu'] // p['micro_batches']
        c = p['micro_batches'] * t_micro(m, short_type(p['type']), micro)
        out += [c] * p['gpus']
    return out


# --- NCCL's latency model (src/graph/tuning.cc at 5067397c, Simple protocol, us) -------------
BASE_LAT = {'ring': 8.4, 'tree': 8.4}
HW_LAT_NET = {'ring': 14.0, 'tree': 14.0}
HW_LAT_PCI = {'ring': 5.7, 'tree': 4.0}


def lat_ring_us(n, k):
    ppn = n / k
    inter = HW_LAT_NET['tree'] if ppn == 1 else HW_LAT_NET['ring']
    intra = max(HW_LAT_PCI['ring'], 3.0)          # netOverhead 1 us x 3 for Simple (Intel)
    steps, inter_steps = 2 * (n - 1), 2 * (k - 1)
    lat = BASE_LAT['ring'] + (steps - inter_steps) * intra + inter_steps * inter
    return lat * 1.9                               # ring plateau, compute capability < 8.0


def lat_tree_us(n, k):
    intra = HW_LAT_PCI['tree']
    inter = HW_LAT_NET['tree']
    return BASE_LAT['tree'] + 2 * ((n // k - 1) * intra + int(math.log2(k)) * inter)


# --- double binary tree across K hosts: bytes through the busiest host's NIC ----------------
def btree_links(k):
    """Parent of every rank 0..k-1 in an in-order binary tree rooted at 0 whose interior
    ranks are the even ones (the shape of NCCL's first tree, trees.cc's illustration)."""
    parent = {0: -1}
    def build(lo, hi, par):   # ranks lo..hi-1 hang below par; pick the middle power-of-2 rank
        if lo >= hi:
            return
        # the subtree root is the rank in [lo, hi) with the most trailing zeros
        best = max(range(lo, hi), key=lambda x: (x & -x) if x else 1 << 30)
        parent[best] = par
        build(lo, best, best)
        build(best + 1, hi, best)
    build(1, k, 0)
    return parent


def dtree_nic_bytes(k, m):
    if k == 1:
        return 0.0
    p0 = btree_links(k)
    if k % 2 == 0:
        p1 = {k - 1 - r: (-1 if p == -1 else k - 1 - p) for r, p in p0.items()}
    else:
        p1 = {(r + 1) % k: (-1 if p == -1 else (p + 1) % k) for r, p in p0.items()}
    worst = 0.0
    for node in range(k):
        out = 0.0
        for par in (p0, p1):
            if par[node] != -1:
                out += m / 2                                   # up to the parent
            out += sum(1 for r, p in par.items() if p == node) * m / 2   # down to each child
        worst = max(worst, out)
    return worst


def shape(r):
    n = sum(p['gpus'] for p in r['processes'])
    k = len({p['host'] for p in r['processes']})
    return n, k


def allreduce_models(r, m_bytes, calls, b):
    n, k = shape(r)
    return {
        'flat_ring': 2 * (n - 1) / n * m_bytes / b['flat_ring'],
        'nccl_ring': calls * lat_ring_us(n, k) * 1e-6 + 2 * (n - 1) / n * m_bytes / b['nccl_ring'],
        'tree': calls * lat_tree_us(n, k) * 1e-6 + dtree_nic_bytes(k, m_bytes) / b['tree'],
        'host_ring': 2 * (k - 1) / k * m_bytes / b['host_ring'],
    }


def calibrate(cal_runs, m_bytes, calls):
    """One bandwidth per model from the calibration runs' all-reduce times (their mean)."""
    bs = {'flat_ring': [], 'nccl_ring': [], 'tree': [], 'host_ring': []}
    t_cal = []
    for r in cal_runs:
        t = r['step_s_median'] - max(compute_of(r))
        t_cal.append(t)
        n, k = shape(r)
        bs['flat_ring'].append(2 * (n - 1) / n * m_bytes / t)
        bs['nccl_ring'].append(2 * (n - 1) / n * m_bytes / (t - calls * lat_ring_us(n, k) * 1e-6))
        bs['tree'].append(dtree_nic_bytes(k, m_bytes) / (t - calls * lat_tree_us(n, k) * 1e-6))
        bs['host_ring'].append(2 * (k - 1) / k * m_bytes / t)
    return {a: sum(v) / len(v) for a, v in bs.items()}, sum(t_cal) / len(t_cal)


# Calibration groups: (cluster, model) -> the smallest-configuration runs; then the runs predicted.
GROUPS = [
    ('VF-A', 'resnet-imagenet', ['c1'], ['c2', 'd1a', 'd1b', 'd1c', 'd2a', 'd2b', 'd2c', 'd2d', 'd3']),
    ('VF-D', 'resnet-imagenet', ['i4', 'i5'], ['i6', 'i8']),
    ('VF-D', 'resnet-imagenet (1 sample per GPU)', ['i1', 'i2'], ['i3', 'i7']),
    ('VF-D', 'bert', ['l4', 'l5'], ['l6', 'l8']),
    ('VF-D', 'bert (1 sample per GPU)', ['l1', 'l2'], ['l3', 'l7']),
    ('VF-D', 'transformer', ['k4', 'k5'], ['k6', 'k8']),
]
MODELS = ['naive', 'flat_ring', 'nccl_ring', 'tree', 'host_ring']


def main():
    rows = []
    for cluster, label, cal, pred in GROUPS:
        for name in cal + pred:
            if RUNS[name]['set'] != 'calibration':
                sys.exit('refusing: %s is held apart' % name)
        model = label.split(' ')[0]
        m_bytes = DATA['models'][model]['gradient_bytes']
        calls = CALLS.get(model, 0)
        b, t_cal = calibrate([RUNS[x] for x in cal], m_bytes, calls)
        for name in pred:
            r = RUNS[name]
            comp = max(compute_of(r))
            t = allreduce_models(r, m_bytes, calls, b)
            t['naive'] = t_cal
            n, k = shape(r)
            meas = r['step_s_median']
            row = {'cluster': cluster, 'group': label, 'run': name, 'kind': r['kind'], 'gpus': n,
                   'hosts': k, 'measured_s': meas, 'compute_s': round(comp, 4),
                   'allreduce_measured_s': round(meas - comp, 4), 'allreduce_cal_s': round(t_cal, 4),
                   'pred_s': {a: round(comp + t[a], 4) for a in MODELS},
                   'err_pct': {a: round(100 * (comp + t[a] - meas) / meas, 1) for a in MODELS}}
            rows.append(row)
    summary = {}
    for kind in ('mixed', 'homogeneous'):
        sel = [x for x in rows if x['kind'] == kind]
        summary[kind] = {'cases': len(sel)}
        for a in MODELS:
            errs = [abs(x['err_pct'][a]) for x in sel]
            summary[kind][a] = {'mape_pct': round(sum(errs) / len(errs), 1), 'worst_pct': max(errs)}
    sel = [x for x in rows if x['kind'] == 'mixed' and x['cluster'] == 'VF-A']
    summary['mixed VF-A (ResNet-50, 4 hosts, 4-10 GPUs)'] = {
        a: round(sum(abs(x['err_pct'][a]) for x in sel) / len(sel), 1) for a in MODELS}
    if '--json' in sys.argv:
        json.dump({'rows': rows, 'summary': summary}, sys.stdout, indent=1)
        return
    print('%-5s %-26s %-4s %-11s %3s %2s %8s %8s %8s  %s' % ('clust', 'group', 'run', 'kind', 'N', 'K',
          'step_s', 'comp_s', 'AR_meas', '  '.join('%9s' % a for a in MODELS)))
    for x in rows:
        print('%-5s %-26s %-4s %-11s %3d %2d %8.3f %8.3f %8.3f  %s' % (
            x['cluster'], x['group'][:26], x['run'], x['kind'], x['gpus'], x['hosts'], x['measured_s'],
            x['compute_s'], x['allreduce_measured_s'],
            '  '.join('%+8.1f%%' % x['err_pct'][a] for a in MODELS)))
    print()
    for k, v in summary.items():
        print(k, json.dumps(v))


if __name__ == '__main__':
    main()
