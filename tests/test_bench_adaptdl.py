#!/usr/bin/env python3
"""bench/published/bench_adaptdl.py on a made-up AdaptDL cluster, against a reference model.

The test writes a tiny AdaptDL-format CSV of a cluster `TEST-ring` whose step times it
generates from the flat ring all-reduce after the whole backward: step = C(bsz) +
2 (N-1)/N x M / B, with B = B_INTRA inside one node and B_INTER when the ring crosses
nodes (B_INTER < B_INTRA, so the crossing edge is the slowest), M = the cifar10 gradient
bytes the bench uses (4 x 11,173,962). It runs the bench on it (calibration mode) and
reads its JSON: the ring/none predictors (nodes form and pod-per-GPU in rank order, closed
form and replay) must calibrate B_INTRA and B_INTER to 0.1% and predict every scored row
to 0.05%; the naive baseline must be C + step(11) - step(1) of the data. Then the refusals
(exit 2, nothing printed on stdout): a held-apart (SIA-dgx) row in the calibration mode;
--held-apart without --frozen; --held-apart with a --frozen commit that is not HEAD. The
held-apart mode's row selection and calibration rule are checked in process on made-up
SIA-dgx rows (the mode itself is never run). The fitted overlap windows (`fitcal`, `fit11`):
fit_window and overlap_spec against hand-worked slopes and lags, and a run with them on
the made-up cluster, whose exposed time does not change with the compute (window 0: the
buckets all ready at the backward's end), which must predict as ring/none does.
Usage: test_bench_adaptdl.py LIBHETSIM
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, '..', 'bench', 'published', 'bench_adaptdl.py')
M = 4 * 11173962
B_INTRA, B_INTER = 5e9, 1e9
BSZ = (8, 16, 32)
PLACEMENTS = ('1', '2', '4', '11', '22', '12', '124', '44', '1111')
HEAD = ('cluster,set,trace,workload,kind,placement,num_nodes,num_replicas,local_bsz,'
        'step_time_s,sync_time_s\n')


def fail(msg):
    sys.stderr.write('test_bench_adaptdl: FAIL: %s\n' % msg)
    sys.exit(1)


def compute(b):
    return 0.05 + 0.002 * b


def ref_step(pl, b):
    d = [int(c) for c in pl]
    n = sum(d)
    if n == 1:
        return compute(b)
    bw = B_INTRA if len(d) == 1 else B_INTER
    return compute(b) + 2.0 * (n - 1) / n * M / bw


def write_csv(path, cluster='TEST-ring', sset='calibration'):
    with open(path, 'w') as f:
        f.write('# made up by tests/test_bench_adaptdl.py\n' + HEAD)
        for pl in PLACEMENTS:
            for b in BSZ:
                f.write('%s,%s,test,cifar10,placement,%s,%d,%d,%d,%.9f,0.001\n' % (
                    cluster, sset, pl, len(pl), sum(int(c) for c in pl), b, ref_step(pl, b)))


def bench(args):
    return subprocess.run([sys.executable, BENCH] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


def close(a, b, rel):
    return abs(a - b) <= rel * abs(b)


def check_run(doc):
    g = doc['groups']
    if len(g) != 1 or g[0]['cluster'] != 'TEST-ring' or g[0]['gradient_bytes'] != M:
        fail('groups: %s' % g)
    if g[0]['calibration_rows'] != {'intra': 6, 'inter': 3}:
        fail('calibration rows %s' % g[0]['calibration_rows'])
    ring_keys = ['%s/%s-ring/none' % (f, form) for f in ('replay', 'closed')
                 for form in ('nodes', 'podsrank')]
    for k in ring_keys:
        bw = g[0]['bandwidth_bytes_per_s'][k]
        if not close(bw['intra'], B_INTRA, 1e-3) or not close(bw['inter'], B_INTER, 1e-3):
            fail('%s calibrated %s, want %g/%g' % (k, bw, B_INTRA, B_INTER))
    scored = [r for r in doc['rows'] if r['role'] == 'scored']
    want = {(pl, b) for pl in PLACEMENTS if len(pl) > 1 and pl != '11' for b in BSZ}
    if {(r['placement'], r['local_bsz']) for r in scored} != want:
        fail('scored rows %s' % sorted((r['placement'], r['local_bsz']) for r in scored))
    for r in scored:
        ref = ref_step(r['placement'], r['local_bsz'])
        for k in ring_keys:
            if not close(r['predicted_s'][k], ref, 5e-4):
                fail('%s %s: predicted %s, reference %s' % (r['placement'], k, r['predicted_s'][k], ref))
        b = r['local_bsz']
        naive = compute(b) + ref_step('11', b) - ref_step('1', b)
        if not close(r['predicted_s']['naive'], naive, 1e-4):
            fail('naive %s: %s, want %s' % (r['placement'], r['predicted_s']['naive'], naive))
        if ('unequal' in r['sets']) != (len(set(r['placement'])) > 1):
            fail('sets of %s: %s' % (r['placement'], r['sets']))
    s = doc['summary']['TEST-ring multinode all']['by_predictor']['replay/nodes-ring/none']
    if s['cases'] != len(scored) or s['mape_pct'] > 0.05:
        fail('summary %s' % s)
    for k, v in doc['summary']['TEST-ring multinode all']['by_predictor'].items():
        if v is None or v['cases'] != len(scored):
            fail('predictor %s scored %s' % (k, v))


def check_held_rule(lib, good, bad, d):
    """The held-apart mode's reading and calibration, in process (the mode itself is never
    run here): from a CSV holding both, it keeps only the held-apart (made-up) rows, and its
    groups calibrate by the same rule as the calibration clusters'."""
    sys.path.insert(0, os.path.dirname(BENCH))
    os.environ['HETSIM_LIBRARY'] = lib
    sys.path.insert(0, os.path.join(HERE, '..', 'python'))
    import bench_adaptdl as ba
    import hetsim
    both = os.path.join(d, 'both.csv')
    with open(both, 'w') as f:
        f.write(open(good).read() + ''.join(l for l in open(bad) if not l.startswith(('#', 'cluster'))))
    rows = ba.read_csv(both, True)
    if len(rows) != len(PLACEMENTS) * len(BSZ) or {r['cluster'] for r in rows} != {'SIA-dgx'}:
        fail('held-apart reading kept %d rows of %s' % (len(rows), {r['cluster'] for r in rows}))

    class Opts:
        compute, bwd_frac, ready_lag, window_scale = 'step', 2.0 / 3.0, 0.0, 1.0
    cal, out = ba.run_group(ba.Predictor(hetsim, Opts), 'SIA-dgx', 'cifar10',
                            [ba.parse(r) for r in rows], Opts)
    bw = cal['bandwidth_bytes_per_s']['replay/nodes-ring/none']
    if not close(bw['intra'], B_INTRA, 1e-3) or not close(bw['inter'], B_INTER, 1e-3):
        fail('held-apart rule calibrated %s' % bw)
    if cal['calibration_rows'] != {'intra': 6, 'inter': 3}:
        fail('held-apart calibration rows %s' % cal['calibration_rows'])


def check_fit_window():
    """Hand-worked: `2` at C 0.1, 0.2, 0.3 with exposed 0.50, 0.46, 0.42 (slope -0.4); `11`
    at C 0.1, 0.3 with exposed 0.9, 0.8 (slope -0.5). Pooled with one intercept each: sxx =
    0.02 + 0.02, sxy = -0.008 - 0.010, w = 0.45; `11` alone 0.5; without `11` rows, 0.4."""
    sys.path.insert(0, os.path.dirname(BENCH))
    import bench_adaptdl as ba
    two = [{'placement': '2', 'compute_s': c, 'step_s': c + e}
           for c, e in ((0.1, 0.50), (0.2, 0.46), (0.3, 0.42))]
    eleven = [{'placement': '11', 'compute_s': c, 'step_s': c + e} for c, e in ((0.1, 0.9), (0.3, 0.8))]
    for rows, only, want, n in ((two + eleven, None, 0.45, 5), (two + eleven, '11', 0.5, 2),
                                (two, '11', 0.4, 3)):
        w, used = ba.fit_window(rows, only)
        if abs(w - want) > 1e-9 or used != n:
            fail('fit_window(%s) = %s over %d rows, want %s over %d' % (only, w, used, want, n))

    class Opts:
        bwd_frac, window_scale = 2.0 / 3.0, 1.0
    g = {'intra': two, 'inter': eleven}
    # fit11: w 0.5, lag 1 - 0.5 / (2/3) = 0.25; scaled by 2: clipped to 2/3, lag 0;
    # a rising exposed time (w < 0): window 0, lag 0.999; none and buckets pass through
    for ov, scale, grp, lag in (('fit11', 1.0, g, 0.25), ('fit11', 2.0, g, 0.0),
                                ('fitcal', 1.0, {'intra': [dict(r, step_s=2 * r['compute_s'])
                                                           for r in two], 'inter': []}, 0.999)):
        Opts.window_scale = scale
        spec, rec = ba.overlap_spec(ov, grp, Opts)
        if spec[0] != 'buckets' or abs(spec[1] - lag) > 1e-6 or abs(rec['ready_lag'] - lag) > 1e-6:
            fail('overlap_spec(%s, x%s) = %s %s, want lag %s' % (ov, scale, spec, rec, lag))
    for ov in ('none', 'buckets'):
        if ba.overlap_spec(ov, g, Opts) != (ov, None):
            fail('overlap_spec(%s) is not a pass-through' % ov)


def check_fitted_run(doc):
    """The made-up cluster's exposed time is the same at every batch: both fitted windows
    are 0 and the fitted overlaps predict as ring/none: bandwidths to 0.5%, steps to 0.1% (lag
    0.999 still hides up to 0.1% of the backward, ~30 us here, against 9-18 ms all-reduces
    inside a node)."""
    g = doc['groups'][0]
    for ov in ('fitcal', 'fit11'):
        rec = g['overlap_window'][ov]
        if abs(rec['fitted_window']) > 1e-4 or rec['window'] != 0 or rec['ready_lag'] != 0.999:
            fail('%s window on the made-up cluster: %s' % (ov, rec))
        for f in ('replay', 'closed'):
            k = '%s/nodes-ring/%s' % (f, ov)
            bw = g['bandwidth_bytes_per_s'][k]
            if not close(bw['intra'], B_INTRA, 5e-3) or not close(bw['inter'], B_INTER, 5e-3):
                fail('%s calibrated %s, want %g/%g' % (k, bw, B_INTRA, B_INTER))
            for r in doc['rows']:
                if r['role'] == 'scored':
                    ref = ref_step(r['placement'], r['local_bsz'])
                    if not close(r['predicted_s'][k], ref, 1e-3):
                        fail('%s %s: predicted %s, reference %s' % (r['placement'], k,
                                                                     r['predicted_s'][k], ref))
    if 'fitted' not in doc['mapping']:
        fail('the JSON mapping does not describe the fitted overlaps')


def main():
    lib = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix='hs-tba-') as d:
        good = os.path.join(d, 'good.csv')
        write_csv(good)
        out = os.path.join(d, 'b.json')
        p = bench(['--lib', lib, '--pollux-csv', good, '--json', out])
        if p.returncode != 0:
            fail('bench exit %d: %s' % (p.returncode, p.stderr))
        check_run(json.load(open(out)))
        if 'fitted' in json.load(open(out))['mapping']:
            fail('the default run describes the fitted overlaps')
        check_fit_window()
        p = bench(['--lib', lib, '--pollux-csv', good, '--json', out, '--shapes', 'nodes-ring',
                   '--overlaps', 'none,fitcal,fit11'])
        if p.returncode != 0:
            fail('bench --overlaps none,fitcal,fit11 exit %d: %s' % (p.returncode, p.stderr))
        check_fitted_run(json.load(open(out)))
        q = bench(['--lib', lib, '--pollux-csv', good, '--overlaps', 'none,fitted'])
        if q.returncode != 2 or q.stdout:
            fail('--overlaps with an unknown overlap: exit %d' % q.returncode)
        # a held-apart row read in the calibration mode: exit 2 before any figure
        bad = os.path.join(d, 'held.csv')
        write_csv(bad, cluster='SIA-dgx', sset='held-apart')
        for args in (['--pollux-csv', bad], ['--no-pollux', '--sia-csv', bad]):
            q = bench(['--lib', lib, '--json', os.path.join(d, 'h.json')] + args)
            if q.returncode != 2 or q.stdout or os.path.exists(os.path.join(d, 'h.json')):
                fail('held-apart row in the calibration mode: exit %d, stdout %r' % (q.returncode, q.stdout))
            if 'held-apart' not in q.stderr or '%.3f' % ref_step('22', 8) in q.stderr:
                fail('held-apart refusal message: %r' % q.stderr)
        # the held-apart mode without --frozen, and with a commit that is not HEAD
        q = bench(['--lib', lib, '--held-apart', '--sia-heldapart-csv', bad])
        if q.returncode != 2 or q.stdout:
            fail('--held-apart without --frozen: exit %d' % q.returncode)
        r = subprocess.run(['git', '-C', HERE, 'rev-list', '--max-parents=0', 'HEAD'],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
        other = (r.stdout.split() or ['0' * 40])[0]     # the root commit (not HEAD), or none
        h = subprocess.run(['git', '-C', HERE, 'rev-parse', 'HEAD'], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
        if other == h:   # a one-commit (shallow) checkout: HEAD is its root
            other = '0' * 40
        q = bench(['--lib', lib, '--held-apart', '--frozen', other, '--sia-heldapart-csv', bad])
        if q.returncode != 2 or q.stdout:
            fail('--held-apart with a --frozen that is not HEAD: exit %d' % q.returncode)
        check_held_rule(lib, good, bad, d)
    print('test_bench_adaptdl: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
