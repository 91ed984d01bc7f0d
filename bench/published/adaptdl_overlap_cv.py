#!/usr/bin/env python3
"""Overlap variants of bench_adaptdl.py on the calibration clusters, cross-validated.

Reads JSON files written by bench_adaptdl.py (calibration mode only: a held-apart JSON is
refused) that together hold the variants to compare, and prints, over the multi-node
placement rows of PX-aws and SIA-azure (the bench's `multinode` sets):

* every variant's MAPE, pooled (weighted by rows) and per cluster; a variant is
  (family, collective, parameter): `none`; `buckets-window` with the window
  w = bwd_frac x (1 - ready_lag) (only w matters where the all-reduce outlasts the backward);
  `fitcal` / `fit11` with their --window-scale;
* cluster swap: per family and collective, the parameter that scores best on one cluster,
  scored on the other (PX-aws -> SIA-azure and back), and the two pooled;
* leave one workload out: the parameter chosen on the other five workloads (both clusters),
  scored on the sixth; pooled over the six;
* with --rows (files that hold rows): per cluster and predictor, the mean |log(pred/meas)|
  split into the part of each (workload, placement) group's mean (the level) and the part
  around it (the trend over local batches), and the slope of the exposed time (step - C)
  against C, measured and predicted, per workload (mean over the scored placements);
* with --rows and a file holding `fit11` and `none`: the diagnostic `none+slope` (not a
  hetsim prediction): the `none` replay minus w (C - mean C of the group's `11` rows), w the
  group's fit11 window (times 0.5 and 1).

Usage: adaptdl_overlap_cv.py [--rows] BENCH.json...
"""
import argparse
import collections
import json
import math
import sys

CLUSTERS = ('PX-aws', 'SIA-azure')
WORKLOADS = ('bert', 'cifar10', 'deepspeech2', 'imagenet', 'ncf', 'yolov3')
CELLS = [(c, w) for c in CLUSTERS for w in WORKLOADS]


def variant(ov, opts):
    if ov == 'none':
        return 'none', 0
    if ov == 'buckets':
        return 'buckets-window', round(opts['bwd_frac'] * (1 - opts['ready_lag']), 4)
    return ov, opts.get('window_scale', 1.0)


def load(paths):
    """(family, collective, parameter) -> {(cluster, workload): (mape, rows)}; the docs."""
    pred, docs = {}, []
    for p in paths:
        d = json.load(open(p))
        if d.get('set') != 'calibration':
            sys.exit('adaptdl_overlap_cv: %s is not a calibration-mode JSON' % p)
        docs.append(d)
        s = d['summary']
        for k in s['PX-aws multinode all']['by_predictor']:
            if not k.startswith('replay/'):
                continue
            _, shape, ov = k.split('/')
            cell = {}
            for c, w in CELLS:
                v = s['%s multinode %s' % (c, w)]['by_predictor'][k]
                cell[(c, w)] = (v['mape_pct'], v['cases'])
            fam, par = variant(ov, d['options'])
            pred[(fam, shape.split('-', 1)[1], par)] = cell
    return pred, docs


def agg(cell, keys):
    n = sum(cell[k][1] for k in keys)
    return sum(cell[k][0] * cell[k][1] for k in keys) / n, n


def cross_validate(pred):
    fams = collections.defaultdict(list)
    for f, coll, par in pred:
        fams[(f, coll)].append(par)
    on = {c: [k for k in CELLS if k[0] == c] for c in CLUSTERS}
    print('\ncluster swap (choose the parameter on one cluster, score the other):')
    print('  %-15s %-13s | %-8s %-10s | %-8s %-10s | %s' % ('family', 'collective', 'PX->AZ', 'AZ MAPE',
                                                         'AZ->PX', 'PX MAPE', 'pooled'))
    for (f, coll), pars in sorted(fams.items()):
        out = []
        for tr, te in (('PX-aws', 'SIA-azure'), ('SIA-azure', 'PX-aws')):
            p = min(pars, key=lambda x: agg(pred[(f, coll, x)], on[tr])[0])
            out.append((p,) + agg(pred[(f, coll, p)], on[te]))
        pooled = sum(m * n for _, m, n in out) / sum(n for _, _, n in out)
        print('  %-15s %-13s | %-8s %9.2f%% | %-8s %9.2f%% | %.2f%%' % (
            f, coll, out[0][0], out[0][1], out[1][0], out[1][1], pooled))
    print('\nleave one workload out (both clusters; parameter chosen on the other five):')
    for (f, coll), pars in sorted(fams.items()):
        tot = n = 0
        chosen = []
        for w in WORKLOADS:
            tr = [k for k in CELLS if k[1] != w]
            te = [k for k in CELLS if k[1] == w]
            p = min(pars, key=lambda x: agg(pred[(f, coll, x)], tr)[0])
            m, k = agg(pred[(f, coll, p)], te)
            tot, n = tot + m * k, n + k
            chosen.append(str(p))
        print('  %-15s %-13s %.2f%%  (chosen: %s)' % (f, coll, tot / n, ' '.join(chosen)))


def slope(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0


def decompose(d):
    rows = [r for r in d['rows'] if r['role'] == 'scored' and r['cluster'] in CLUSTERS
            and 'multinode' in r['sets'] and r['kind'] == 'placement']
    keys = [k for k in rows[0]['error_pct'] if k.startswith('replay/')]
    for c in CLUSTERS:
        by = collections.defaultdict(list)
        for r in rows:
            if r['cluster'] == c:
                by[(r['workload'], r['placement'])].append(r)
        for k in keys:
            tot = lvl = within = n = 0
            for rs in by.values():
                e = [math.log(1 + r['error_pct'][k] / 100) for r in rs]
                m = sum(e) / len(e)
                tot += sum(abs(x) for x in e)
                lvl += abs(m) * len(e)
                within += sum(abs(x - m) for x in e)
                n += len(e)
            print('  %-9s %-36s |log err| %.3f  level %.3f  trend %.3f'
                  % (c, k, tot / n, lvl / n, within / n))
    print('  slope of the exposed time (step - C) against C, mean over the scored placements '
          '(measured, then each predictor):')
    for c in CLUSTERS:
        for w in WORKLOADS:
            by = collections.defaultdict(list)
            for r in rows:
                if (r['cluster'], r['workload']) == (c, w):
                    by[r['placement']].append(r)
            sl = collections.defaultdict(list)
            for rs in by.values():
                if len(rs) < 3:
                    continue
                xs = [r['compute_s'] for r in rs]
                sl['measured'].append(slope(xs, [r['measured_s'] - r['compute_s'] for r in rs]))
                for k in keys:
                    sl[k].append(slope(xs, [r['predicted_s'][k] - r['compute_s'] for r in rs]))
            if sl:
                print('  %-9s %-11s %3d  %s' % (c, w, len(sl['measured']), '  '.join(
                    '%s %+.2f' % (k.split('/', 1)[-1], sum(v) / len(v)) for k, v in sl.items())))


def none_slope(d):
    keys = d['rows'][0]['predicted_s']
    win = {(g['cluster'], g['workload']): g.get('overlap_window', {}).get('fit11') for g in d['groups']}
    cbar = collections.defaultdict(list)
    for r in d['rows']:
        if r['role'] == 'calibration' and r['placement'] == '11':
            cbar[(r['cluster'], r['workload'])].append(r['compute_s'])
    for coll in ('hierarchical', 'ring'):
        kn = 'replay/nodes-%s/none' % coll
        if kn not in keys:
            continue
        for scale in (0.5, 1.0):
            err = collections.defaultdict(list)
            for r in d['rows']:
                g = (r['cluster'], r['workload'])
                if r['role'] != 'scored' or r['cluster'] not in CLUSTERS or 'multinode' not in r['sets']:
                    continue
                w = max(0.0, win[g]['fitted_window']) * scale if win.get(g) else 0.0
                cb = sum(cbar[g]) / len(cbar[g]) if cbar[g] else r['compute_s']
                p = r['predicted_s'][kn] - w * (r['compute_s'] - cb)
                err[r['cluster']].append(100.0 * abs(p - r['measured_s']) / r['measured_s'])
            a = err['PX-aws'] + err['SIA-azure']
            print('  none+slope (fit11 x%.1f) %-12s pooled %.2f%%  PX-aws %.2f%%  SIA-azure %.2f%%' % (
                scale, coll, sum(a) / len(a), sum(err['PX-aws']) / len(err['PX-aws']),
                sum(err['SIA-azure']) / len(err['SIA-azure'])))


def main(argv):
    ap = argparse.ArgumentParser(prog='adaptdl_overlap_cv.py', description=__doc__.split('\n')[0])
    ap.add_argument('--rows', action='store_true', help='also the level/trend split and slopes')
    ap.add_argument('json', nargs='+')
    opts = ap.parse_args(argv)
    pred, docs = load(opts.json)
    print('every variant (multi-node placement rows): family, collective, parameter: '
          'pooled / PX-aws / SIA-azure MAPE')
    for (f, coll, par), cell in sorted(pred.items()):
        print('  %-15s %-13s %-7s %6.2f%% %6.2f%% %6.2f%%' % (
            f, coll, par, agg(cell, CELLS)[0], agg(cell, [k for k in CELLS if k[0] == 'PX-aws'])[0],
            agg(cell, [k for k in CELLS if k[0] == 'SIA-azure'])[0]))
    cross_validate(pred)
    if opts.rows:
        for p, d in zip(opts.json, docs):
            if isinstance(d.get('rows'), list) and d['rows']:
                print('\n%s: level and trend of the log error' % p)
                decompose(d)
                if any(g.get('overlap_window', {}).get('fit11') for g in d['groups']):
                    none_slope(d)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
