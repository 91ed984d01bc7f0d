#!/usr/bin/env python3
"""Which statistic of a profile's per-iteration samples predicts the full run's
per-phase mean best?  usage: bench/robust_stat.py WORKDIR  (a `bench/accuracy
--work DIR` or `--keep` directory: its case folders s*/ with prof.attempt*/TYPE/
*.sidecar.json and full*/rank*.json). Per case, type, profile attempt: mean/median/trimmed of the
plain iterations' t_fwd and t_bwd per rank, averaged over the type's ranks
(as hetsim ingest does), against the full runs' per-type mean forward (t_fwd_ns)
and backward up to its last gradient (t_grad_ns), steps after warm-up."""
import glob, json, os, statistics as st, sys

def trimmed(xs):
    xs = sorted(xs); k = int(0.1 * len(xs))
    return st.mean(xs[k:len(xs) - k] if k else xs)

STATS = {'mean': st.mean, 'median': st.median, 'trimmed': trimmed}
root = sys.argv[1]
rows = []
for case in sorted(glob.glob(os.path.join(root, 's*'))):
    fulls = sorted(glob.glob(os.path.join(case, 'full*', 'rank*.json')))
    if not fulls:
        continue
    full = {}
    for f in fulls:
        d = json.load(open(f))
        typ = {'f': 'fast', 'm': 'mid', 's': 'slow'}[d['host'][0]]
        w = d['warmup']
        full.setdefault(typ, {'fwd': [], 'bwd': []})
        full[typ]['fwd'] += d['t_fwd_ns'][w:]
        full[typ]['bwd'] += d['t_grad_ns'][w:]
    for att in sorted(glob.glob(os.path.join(case, 'prof.attempt*'))):
        for typ in sorted(full):
            scs = sorted(glob.glob(os.path.join(att, typ, '*.sidecar.json')))
            if not scs:
                continue
            per = {ph: {s: [] for s in STATS} for ph in ('fwd', 'bwd')}
            for sc in scs:
                p = json.load(open(sc))['plain']
                for ph, key in (('fwd', 't_fwd_ns'), ('bwd', 't_bwd_ns')):
                    for s, fn in STATS.items():
                        per[ph][s].append(fn(p[key]))
            for ph in ('fwd', 'bwd'):
                truth = st.mean(full[typ][ph])
                rows.append((os.path.basename(case), os.path.basename(att), typ, ph, truth,
                             {s: st.mean(v) / truth - 1 for s, v in per[ph].items()}))
print('%-16s %-14s %-5s %-4s %10s  %8s %8s %8s' % ('case', 'attempt', 'type', 'ph', 'full ms', 'mean', 'median', 'trimmed'))
for c, a, t, ph, tr, e in rows:
    print('%-16s %-14s %-5s %-4s %10.1f  %+7.1f%% %+7.1f%% %+7.1f%%' % (c, a, t, ph, tr / 1e6, 100 * e['mean'], 100 * e['median'], 100 * e['trimmed']))
for ph in ('fwd', 'bwd', None):
    sel = [r for r in rows if ph is None or r[3] == ph]
    print('%-5s n=%2d  MAPE: ' % (ph or 'both', len(sel)) + '  '.join('%s %.1f%%' % (s, 100 * st.mean(abs(r[5][s]) for r in sel)) for s in STATS)
          + '   closest: ' + ', '.join('%s %d' % (s, sum(1 for r in sel if min(r[5], key=lambda k: abs(r[5][k])) == s)) for s in STATS))
