#!/usr/bin/env python3
"""Smoke test of bench/published/bench_published.py with the built hetsim.

Runs the bench on two calibration runs of validation/published (VF-A's c1, its
calibration, and c2, predicted), then reads its JSON and checks its structure: every
calibration group has a bandwidth per predictor key, every run has a measured step and
a prediction per predictor, every predicted step is positive and finite, the errors are
the predictions' against the measured step. No accuracy is asserted (that is the bench's
printout, docs/accuracy.md). Usage: test_bench_published.py HETSIM
"""
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, '..', 'bench', 'published', 'bench_published.py')


def fail(msg):
    sys.stderr.write('test_bench_published: FAIL: %s\n' % msg)
    sys.exit(1)


def main():
    hetsim = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix='hs-tbp-') as d:
        out = os.path.join(d, 'b.json')
        p = subprocess.run([sys.executable, BENCH, '--hetsim', hetsim, '--runs', 'c1,c2',
                            '--json', out, '--keep', os.path.join(d, 'scen')],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if p.returncode != 0:
            fail('bench exit %d: %s' % (p.returncode, p.stderr))
        doc = json.load(open(out))
        # the refusal of the held-apart mode without --frozen (exit 2, nothing scored)
        q = subprocess.run([sys.executable, BENCH, '--hetsim', hetsim, '--held-apart',
                            '--json', os.path.join(d, 'h.json')],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if q.returncode != 2 or '--frozen' not in q.stderr or os.path.exists(os.path.join(d, 'h.json')):
            fail('--held-apart without --frozen must refuse (exit 2): got %d %r' % (q.returncode, q.stderr))
        # ... and with a --frozen commit that is not HEAD (the root commit; in a checkout
        # without history, no commit at all): exit 2, nothing scored
        r = subprocess.run(['git', '-C', HERE, 'rev-list', '--max-parents=0', 'HEAD'],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
        other = (r.stdout.split() or ['0' * 40])[0]
        h = subprocess.run(['git', '-C', HERE, 'rev-parse', 'HEAD'], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
        if other == h:   # a one-commit (shallow) checkout: HEAD is its root
            other = '0' * 40
        q = subprocess.run([sys.executable, BENCH, '--hetsim', hetsim, '--held-apart', '--frozen', other,
                            '--json', os.path.join(d, 'h.json')],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if q.returncode != 2 or 'refusing' not in q.stderr and 'not a commit' not in q.stderr \
                or os.path.exists(os.path.join(d, 'h.json')):
            fail('--held-apart with a --frozen that is not HEAD must refuse (exit 2): got %d %r'
                 % (q.returncode, q.stderr))
    for k in ('format', 'hetsim_version', 'set', 'features', 'groups', 'runs', 'summary', 'notes'):
        if k not in doc:
            fail('no %r in the JSON' % k)
    if doc['format'] != 'hetsim.bench.published' or doc['set'] != 'calibration':
        fail('format/set: %r %r' % (doc['format'], doc['set']))
    for k in ('micro_batches', 't_b1_optional', 'collectives'):
        if k not in doc['features']:
            fail('features lacks %r' % k)
    if [g['cluster'] for g in doc['groups']] != ['VF-A'] or doc['groups'][0]['calibration_runs'] != ['c1']:
        fail('groups: %r' % doc['groups'])
    bws = doc['groups'][0]['bandwidth_bytes_per_s']
    want = {'%s/ring/devices' % p for p in ('source', 'extended', 'replay')}
    if not want <= set(bws):
        fail('bandwidth keys %r lack %r' % (sorted(bws), sorted(want)))
    for k, v in bws.items():
        if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            fail('bandwidth %s = %r' % (k, v))
    runs = {r['run']: r for r in doc['runs']}
    if set(runs) != {'c1', 'c2'} or runs['c1']['role'] != 'calibration' or runs['c2']['role'] != 'predicted':
        fail('runs: %r' % {k: v['role'] for k, v in runs.items()})
    if runs['c2']['gpus'] != 8 or runs['c2']['hosts'] != 2 or runs['c2']['gpus_per_host'] != [4, 4]:
        fail('c2 shape: %r' % runs['c2'])
    for name, r in runs.items():
        if not (r['measured_s'] > 0 and r['compute_max_s'] > 0):
            fail('%s: measured/compute %r %r' % (name, r['measured_s'], r['compute_max_s']))
        if 'naive' not in r['predicted_s'] or not want <= set(r['predicted_s']):
            fail('%s: predictors %r' % (name, sorted(r['predicted_s'])))
        for k, v in r['predicted_s'].items():
            if v is None and k in want:
                fail('%s: %s not predicted: %r' % (name, k, r['notes']))
            if v is None:
                continue
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                fail('%s: %s = %r' % (name, k, v))
            e = r['error_pct'][k]
            if abs(e - 100 * (v - r['measured_s']) / r['measured_s']) > 0.01:
                fail('%s: %s error %r does not match %r vs %r' % (name, k, e, v, r['measured_s']))
    s = doc['summary']
    if 'overall' not in s or s['overall']['cases'] != 1 or 'cluster VF-A' not in s:
        fail('summary: %r' % sorted(s))
    for k in want | {'naive'}:
        m = s['overall']['by_predictor'].get(k)
        if not m or m['cases'] != 1 or not math.isfinite(m['mape_pct']):
            fail('summary %s: %r' % (k, m))
    print('test_bench_published: ok (%d runs, %d predictor keys)' % (len(runs), len(runs['c2']['predicted_s'])))


if __name__ == '__main__':
    main()
