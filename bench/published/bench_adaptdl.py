#!/usr/bin/env python3
"""hetsim against the AdaptDL (Pollux / Sia) throughput traces (validation/published).

Turns every AdaptDL trace row (one cluster, workload, placement and local batch: rank 0's
mean step time) into a hetsim scenario, calibrates per cluster and workload on the
smallest configuration only (the one-node placements and `11`), predicts every other row
with hetsim through its Python binding (python/hetsim, libhetsim.so) and scores every
predictor. hetsim predicts; this program only builds scenarios, calibrates and scores.

The mapping (also written to the JSON's `mapping`; every item is an assumption):

* one scenario per (cluster, workload, placement, local_bsz); devices = the sum of the
  placement's digits (one digit a node, in the CSV's order), one GPU type;
* per-GPU compute C = the same cluster's placement `1` row at the same local batch:
  its step_time_s whole (default, `--compute step`: the 0.5-14 ms of DDP overhead it holds
  is also paid by every multi-GPU step) or step_time_s - sync_time_s (`--compute
  step-sync`); a row with no placement-1 row at its local batch is skipped and counted;
* C is split into a forward and a backward: t_bwd = `--bwd-frac` x C (default 2/3),
  t_fwd = the rest; no t_b1 (hetsim's default 0), no t_opt (in t_fwd);
* gradient bytes M = 4 x the parameter count of validation/published/pollux-osdi21/
  README.md ("Models"), profile key `gradient_bytes`;
* overlap `buckets`: PyTorch DDP's 25 MiB buckets (ceil(M / 25 MiB), the last one the
  remainder), bucket b ready at t_bwd x (L + (1-L) x bytes_up_to_b / M) from the
  backward's start (`--ready-lag` L, default 0: gradients produced uniformly over the
  backward, the last bucket ready at its end); overlap `none`: step = C + all-reduce;
  where the all-reduce outlasts the backward only the window t_bwd (1 - L) matters;
* overlaps `fitcal` and `fit11` (only when --overlaps names them; not in the default run):
  `buckets` with a lag of the group's own: w = minus the least-squares slope of the
  measured exposed time (step - C) against C, one intercept per placement, over the group's
  calibration rows (fitcal: every one-node placement and `11`; fit11: `11` only, the
  one-node rows where a group has no `11`), times `--window-scale` (default 1), clipped to
  [0, bwd_frac]; L = 1 - w / bwd_frac (at most 0.999), so that t_bwd (1 - L) = w C;
* forms (each with its own calibration):
  - `nodes`: one node per instance (a kind per node, count 1, so the CSV's order is kept),
    its digit the devices, intra_bandwidth B_intra, one NIC at B_inter, inter_bandwidth
    B_inter; collective `ring` (NCCL's order: a node's GPUs adjacent), `hierarchical`,
    `tree`, `auto`;
  - `podsrank`: every GPU its own host (AdaptDL's one pod per GPU), `devices:` form, each
    GPU its own address, `network.links` at B_intra between the pods of one instance,
    default_bandwidth B_inter, ring in rank order (an instance's pods adjacent: the ring
    leaves each instance once, so no NIC is shared; expected to equal `nodes-ring`, a
    cross-check of the two forms);
  - `podsrr`: every GPU its own NCCL host with ranks dealt round robin over the
    instances: `nodes:` form (one node per instance, one NIC at B_inter) with an explicit
    `ring:` that visits the instances in turn, so the instance's NIC is shared by every
    ring edge that leaves it (hetsim's NIC sharing: m edges out => each 1/m); the only
    way hetsim can share one instance NIC among the pods' edges (a NIC is per node);
* calibration, per cluster, trace file, workload and predictor (form, collective, overlap,
  figure; a cluster profiled twice, SIA-dgx's `dgx` and `dgx-ext`, is two groups: each row
  takes its compute, naive reference and bandwidths from its own trace):
  B_intra by bisection (regula falsi on 1/B, Illinois) so that the predictor's mean
  signed relative error over ALL one-node placement rows `2`..`8` (every local batch) is
  zero; then B_inter the same way on the `11` rows (B_intra fixed; `11` has no
  intra-node edge). A cluster with no `11` row (SIA-quad: one node) calibrates B_intra
  on `2` only and is scored on its other one-node placements. A bound hit (even 1e13 B/s
  over-predicts, i.e. the measured step is below the compute) is kept and noted;
* figures: `closed` = hetsim's extended closed form (step_extended_ns, which follows
  simulate.overlap), `replay` = the replay's mean step (step_replay_ns, 4 steps);
* naive: C + (step(11) - step(1)) at the same local batch (single-node clusters:
  step(2) - step(1));
* scored: every multi-node placement row except `11` (`multinode`), its rows whose nodes
  differ in size (`unequal`), and the scalability rows with 2 or more nodes except 2
  nodes x 1 GPU (`scalability`; nodes and GPUs known, spread not: placed as even as
  possible, the larger nodes last, as the CSV's sorted placements list them); single-node
  clusters: their one-node placements other than `1` and `2` (`onenode`);
* spread of the data: rows at the same multiset of node sizes and local batch in
  different orders (e.g. 1124 and 2114), and 1-node scalability rows against the
  placement row of the same GPUs and batch: the relative difference to their mean.

Sets: calibration clusters (PX-aws from the committed CSV, SIA-azure and SIA-quad from
`--sia-csv`, which must never be committed). SIA-dgx and SIA-rtx are held apart: a
held-apart row read in the calibration mode is an error (exit 2) before any figure is
computed or printed; `--held-apart --frozen COMMIT --sia-heldapart-csv PATH` scores only
them, with the same calibration rule, and refuses (exit 2) unless HEAD is COMMIT and the
working tree is clean.

Usage:
  bench_adaptdl.py [--sia-csv PATH] [--pollux-csv PATH | --no-pollux] [--json FILE]
                   [--lib LIBHETSIM] [--compute step|step-sync] [--bwd-frac F]
                   [--ready-lag L] [--window-scale K] [--clusters C1,C2] [--workloads W1,W2]
                   [--shapes nodes-ring,...] [--overlaps buckets,none,fitcal,fit11] [--no-rows]
  bench_adaptdl.py --held-apart --frozen COMMIT --sia-heldapart-csv PATH ...  (final only)

Exit status: 0 ok, 2 bad arguments, a refused mode or a held-apart row, 1 hetsim failed.
"""
import argparse
import csv
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, HERE)
import bench_published as bp  # noqa: E402  (ns(), frozen_commit(), head_desc(), write_json())

PX_CSV = os.path.join(ROOT, 'validation', 'published', 'pollux-osdi21', 'pollux-osdi21.csv')
HELD_APART = ('SIA-dgx', 'SIA-rtx')
# validation/published/pollux-osdi21/README.md, "Models"
PARAMS = {'cifar10': 11173962, 'imagenet': 25557032, 'bert': 109500000,
          'yolov3': 61600000, 'deepspeech2': 41187968, 'ncf': 1602657}
BUCKET_BYTES = 25 * 1024 * 1024          # DDP's bucket_cap_mb = 25
B_LO, B_HI = 1e6, 1e13                   # bisection bracket, bytes/s
TOL = 1e-5                               # on the mean signed relative error
MAX_IT = 60
REPLAY_STEPS = 4
# (form, collective) of every hetsim predictor; each is run with both overlaps
SHAPES = [('nodes', 'ring'), ('nodes', 'hierarchical'), ('nodes', 'tree'), ('nodes', 'auto'),
          ('podsrank', 'ring'), ('podsrr', 'ring')]
OVERLAPS = ['buckets', 'none']
# overlaps only run when --overlaps names them: `buckets` with the group's own overlap
# window fitted on its calibration rows (fitcal: every one-node placement and `11`; fit11:
# `11` only, else the one-node rows), see fit_window()
FITTED = {'fitcal': None, 'fit11': '11'}
ALL_OVERLAPS = OVERLAPS + list(FITTED)
FIGURES = {'closed': 'step_extended_ns', 'replay': 'step_replay_ns'}


def die(msg, code=2):
    sys.stderr.write('bench_adaptdl: %s\n' % msg)
    sys.exit(code)


def read_csv(path, held_mode):
    """The trace rows of path (comment lines skipped). In the calibration mode any held-apart
    row is an error (exit 2) reported by count only; in the held-apart mode only held-apart
    rows are kept."""
    try:
        with open(path) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith('#')))
    except OSError as e:
        die('cannot read %s: %s' % (path, e))
    need = ('cluster', 'set', 'workload', 'kind', 'placement', 'num_nodes', 'num_replicas',
            'local_bsz', 'step_time_s', 'sync_time_s')
    if rows and any(k not in rows[0] for k in need):
        die('%s: not an AdaptDL trace CSV (columns %s needed)' % (path, ', '.join(need)))
    held = [r for r in rows if r['cluster'] in HELD_APART or r['set'] != 'calibration']
    if held_mode:
        return [r for r in rows if r['cluster'] in HELD_APART]
    if held:
        die('%s holds %d held-apart row(s) (clusters %s): the calibration mode never reads '
            'them; give a calibration-only CSV' % (path, len(held),
                                                   ','.join(sorted({r['cluster'] for r in held}))))
    return rows


def whole(text):
    """A whole number written as `20` or `20.0` (Sia's traces write some batches as floats)."""
    x = float(text)
    if not x.is_integer():
        die('local_bsz %r is not a whole number' % text)
    return int(x)


def parse(r):
    """A row as numbers; digits = GPUs per node (placement rows) or None."""
    x = {'cluster': r['cluster'], 'trace': r.get('trace', ''), 'workload': r['workload'],
         'kind': r['kind'],
         'placement': r['placement'], 'nodes': whole(r['num_nodes']),
         'gpus': whole(r['num_replicas']), 'bsz': whole(r['local_bsz']),
         'step_s': float(r['step_time_s']), 'sync_s': float(r['sync_time_s'])}
    x['digits'] = [int(c) for c in r['placement']] if r['kind'] == 'placement' else None
    return x


def even_digits(nodes, gpus):
    """Scalability rows: GPUs over nodes as even as possible, the larger nodes last."""
    base, extra = divmod(gpus, nodes)
    return [base + (1 if i >= nodes - extra else 0) for i in range(nodes)]


# ---- scenarios ---------------------------------------------------------------------------

def buckets_of(m_bytes, t_bwd_s, lag):
    out, cum = [], 0
    while cum < m_bytes:
        b = min(BUCKET_BYTES, m_bytes - cum)
        cum += b
        ready = t_bwd_s * (lag + (1.0 - lag) * cum / m_bytes)
        out.append({'bytes': '%dB' % b, 'ready': bp.ns(ready)})
    return out


def bw(x):
    return '%dB/s' % max(1, round(x))


def scenario(digits, comp_s, m_bytes, b_intra, b_inter, shape, overlap, opts):
    """The hetsim scenario (a dict) of one row: digits = GPUs per instance; overlap =
    `none`, `buckets` (readiness lag --ready-lag) or (`buckets`, lag) (a fitted window)."""
    form, coll = shape
    lag = opts.ready_lag
    if isinstance(overlap, tuple):
        overlap, lag = overlap
    t_bwd = opts.bwd_frac * comp_s
    prof = {'t_fwd': bp.ns(comp_s - t_bwd), 't_bwd': bp.ns(t_bwd),
            'gradient_bytes': '%dB' % m_bytes}
    if overlap == 'buckets':
        prof['buckets'] = buckets_of(m_bytes, t_bwd, lag)
    doc = {'name': 'adaptdl', 'device_types': [{'name': 'gpu', 'batch': 1, 'profile': prof}]}
    if form == 'podsrank':
        devs, links = [], []
        for i, g in enumerate(digits):
            names = ['i%d-p%d' % (i, j) for j in range(g)]
            devs += [{'name': n, 'type': 'gpu'} for n in names]
            links += [[a, b, bw(b_intra)] for k, a in enumerate(names) for b in names[k + 1:]]
        doc['devices'] = devs
        doc['network'] = {'default_bandwidth': bw(b_inter), 'latency': '0ns'}
        if links:
            doc['network']['links'] = links
    else:
        kinds = []
        for i, g in enumerate(digits):
            k = {'name': 'n%d' % i, 'type': 'gpu', 'devices': g, 'count': 1,
                 'nics': 1, 'nic_bandwidth': bw(b_inter)}
            if g > 1:
                k['intra_bandwidth'] = bw(b_intra)
            kinds.append(k)
        doc['nodes'] = {'kinds': kinds, 'inter_bandwidth': bw(b_inter), 'inter_latency': '0ns'}
        if coll != 'ring':
            doc['collective'] = coll
        if form == 'podsrr' and len(digits) > 1:
            doc['ring'] = ['n%d-0-%d' % (i, j) for j in range(max(digits))
                           for i, g in enumerate(digits) if j < g]
    doc['simulate'] = {'steps': REPLAY_STEPS, 'overlap': overlap}
    return doc


class Predictor:
    """hetsim through its Python binding, cached by (digits, compute, bandwidths, variant)."""

    def __init__(self, hetsim, opts):
        self.hs, self.opts = hetsim, opts
        self.cache = {}
        self.calls = 0
        self.errors = {}

    def predict(self, digits, comp_s, m_bytes, b_intra, b_inter, shape, overlap):
        key = (tuple(digits), comp_s, m_bytes, round(b_intra), round(b_inter), shape, overlap)
        if key in self.cache:
            return self.cache[key]
        doc = scenario(digits, comp_s, m_bytes, b_intra, b_inter, shape, overlap, self.opts)
        self.calls += 1
        try:
            a = self.hs.Scenario.from_dict(doc).predict()
            res = {f: a[k] / 1e9 for f, k in FIGURES.items()}
        except self.hs.Error as e:
            msg = str(getattr(e, 'message', e))
            self.errors.setdefault('%s/%s %s' % (shape[0], shape[1], overlap), msg)
            res = None
        self.cache[key] = res
        return res


def solve(f):
    """The bandwidth B in [B_LO, B_HI] with f(B) = 0 (f decreasing in B): regula falsi on
    x = 1/B with the Illinois rule. (B, note); B None when f fails."""
    xa, xb = 1.0 / B_HI, 1.0 / B_LO
    fa, fb = f(1.0 / xa), f(1.0 / xb)
    if fa is None or fb is None:
        return None, 'hetsim could not predict the calibration rows'
    if fa > 0:
        return B_HI, 'bound: even %.0e B/s over-predicts the calibration rows' % B_HI
    if fb < 0:
        return B_LO, 'bound: even %.0e B/s under-predicts the calibration rows' % B_LO
    x, ok = bp.illinois(lambda x: f(1.0 / x), xa, fa, xb, fb, TOL, MAX_IT)
    return (1.0 / x, None) if ok else (None, 'hetsim could not predict the calibration rows')


# ---- one cluster x workload ----------------------------------------------------------------

def group_rows(rows, comp, opts):
    """Roles of the rows of one group: calibration (intra, inter), scored sets, skipped."""
    single = not any(r['digits'] and len(r['digits']) > 1 for r in rows)
    out = {'intra': [], 'inter': [], 'scored': [], 'skipped_no_compute': 0,
           'skipped_other': 0, 'single_node': single}
    for r in rows:
        if r['kind'] == 'scalability':
            if r['nodes'] < 2 or (r['nodes'] == 2 and r['gpus'] == 2):
                continue          # one-node rows: the spread; 2 x 1: the calibration's `11`
            r['digits'] = even_digits(r['nodes'], r['gpus'])
        d = r['digits']
        if r['bsz'] not in comp:
            out['skipped_no_compute'] += 1
            continue
        r['compute_s'] = comp[r['bsz']]
        if d == [1]:
            continue
        if len(d) == 1:
            if single and d != [2]:
                r['sets'] = ['onenode']
                out['scored'].append(r)
            else:
                out['intra'].append(r)
        elif d == [1, 1]:
            out['inter'].append(r)
        else:
            r['sets'] = ['multinode'] + (['unequal'] if len(set(d)) > 1 else [])
            if r['kind'] == 'scalability':
                r['sets'] = ['scalability']
            out['scored'].append(r)
    return out


def mean_err(pr, rows, m_bytes, b_intra, b_inter, shape, overlap, fig):
    es = []
    for r in rows:
        res = pr.predict(r['digits'], r['compute_s'], m_bytes, b_intra, b_inter, shape, overlap)
        if res is None:
            return None
        es.append((res[fig] - r['step_s']) / r['step_s'])
    return sum(es) / len(es)


def calibrate(pr, g, m_bytes, shape, overlap, fig):
    """(B_intra, B_inter, notes) of one predictor on the group's calibration rows."""
    notes = []
    b_intra, b_inter = None, None
    if g['intra']:
        b_intra, n = solve(lambda b: mean_err(pr, g['intra'], m_bytes, b, 1e9, shape, overlap, fig))
        if n:
            notes.append('intra ' + n)
    if g['inter']:
        # `11` has no intra-node edge: B_intra only matters when there was none to calibrate
        bi = b_intra or B_HI
        b_inter, n = solve(lambda b: mean_err(pr, g['inter'], m_bytes, bi, b, shape, overlap, fig))
        if n:
            notes.append('inter ' + n)
    return b_intra, b_inter, notes


def naive_of(r, by_pd):
    """C + (step(11) - step(1)) at the row's batch (single-node clusters: step(2) - step(1))."""
    ref = '2' if r['sets'] == ['onenode'] else '11'
    a, b = by_pd.get((ref, r['bsz'])), by_pd.get(('1', r['bsz']))
    if a is None or b is None:
        return None
    return r['compute_s'] + (a - b)


def fit_window(rows, only):
    """The overlap window w (seconds of hidden all-reduce per second of compute) that the
    measured steps show: the least-squares slope of the exposed time (step - C) against C,
    one intercept per placement, negated; rows = calibration rows (only = a placement: those
    rows if any, else all). (w, rows used)."""
    if only and any(r['placement'] == only for r in rows):
        rows = [r for r in rows if r['placement'] == only]
    by = {}
    for r in rows:
        by.setdefault(r['placement'], []).append((r['compute_s'], r['step_s'] - r['compute_s']))
    sxy = sxx = 0.0
    for pts in by.values():
        mx = sum(x for x, _ in pts) / len(pts)
        my = sum(y for _, y in pts) / len(pts)
        sxy += sum((x - mx) * (y - my) for x, y in pts)
        sxx += sum((x - mx) ** 2 for x, _ in pts)
    return (-sxy / sxx if sxx > 0 else 0.0), len(rows)


def overlap_spec(ov, g, opts):
    """What the predictor `ov` hands hetsim: `none`, `buckets`, or (`buckets`, lag) with the
    lag that makes the window t_bwd (1 - lag) = w C of the group's fitted w (scaled by
    --window-scale, clipped to [0, bwd_frac]); (spec, record for the JSON)."""
    if ov not in FITTED:
        return ov, None
    w, n = fit_window(g['intra'] + g['inter'], FITTED[ov])
    used = min(max(w * opts.window_scale, 0.0), opts.bwd_frac)
    lag = min(1.0 - used / opts.bwd_frac, 0.999)
    return ('buckets', round(lag, 6)), {'fitted_window': round(w, 4), 'rows': n,
                                        'window': round(used, 4), 'ready_lag': round(lag, 6)}


def run_group(pr, cluster, workload, rows, opts):
    m_bytes = 4 * PARAMS[workload]
    one = {r['bsz']: r for r in rows if r['kind'] == 'placement' and r['placement'] == '1'}
    comp = {b: (r['step_s'] - r['sync_s'] if opts.compute == 'step-sync' else r['step_s'])
            for b, r in one.items()}
    by_pd = {(r['placement'], r['bsz']): r['step_s'] for r in rows if r['kind'] == 'placement'}
    g = group_rows(rows, comp, opts)
    cal = {'cluster': cluster, 'workload': workload, 'gradient_bytes': m_bytes,
           'single_node': g['single_node'],
           'calibration_rows': {'intra': len(g['intra']), 'inter': len(g['inter'])},
           'skipped_no_compute': g['skipped_no_compute'], 'bandwidth_bytes_per_s': {}, 'notes': []}
    specs = {}
    for ov in OVERLAPS:
        specs[ov], rec = overlap_spec(ov, g, opts)
        if rec:
            cal.setdefault('overlap_window', {})[ov] = rec
    keys = []
    for shape in SHAPES:
        for ov in OVERLAPS:
            for fig in FIGURES:
                k = '%s/%s-%s/%s' % (fig, shape[0], shape[1], ov)
                bi, be, notes = calibrate(pr, g, m_bytes, shape, specs[ov], fig)
                cal['bandwidth_bytes_per_s'][k] = {'intra': bi and round(bi), 'inter': be and round(be)}
                cal['notes'] += ['%s: %s' % (k, n) for n in notes]
                keys.append((k, shape, specs[ov], fig, bi, be))
    out = []
    for role, rs in (('calibration', g['intra'] + g['inter']), ('scored', g['scored'])):
        for r in rs:
            row = {'cluster': cluster, 'workload': workload, 'kind': r['kind'],
                   'placement': r['placement'], 'digits': r['digits'], 'local_bsz': r['bsz'],
                   'role': role, 'sets': r.get('sets', []), 'measured_s': r['step_s'],
                   'compute_s': r['compute_s'], 'predicted_s': {}}
            if role == 'scored':
                nv = naive_of(r, by_pd)
                row['predicted_s']['naive'] = round(nv, 6) if nv is not None else None
            for k, shape, ov, fig, bi, be in keys:
                need_inter = len(r['digits']) > 1
                if (need_inter and be is None) or (max(r['digits']) > 1 and bi is None):
                    row['predicted_s'][k] = None
                    continue
                res = pr.predict(r['digits'], r['compute_s'], m_bytes, bi or B_HI, be or B_HI,
                                 shape, ov)
                row['predicted_s'][k] = round(res[fig], 6) if res else None
            m = r['step_s']
            row['error_pct'] = {k: (round(100.0 * (v - m) / m, 3) if v is not None else None)
                                for k, v in row['predicted_s'].items()}
            out.append(row)
    return cal, out


# ---- spread, scores, output ------------------------------------------------------------------

def spread(rows):
    """Relative differences to the mean among rows that should measure the same thing."""
    same = {}
    for r in rows:
        if r['kind'] == 'placement':
            key = (r['cluster'], r['workload'], ''.join(sorted(r['placement'])), r['bsz'])
        elif r['nodes'] == 1:
            key = (r['cluster'], r['workload'], str(r['gpus']), r['bsz'])
        else:
            continue
        same.setdefault(key, []).append(r['step_s'])
    out = {}
    for (c, _, _, _), v in same.items():
        if len(v) < 2:
            continue
        mu = sum(v) / len(v)
        s = out.setdefault(c, {'groups': 0, 'devs': []})
        s['groups'] += 1
        s['devs'] += [100.0 * abs(x - mu) / mu for x in v]
    return {c: {'groups_of_repeats': s['groups'], 'mean_abs_dev_pct': sum(s['devs']) / len(s['devs']),
                'max_abs_dev_pct': max(s['devs'])} for c, s in out.items()}


def score(rows, k):
    errs = [x['error_pct'].get(k) for x in rows]
    ok = [e for e in errs if e is not None]
    if not ok:
        return None
    worst = max(ok, key=abs)
    return {'cases': len(ok), 'missing': len(errs) - len(ok),
            'mape_pct': round(sum(abs(e) for e in ok) / len(ok), 2), 'worst_pct': round(worst, 2)}


def summarize(rows, keys):
    scored = [x for x in rows if x['role'] == 'scored']
    sel = {}
    for s in ('multinode', 'unequal', 'scalability', 'onenode'):
        for c in sorted({x['cluster'] for x in scored}):
            rs = [x for x in scored if x['cluster'] == c and s in x['sets']]
            if not rs:
                continue
            sel['%s %s all' % (c, s)] = rs
            for w in sorted({x['workload'] for x in rs}):
                sel['%s %s %s' % (c, s, w)] = [x for x in rs if x['workload'] == w]
    cal = [x for x in rows if x['role'] == 'calibration']
    for c in sorted({x['cluster'] for x in cal}):
        sel['%s calibration-fit all' % c] = [x for x in cal if x['cluster'] == c]
    return {name: {'cases': len(rs), 'by_predictor': {k: score(rs, k) for k in keys}}
            for name, rs in sel.items()}


def short(k):
    if k == 'naive':
        return k
    fig, shape, ov = k.split('/')
    shape = shape.replace('hierarchical', 'hier').replace('nodes-', 'n-')
    mark = {'buckets': '', 'none': '0', 'fitcal': 'f', 'fit11': 'g'}[ov]
    return '%s%s-%s' % (fig[0].upper(), mark, shape)


def print_table(doc, keys):
    print('hetsim on AdaptDL traces (%s set), tree %s, %s; hetsim calls %d, %.1f s'
          % (doc['set'], doc['git_head'], doc['hetsim_library'], doc['hetsim_calls'], doc['runtime_s']))
    print('options: compute %s, bwd_frac %.3f, ready_lag %.3f' % (
        doc['options']['compute'], doc['options']['bwd_frac'], doc['options']['ready_lag']))
    for e, m in doc['hetsim_errors'].items():
        print('hetsim refused %s: %s' % (e, m))
    print('calibrated bandwidths (MB/s intra/inter) of the replay predictors:')
    for g in doc['groups']:
        bws = g['bandwidth_bytes_per_s']
        print('  %-9s %-11s cal rows %d/%d skipped %d  %s' % (
            g['cluster'], g['workload'], g['calibration_rows']['intra'], g['calibration_rows']['inter'],
            g['skipped_no_compute'],
            ' '.join('%s=%s/%s' % (short(k), '%.0f' % (v['intra'] / 1e6) if v['intra'] else '-',
                                   '%.0f' % (v['inter'] / 1e6) if v['inter'] else '-')
                     for k, v in bws.items() if k.startswith('replay/'))))
        texts = {}
        for n in g['notes']:
            k, t = n.split(': ', 1)
            texts.setdefault(t, []).append(k)
        for t, ks in texts.items():
            print('    note (%d of %d predictors): %s' % (len(ks), len(bws), t))
    fitted = ', f/g = buckets, fitted window (fitcal/fit11)' if set(OVERLAPS) & set(FITTED) else ''
    print('legend: R/C = replay/closed; 0 = overlap none%s (else buckets); n- = nodes form; '
          % fitted +
          'podsrank/podsrr = pod per GPU, ranks in order / round robin')
    # a closed-form column only where it differs from the replay's somewhere
    keys = [k for k in keys if not k.startswith('closed/') or any(
        (s['by_predictor'].get(k) or {}).get('mape_pct') !=
        (s['by_predictor'].get('replay/' + k[7:]) or {}).get('mape_pct') for s in doc['summary'].values())]
    print('MAPE % (worst signed %) per set (closed-form columns only where they differ from the replay):')
    print('%-42s %5s ' % ('set', 'rows') + ' '.join('%15s' % short(k) for k in keys))
    for name, s in doc['summary'].items():
        cells = []
        for k in keys:
            v = s['by_predictor'].get(k)
            cells.append('%15s' % ('n/a' if not v else '%.1f(%+.0f)' % (v['mape_pct'], v['worst_pct'])))
        print('%-42s %5d ' % (name[:42], s['cases']) + ' '.join(cells))
    print('spread of the data (repeats: same node sizes and batch):')
    for c, s in doc['spread'].items():
        print('  %-9s %d groups, mean |dev| %.2f%%, max %.2f%%' % (
            c, s['groups_of_repeats'], s['mean_abs_dev_pct'], s['max_abs_dev_pct']))


def main(argv):
    t0 = time.time()
    ap = argparse.ArgumentParser(prog='bench_adaptdl.py', description=__doc__.split('\n')[0])
    ap.add_argument('--pollux-csv', default=PX_CSV)
    ap.add_argument('--no-pollux', action='store_true')
    ap.add_argument('--sia-csv', help='the Sia calibration rows (never commit them)')
    ap.add_argument('--lib', help='libhetsim.so (default: the binding\'s search, build*/)')
    ap.add_argument('--json', metavar='FILE')
    ap.add_argument('--no-rows', action='store_true',
                    help='the JSON without its per-row predictions (calibration and summary only)')
    ap.add_argument('--compute', choices=['step', 'step-sync'], default='step')
    ap.add_argument('--bwd-frac', type=float, default=2.0 / 3.0)
    ap.add_argument('--ready-lag', type=float, default=0.0)
    ap.add_argument('--window-scale', type=float, default=1.0,
                    help='scales the fitted overlap window of fitcal / fit11')
    ap.add_argument('--clusters', help='only these clusters (comma list)')
    ap.add_argument('--workloads', help='only these workloads (comma list)')
    ap.add_argument('--shapes', help='only these form-collective pairs, e.g. nodes-ring,podsrr-ring')
    ap.add_argument('--overlaps', help='these overlaps (default buckets,none; also fitcal, fit11)')
    ap.add_argument('--held-apart', action='store_true')
    ap.add_argument('--frozen', metavar='COMMIT')
    ap.add_argument('--sia-heldapart-csv', metavar='PATH')
    opts = ap.parse_args(argv)
    if not 0 < opts.bwd_frac < 1 or not 0 <= opts.ready_lag < 1 or not opts.window_scale >= 0:
        die('--bwd-frac must be in (0, 1), --ready-lag in [0, 1) and --window-scale >= 0')
    commit = None
    if opts.held_apart:
        if not opts.frozen or not opts.sia_heldapart_csv:
            die('--held-apart needs --frozen COMMIT and --sia-heldapart-csv PATH (final, one-time report)')
        commit, why = bp.frozen_commit(opts.frozen)
        if why:
            die(why)
        sys.stderr.write('WARNING: scoring the HELD-APART clusters %s against hetsim frozen at %s: '
                         'the final, one-time report; tune nothing on it.\n' % (','.join(HELD_APART), commit))
        raw = read_csv(opts.sia_heldapart_csv, True)
    else:
        if opts.sia_heldapart_csv:
            die('--sia-heldapart-csv is for --held-apart only')
        raw = [] if opts.no_pollux else read_csv(opts.pollux_csv, False)
        if opts.sia_csv:
            raw += read_csv(opts.sia_csv, False)
    if opts.lib:
        os.environ['HETSIM_LIBRARY'] = opts.lib
    sys.path.insert(0, os.path.join(ROOT, 'python'))
    try:
        import hetsim
    except (ImportError, OSError) as e:
        die('cannot load hetsim\'s Python binding (build libhetsim.so, or give --lib): %s' % e)
    rows = [parse(r) for r in raw]
    if opts.clusters:
        rows = [r for r in rows if r['cluster'] in opts.clusters.split(',')]
    if opts.workloads:
        rows = [r for r in rows if r['workload'] in opts.workloads.split(',')]
    if not rows:
        die('no rows to score')
    unknown = sorted({r['workload'] for r in rows} - set(PARAMS))
    if unknown:
        die('no parameter count for workload(s) %s' % ','.join(unknown))
    if opts.shapes:
        want = opts.shapes.split(',')
        SHAPES[:] = [s for s in SHAPES if '%s-%s' % s in want]
    if opts.overlaps:
        bad = sorted(set(opts.overlaps.split(',')) - set(ALL_OVERLAPS))
        if bad:
            die('--overlaps: unknown %s (known: %s)' % (','.join(bad), ','.join(ALL_OVERLAPS)))
        OVERLAPS[:] = [o for o in ALL_OVERLAPS if o in opts.overlaps.split(',')]
    if not SHAPES or not OVERLAPS:
        die('--shapes / --overlaps leave no predictor')
    pr = Predictor(hetsim, opts)
    groups, out = [], []
    # one group per trace file: a cluster profiled twice (SIA-dgx: `dgx` and `dgx-ext`) takes
    # each row's compute and calibration from its own trace, never from the other pass
    for c, t, w in sorted({(r['cluster'], r['trace'], r['workload']) for r in rows}):
        cal, rs = run_group(pr, c, w, [r for r in rows
                                       if (r['cluster'], r['trace'], r['workload']) == (c, t, w)], opts)
        cal['trace'] = t
        for x in rs:
            x['trace'] = t
        groups.append(cal)
        out += rs
    keys = ['naive'] + ['%s/%s-%s/%s' % (f, s[0], s[1], o) for o in OVERLAPS for s in SHAPES
                        for f in ('replay', 'closed')]
    doc = {'format': 'hetsim.bench.adaptdl', 'format_version': 1,
           'hetsim_library': bp.library_path(hetsim), 'git_head': bp.head_desc(),
           'set': 'held-apart' if opts.held_apart else 'calibration', 'frozen_commit': commit,
           'command': 'bench/published/bench_adaptdl.py ' + ' '.join(argv),
           'options': {'compute': opts.compute, 'bwd_frac': opts.bwd_frac, 'ready_lag': opts.ready_lag,
                       'window_scale': opts.window_scale,
                       'replay_steps': REPLAY_STEPS, 'bucket_bytes': BUCKET_BYTES},
           'mapping': dict(MAPPING, **({'fitted': FITTED_MAPPING} if set(OVERLAPS) & set(FITTED)
                                       else {})),
           'clusters': sorted({r['cluster'] for r in rows}),
           'hetsim_calls': pr.calls, 'hetsim_errors': pr.errors, 'groups': groups,
           'spread': spread(rows), 'summary': summarize(out, keys), 'rows': out}
    doc['runtime_s'] = round(time.time() - t0, 1)
    print_table(doc, keys)
    if opts.no_rows:
        doc['rows'] = 'left out (--no-rows)'
    if opts.json:
        bp.write_json(opts.json, doc)
    return 1 if pr.errors else 0


FITTED_MAPPING = ('fitcal / fit11: buckets whose window t_bwd (1 - lag) = w C, w = minus the '
                  'least-squares slope of step - C on C (one intercept per placement) over the '
                  'group\'s calibration rows (fitcal: one-node placements and 11; fit11: 11 only, '
                  'else the one-node rows), times --window-scale, clipped to [0, bwd_frac]')
MAPPING = {
    'scenario': 'one per (cluster, workload, placement, local_bsz); devices = sum of the placement '
                'digits (one digit an instance, CSV order), one GPU type',
    'compute': 'the placement-1 row at the same local batch: step_time_s whole (--compute step) or '
               'minus its sync_time_s (--compute step-sync); rows without one are skipped and counted',
    'split': 't_bwd = bwd_frac x C, t_fwd = C - t_bwd, no t_b1, no t_opt',
    'gradient_bytes': '4 x the parameter count of pollux-osdi21/README.md "Models" (profile key '
                      'gradient_bytes)',
    'buckets': '25 MiB DDP buckets, bucket b ready at t_bwd (lag + (1 - lag) bytes_to_b / M) from the '
               'backward start; overlap none: step = C + all-reduce',
    'nodes': 'one node per instance (a kind per node, count 1), intra_bandwidth B_intra, 1 NIC at B_inter, '
             'inter_bandwidth B_inter; collective ring (NCCL order), hierarchical, tree, auto',
    'podsrank': 'devices: form, each GPU its own address (pod per GPU), network.links B_intra between '
                'the pods of an instance, default_bandwidth B_inter, ring in rank order (no NIC shared)',
    'podsrr': 'nodes: form as above with an explicit ring dealing the ranks round robin over the '
              'instances: the instance NIC is shared by the ring edges leaving it',
    'calibration': 'per cluster x trace file x workload x predictor: B_intra so that the mean signed relative error '
                   'over every one-node placement row 2..8 (all local batches) is 0, then B_inter the '
                   'same on the 11 rows; single-node clusters: B_intra on 2 only',
    'figures': 'closed = step_extended_ns (follows simulate.overlap), replay = step_replay_ns (4 steps)',
    'naive': 'C + step(11) - step(1) at the same local batch (single-node: step(2) - step(1))',
    'scored': 'multinode: placement rows of 2+ nodes except 11; unequal: those with nodes of different '
              'sizes; scalability: rows of 2+ nodes except 2 x 1 GPU, GPUs spread as evenly as possible '
              '(larger nodes last); onenode (single-node clusters): one-node rows other than 1 and 2',
    'spread': 'rows at the same multiset of node sizes and batch (placement orders; 1-node scalability '
              'rows against the placement row): |x - mean| / mean',
}

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
