#!/usr/bin/env python3
"""bench/accuracy --repredict with the built hetsim, on two recorded cases.

The fixture (tests/data/accuracy/repredict-cases.json) holds two cases of the
tenth blind draw (docs/accuracy-draws/blind-seed801540414.json), trimmed: -03
as recorded (the profiles' figures only: the predictors that read gradient
buckets are not compared) and -07 with profile files as a live run records
them now (profile_files: every predictor compared).  The test reads the
--json output as data and checks its structure; that the recorded values are
the fixture's (read as data, not recomputed); that every difference and error
is the one its own values give; that the rebuilt profiles read back as the
recorded figures (the CPU quota of -03 from its profile's notes); that the
summary's MAPEs are the means of the errors it lists; and the bad inputs
(exit 2: a case lacking a field is named and skipped, the other one still
compared; an unreadable file).  It never compares a new prediction with the
recorded one: the model may change.  No testbed, no torch: only python3.
Usage: test_accuracy_repredict.py HETSIM
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ACCURACY = os.path.join(HERE, '..', 'bench', 'accuracy')
FIXTURE = os.path.join(HERE, 'data', 'accuracy', 'repredict-cases.json')
COLS = ('closed', 'closed_ext', 'patent', 'buckets', 'none', 'last_bucket',
        'buckets_eager', 'buckets_probe', 'recommended')
BUCKETS = ('buckets', 'last_bucket', 'buckets_eager', 'buckets_probe',
           'recommended', 'closed_ext')   # the scenario's mode is buckets
ROW_KEYS = ('recorded', 'new', 'diff_ns', 'diff_pct', 'err_recorded',
            'err_new', 'status', 'why')


def fail(msg):
    sys.stderr.write('test_accuracy_repredict: FAIL: %s\n' % msg)
    sys.exit(1)


def close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def run(hetsim, files, out, d):
    return subprocess.run([sys.executable, ACCURACY, '--repredict'] + files
                          + ['--hetsim', hetsim, '--json', out,
                             '--work', os.path.join(d, 'work')],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def recorded(r, k):
    if k == 'closed':
        return r['closed_ns']
    if k == 'closed_ext':
        return r['closed_ext_ns']
    return r['replay_ns'][k]


def check_case(c, r):
    """One case of the output against its record r."""
    m = r['measured_ns']
    if c['case'] != r['case'] or c['measured_ns'] != m:
        fail('%s: case/measured %r %r' % (r['case'], c['case'], c['measured_ns']))
    if c['overlap'] != 'buckets' or c['case_from'] != 'draw':
        fail('%s: overlap %r, case from %r' % (r['case'], c['overlap'], c['case_from']))
    if c['error'] is not None or c['inputs_same'] is not True:
        fail('%s: rebuilt figures differ from the record: %r %r'
             % (r['case'], c['error'], c['inputs_diff']))
    exact = 'profile_files' in r
    if c['profiles'] != ('recorded files' if exact else 'figures'):
        fail('%s: profiles %r' % (r['case'], c['profiles']))
    if sorted(c['predictors']) != sorted(COLS):
        fail('%s: predictors %r' % (r['case'], sorted(c['predictors'])))
    for k in COLS:
        x = c['predictors'][k]
        if sorted(x) != sorted(ROW_KEYS):
            fail('%s %s: keys %r' % (r['case'], k, sorted(x)))
        # the recorded value is the record's, its error the record's own
        if x['recorded'] != recorded(r, k):
            fail('%s %s: recorded %r, the fixture says %r' % (r['case'], k, x['recorded'], recorded(r, k)))
        if r['err'][k] is None:
            # a replay that failed in the draw (the tenth draw's eager replay
            # of -03 stalled): nothing recorded, its error neither
            if x['recorded'] is not None or x['err_recorded'] is not None:
                fail('%s %s: recorded %r without a recorded error' % (r['case'], k, x))
        elif not close(x['err_recorded'], r['err'][k]):
            fail('%s %s: err_recorded %r, the fixture says %r' % (r['case'], k, x['err_recorded'], r['err'][k]))
        if not exact and k in BUCKETS:
            if x['status'] != 'not_compared' or x['new'] is not None or 'buckets' not in x['why']:
                fail('%s %s: compared without buckets: %r' % (r['case'], k, x))
            continue
        if x['recorded'] is None:
            if x['status'] != 'new_only' or x['diff_ns'] is not None:
                fail('%s %s: nothing recorded but %r' % (r['case'], k, x))
            continue
        if x['status'] not in ('same', 'differs'):
            fail('%s %s: not compared: %r' % (r['case'], k, x))
        n = x['new']
        if not (isinstance(n, int) and n > 0):
            fail('%s %s: new %r' % (r['case'], k, n))
        if x['diff_ns'] != n - x['recorded'] or (x['status'] == 'same') != (n == x['recorded']):
            fail('%s %s: diff %r status %r for %r vs %r' % (r['case'], k, x['diff_ns'], x['status'], n, x['recorded']))
        if not close(x['diff_pct'], 100.0 * (n - x['recorded']) / x['recorded']):
            fail('%s %s: diff_pct %r' % (r['case'], k, x['diff_pct']))
        if not close(x['err_new'], (n - m) / m):
            fail('%s %s: err_new %r' % (r['case'], k, x['err_new']))
    if exact and not c['predictors']['recommended']['new'] == c['predictors']['buckets']['new']:
        fail('%s: the recommended replay (mode buckets) %r is not buckets %r'
             % (r['case'], c['predictors']['recommended']['new'], c['predictors']['buckets']['new']))
    if not exact and c.get('from_notes') != ['%s.%s' % (t, k) for t in r['types']
                                             for k in ('cpu_quota_cores', 't_cpu_period_ns')]:
        fail('%s: from_notes %r' % (r['case'], c.get('from_notes')))


def check_summary(doc, held):
    """The summary's MAPEs: the means of the |errors| the cases list."""
    s = doc['summary']
    for k in ('recorded', 'new', 'cases', 'cases_exact', 'compared', 'same', 'differs',
              'not_compared', 'skipped', 'failed_in_record'):
        if k not in s:
            fail('summary lacks %r' % k)
    if s['same'] + s['differs'] != s['compared'] or s['cases'] != len(doc['cases']):
        fail('summary counts %r' % {k: s[k] for k in ('cases', 'compared', 'same', 'differs')})
    if s['cases_exact'] != sum(1 for c in doc['cases'] if c['exact']):
        fail('cases_exact %r' % s['cases_exact'])
    for side, key in (('recorded', 'err_recorded'), ('new', 'err_new')):
        for k in COLS:
            errs = [abs(c['predictors'][k][key]) for c in doc['cases']
                    if c['predictors'][k]['status'] in ('same', 'differs')]
            st = s[side]['all'][k]
            if not errs:
                if st is not None:
                    fail('%s %s: statistics without values: %r' % (side, k, st))
                continue
            if st['n'] != len(errs) or not close(st['mape'], sum(errs) / len(errs)) \
                    or not close(st['worst'], max(errs)):
                fail('%s %s: %r against %r' % (side, k, st, errs))
            hs = [abs(c['predictors'][k][key]) for c in doc['cases']
                  if c['held'] and c['predictors'][k]['status'] in ('same', 'differs')]
            ht = s[side]['held'][k]
            if not hs:
                if ht is not None:
                    fail('%s %s held: statistics without values: %r' % (side, k, ht))
            elif ht is None or ht['n'] != len(hs) or not close(ht['mape'], sum(hs) / len(hs)):
                fail('%s %s held: %r against %r' % (side, k, ht, hs))
    if s[side]['held_cases'] != held:
        fail('held_cases %r, want %d' % (s[side]['held_cases'], held))


def main():
    hetsim = os.path.abspath(sys.argv[1])
    with open(FIXTURE) as f:
        fix = json.load(f)
    with tempfile.TemporaryDirectory(prefix='hs-trp-') as d:
        out = os.path.join(d, 'r.json')
        p = run(hetsim, [FIXTURE], out, d)
        if p.returncode != 0:
            fail('exit %d: %s' % (p.returncode, p.stderr))
        with open(out) as f:
            doc = json.load(f)
        if doc.get('format') != 'hetsim.accuracy.repredict' or doc['skipped']:
            fail('format/skipped: %r %r' % (doc.get('format'), doc.get('skipped')))
        if [c['case'] for c in doc['cases']] != [r['case'] for r in fix['results']]:
            fail('cases %r' % [c['case'] for c in doc['cases']])
        for c, r in zip(doc['cases'], fix['results']):
            check_case(c, r)
        if [c['held'] for c in doc['cases']] != [True, False]:
            fail('held %r' % [c['held'] for c in doc['cases']])
        check_summary(doc, 1)

        # bad input: a case without its links is named and skipped (exit 2),
        # the other one still compared; a file that is not JSON: exit 2
        bad = copy.deepcopy(fix)
        del bad['results'][0]['links']
        bad_path = os.path.join(d, 'bad.json')
        with open(bad_path, 'w') as f:
            json.dump(bad, f)
        out2 = os.path.join(d, 'r2.json')
        q = run(hetsim, [bad_path], out2, d)
        if q.returncode != 2 or 'links' not in q.stderr or fix['results'][0]['case'] not in q.stderr:
            fail('a case without links: exit %d, %r' % (q.returncode, q.stderr))
        with open(out2) as f:
            doc2 = json.load(f)
        if doc2['skipped'] != [{'file': bad_path, 'case': fix['results'][0]['case'],
                                'index': 0, 'field': 'links'}] \
                or [c['case'] for c in doc2['cases']] != [fix['results'][1]['case']]:
            fail('skipped %r, cases %r' % (doc2['skipped'], [c['case'] for c in doc2['cases']]))
        junk = os.path.join(d, 'junk.json')
        with open(junk, 'w') as f:
            f.write('{"results": [')
        q = run(hetsim, [junk], os.path.join(d, 'r3.json'), d)
        if q.returncode != 2 or 'junk.json' not in q.stderr:
            fail('unreadable JSON: exit %d, %r' % (q.returncode, q.stderr))
    print('test_accuracy_repredict: ok (%d cases, %d predictions compared, %d the same)'
          % (doc['summary']['cases'], doc['summary']['compared'], doc['summary']['same']))


if __name__ == '__main__':
    main()
