#!/usr/bin/env python3
"""hetsim against published GPU-cluster measurements (validation/published).

For every timed multi-host run of the VirtualFlow data (validation/published/
virtualflow-mlsys22.yaml) this writes hetsim scenarios, calibrates ONE inter-host
bandwidth per cluster and model on the cluster's smallest configuration only (bisection
on hetsim's own prediction), predicts the other runs with `hetsim predict --json` and
scores every predictor against the measured step and against the naive baseline.
hetsim predicts; this program only builds scenarios, calibrates and scores.

The scenario mapping (printed again in the JSON's `mapping`):

* each GPU a device; a host's GPUs adjacent in the ring (`devices:` form, device
  `<host>-g<j>`, address = the host), and the same cluster as `nodes:` (one kind per
  GPU type and GPUs per host, one NIC per host at the inter-host bandwidth);
* a type's compute = micro_batches x t(type, micro-batch size), t from the standalone
  single-GPU runs (VirtualFlow's `m` runs), linear between the two sizes measured, as
  validation/published/check_models.py does (its functions are used);
* only a step time is known per micro-batch (one forward + backward + optimizer
  update): `--split fold` (default) puts everything before the all-reduce into t_fwd
  and t_b1 (t_b1 = t_bwd = 2/3 of one micro-batch, t_fwd = the rest), so that every
  predictor starts the all-reduce after the whole compute, as VirtualFlow does (it
  reduces after the last micro-batch); `--split phases` writes the last micro-batch's
  backward as a backward (t_fwd = (V-1) t + t/3, t_bwd = 2t/3, t_b1 = t_bwd/50) with
  `simulate.overlap: none`, which shows what the closed forms do with that;
* the payload: allreduce_bytes D with subsystem_size n = 2, so M = D n/(2(n-1)) = D =
  the model's gradient bytes;
* intra-host links 10 GB/s (PCIe 3.0 x16 as NCCL's P2P/SHM transports reach it: the
  P100-PCIE hosts; 50-100x the calibrated inter-host TCP bandwidth, so the exact
  figure moves a step by well under 1%); latency 0 (the calibration absorbs it).

Features hetsim may gain (each one switch, probed once on a small scenario; refused
=> the fallback and a note): `micro_batches` per device type (else multiplied into the
compute by hand), an optional t_b1 (else written), `collective: tree|auto` and the
hierarchical collective on hosts of different sizes (else that predictor is reported as not
available).

Usage:
  bench_published.py [--hetsim PATH] [--json FILE] [--runs c1,c2,...] [--split fold|phases]
                     [--keep DIR] [--no-nodes] [--intra B_PER_S]
  bench_published.py --held-apart --frozen COMMIT ...   (the final, one-time report only; HEAD = COMMIT, clean tree)

Exit status: 0 ok, 2 bad arguments or a refused mode, 1 hetsim failed on a scenario.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
PUB = os.path.join(ROOT, 'validation', 'published')
sys.path.insert(0, PUB)
import check_models as cm  # noqa: E402  (the data and the compute interpolation)

INTRA_BYTES_PER_S = 10e9
BISECT_REL_TOL = 1e-4          # on the mean signed error of the calibration runs
BISECT_MAX_IT = 60

# Calibration groups: (cluster, model key, label, calibration runs, predicted runs, set).
# The calibration runs are the README's "smallest configuration" per cluster and model.
GROUPS = [
    ('VF-A', 'resnet-imagenet', 'ResNet-50', ['c1'],
     ['c2', 'd1a', 'd1b', 'd1c', 'd2a', 'd2b', 'd2c', 'd2d', 'd3'], 'calibration'),
    ('VF-D', 'resnet-imagenet', 'ResNet-50 256/GPU', ['i4', 'i5'], ['i6', 'i8'], 'calibration'),
    ('VF-D', 'resnet-imagenet', 'ResNet-50 1/GPU', ['i1', 'i2'], ['i3', 'i7'], 'calibration'),
    ('VF-D', 'bert', 'BERT 48/GPU', ['l4', 'l5'], ['l6', 'l8'], 'calibration'),
    ('VF-D', 'bert', 'BERT 1/GPU', ['l1', 'l2'], ['l3', 'l7'], 'calibration'),
    ('VF-D', 'transformer', 'Transformer 4096/GPU', ['k4', 'k5'], ['k6', 'k8'], 'calibration'),
    ('VF-D', 'resnet-cifar10', 'ResNet-56 128/GPU', ['j4', 'j5'], ['j6', 'j8'], 'calibration'),
    ('VF-D', 'resnet-cifar10', 'ResNet-56 1/GPU', ['j1', 'j2'], ['j3', 'j7'], 'calibration'),
    ('VF-E', 'resnet-imagenet', 'ResNet-50', ['a2'], [], 'calibration'),
    ('VF-F', 'resnet-imagenet', 'ResNet-50', ['a3'], [], 'calibration'),
    # held apart: scored only by --held-apart --frozen COMMIT
    ('VF-B', 'resnet-imagenet', 'ResNet-50', ['c3'], ['d4a', 'd4b', 'd4c'], 'held-apart'),
    ('VF-C', 'transformer', 'Transformer', ['g1', 'g2'], ['g3', 'g4', 'h1', 'h2', 'h3'], 'held-apart'),
]
NOT_SCENARIOS = {
    'HS-crc': 'held apart; and HetSeq\'s README table gives no GPU type, network or per-GPU compute',
    'SA-clariden': 'per-type compute not extracted (Sailor\'s profiles); the N1 rows give a micro-batch of 1 only, '
                   'the DP runs use micro-batches of 2-8: the compute would be extrapolated 8x; one replica = 4 GPUs in TP',
    'SA-mit': 'held apart; model not named, per-type compute not extracted',
    'NT-nccl-tests-*': 'collective checks on 2 nodes, not training steps',
}
PREDICTORS = ['source', 'extended', 'replay']
MAPPING = {
    'devices': 'each GPU a device <host>-g<j>, address = its host; hosts in the order the run lists '
               'them, a host\'s GPUs adjacent in the ring (ring: listing)',
    'nodes': 'one kind per (device type, GPUs per host), nodes in listing order, 1 NIC per host at '
             'the inter-host bandwidth; refused when a host holds two types or kinds interleave',
    'compute': 'micro_batches x t(type, micro-batch size): the standalone single-GPU step (VirtualFlow '
               'm runs: forward + backward + one optimizer update), linear between the two sizes '
               'measured (check_models.t_micro)',
    'split_fold': 't_b1 = t_bwd = 2/3 t(micro), t_fwd = V t(micro) - t_bwd: the all-reduce after the '
                  'whole compute in every predictor (VirtualFlow reduces after the last micro-batch)',
    'split_phases': 't_fwd = (V-1) t + t/3, t_bwd = 2t/3, t_b1 = t_bwd/50 (left out where hetsim '
                    'accepts no t_b1), overlap none',
    'payload': 'allreduce_bytes D = the model gradient bytes with subsystem_size 2 (M = D n/(2(n-1)) = D)',
    'accumulation': 'device_types[].micro_batches when hetsim accepts it (profile per micro-batch), '
                    'else multiplied into t_fwd by hand',
    'links': 'inter-host: one bandwidth per cluster and model, bisected so that the predictor\'s '
             'mean signed error over the calibration runs is 0; intra-host: --intra (10 GB/s); '
             'latency 0',
    'naive': 'max compute + the calibration runs\' mean (step - max compute)',
}


def die(msg, code=2):
    sys.stderr.write('bench_published: %s\n' % msg)
    sys.exit(code)


def git(*args):
    """(exit status, stripped standard output) of git with args in this checkout."""
    q = subprocess.run(['git', '-C', ROOT] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return q.returncode, q.stdout.strip()


def head_desc():
    """HEAD's short hash, with ' (modified)' when tracked files differ from it; None outside
    a git checkout. What a benchmark's JSON records as git_head."""
    rc, head = git('rev-parse', '--short', 'HEAD')
    _, dirty = git('status', '--porcelain', '--untracked-files=no')
    return (head + (' (modified)' if dirty else '')) if rc == 0 else None


def library_path(hetsim):
    """The libhetsim the Python binding loaded, as an absolute path ('?' when unknown)."""
    return os.path.abspath(getattr(hetsim._n, 'LIBRARY_PATH', '') or '?')


def write_json(path, doc):
    """doc as indented JSON to path, through path.tmp and a rename (never half-written)."""
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, path)


def frozen_commit(frozen):
    """The full hash of `frozen`, or (None, why) unless it is a commit of this checkout, HEAD is
    that commit and the working tree is clean: a held-apart score must be of the frozen model
    itself, not of later or uncommitted changes. Returns (hash, None) when all three hold."""
    rc, want = git('rev-parse', '--verify', frozen + '^{commit}')
    if rc != 0:
        return None, '--frozen %s is not a commit of %s' % (frozen, ROOT)
    rc, head = git('rev-parse', 'HEAD')
    if rc != 0 or head != want:
        return None, ('refusing the held-apart mode: HEAD (%s) is not the frozen commit %s'
                      % (head, want))
    rc, dirty = git('status', '--porcelain')
    if rc != 0 or dirty:
        return None, 'refusing the held-apart mode: the working tree is not clean (commit or stash first)'
    return want, None


def illinois(f, a, fa, b, fb, tol, max_it):
    """A root of f between a and b, where fa = f(a) and fb = f(b) have opposite signs: regula
    falsi with the Illinois rule (the end kept twice in a row has its value halved), stopping at
    |f(x)| < tol or after max_it steps. (x, True); (None, False) as soon as f returns None.
    Shared by the published benches' calibrations."""
    side, x = 0, b
    for _ in range(max_it):
        x = b - fb * (b - a) / (fb - fa) if fb != fa else 0.5 * (a + b)
        fx = f(x)
        if fx is None:
            return None, False
        if abs(fx) < tol:
            break
        if (fx > 0) == (fa > 0):
            a, fa = x, fx
            if side == -1:
                fb *= 0.5
            side = -1
        else:
            b, fb = x, fx
            if side == 1:
                fa *= 0.5
            side = 1
    return x, True


def ns(x_s):
    return '%dns' % max(1, int(round(x_s * 1e9)))


def hosts_of(r):
    """The run's hosts in first-appearance order: [(host, type, [process, ...], gpus)]."""
    out = {}
    for p in r['processes']:
        h = out.setdefault(p['host'], {'type': cm.short_type(p['type']), 'procs': [], 'gpus': 0})
        if h['type'] != cm.short_type(p['type']):
            die('run %s: host %s holds two GPU types' % (r['run'], p['host']))
        h['procs'].append(p)
        h['gpus'] += p['gpus']
    return [(k, v['type'], v['procs'], v['gpus']) for k, v in out.items()]


def type_groups(r):
    """Device types of a run: one per (GPU type, batch, micro-batches); name -> dict."""
    tys = {}
    for p in r['processes']:
        t = cm.short_type(p['type'])
        key = (t, p['batch_per_gpu'], p['micro_batches'])
        tys.setdefault(key, 0)
        tys[key] += p['gpus']
    names = {}
    for (t, b, v) in tys:
        same = [k for k in tys if k[0] == t]
        names[(t, b, v)] = t if len(same) == 1 else '%s-b%dx%d' % (t, b, v)
    return names


class Features:
    """What the hetsim at hand accepts: probed once each (a refusal => fallback + note)."""

    def __init__(self, hs, workdir, notes):
        self.hs, self.workdir, self.notes = hs, workdir, notes
        self.micro_batches = self.probe('micro_batches', self._probe_doc(micro=True))
        self.t_b1_optional = self.probe('t_b1 optional', self._probe_doc(no_b1=True))
        self.collectives = {'ring': True, 'hierarchical': True}
        for c in ('tree', 'auto'):
            self.collectives[c] = self.probe('collective: ' + c, self._probe_doc(coll=c))
        self.collectives['hierarchical_unequal'] = self.probe(
            'collective: hierarchical on nodes of different sizes',
            self._probe_doc(coll='hierarchical', unequal=True))

    def _probe_doc(self, micro=False, no_b1=False, coll=None, unequal=False):
        prof = {'subsystem_size': 2, 't_fwd': '10ms', 't_b1': '1ms', 't_bwd': '20ms',
                'allreduce_bytes': '1MB'}
        if no_b1:
            del prof['t_b1']
        ty = {'name': 'g', 'batch': 8, 'profile': prof}
        if micro:
            ty['micro_batches'] = 2
        doc = {'name': 'probe', 'device_types': [ty],
               'nodes': {'kinds': [{'name': 'k', 'type': 'g', 'devices': 2, 'count': 2,
                                    'intra_bandwidth': '10GB/s'}],
                         'inter_bandwidth': '1GB/s'},
               'simulate': {'steps': 4, 'overlap': 'none'}}
        if unequal:
            doc['nodes']['kinds'].append({'name': 'k1', 'type': 'g', 'devices': 1, 'count': 1})
        if coll:
            doc['collective'] = coll
        return doc

    def probe(self, what, doc):
        res = run_hetsim(self.hs, doc, os.path.join(self.workdir, 'probe.yaml'), check=False)
        if isinstance(res, str):
            self.notes.append('hetsim refuses %s (%s): fallback used' % (what, res.strip().splitlines()[-1]))
            return False
        self.notes.append('hetsim accepts %s' % what)
        return True

    def as_dict(self):
        return {'micro_batches': self.micro_batches, 't_b1_optional': self.t_b1_optional,
                'collectives': self.collectives}


def run_hetsim(hs, doc, path, check=True):
    """Writes doc to path, runs `hetsim predict --json`; the parsed JSON, or (check=False) the
    error text when hetsim refuses it."""
    with open(path, 'w') as f:
        yaml.safe_dump(doc, f, sort_keys=False, width=200)
    p = subprocess.run([hs, 'predict', '--json', path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        if check:
            die('hetsim failed on %s (exit %d): %s' % (path, p.returncode, p.stderr.strip()), 1)
        return p.stderr or ('exit %d' % p.returncode)
    return json.loads(p.stdout)


def build_scenario(r, m_bytes, bw, form, collective, opts, feats):
    """The scenario of run r (a dict for yaml): form 'devices' or 'nodes'; bw in B/s."""
    model = cm.model_of(r)
    names = type_groups(r)
    types = []
    for (t, b, v), name in names.items():
        micro = b // v
        tm = cm.t_micro(model, t, micro)          # one micro-batch: fwd + bwd (+ update), s
        if feats.micro_batches:
            reps, t_fwd, t_bwd = v, tm / 3.0, 2.0 * tm / 3.0
            t_b1 = t_bwd / 50.0 if opts.split == 'phases' else t_bwd
        elif opts.split == 'phases':
            reps, t_fwd, t_bwd = 1, (v - 1) * tm + tm / 3.0, 2.0 * tm / 3.0
            t_b1 = t_bwd / 50.0
        else:   # fold: the whole compute before the all-reduce in t_fwd + t_b1
            reps, t_bwd = 1, 2.0 * tm / 3.0
            t_b1, t_fwd = t_bwd, v * tm - t_bwd
        prof = {'subsystem_size': 2, 't_fwd': ns(t_fwd)}
        # t_b1 is a modelling choice in `fold` (= t_bwd: no overlap in any predictor) and a
        # guess in `phases` (nothing measured it): the guess is left out where hetsim
        # accepts a profile without t_b1
        if opts.split == 'fold' or not feats.t_b1_optional:
            prof['t_b1'] = ns(t_b1)
        prof['t_bwd'] = ns(t_bwd)
        prof['allreduce_bytes'] = '%dB' % m_bytes          # n = 2: M = D
        prof['source'] = ('validation/published standalone runs: %s %s, micro-batch %d: %.4f s '
                          '(fwd+bwd+update), x %d micro-batches %s'
                          % (model, t, micro, tm, v,
                             'by the micro_batches key' if reps > 1 else 'multiplied in by hand'))
        ty = {'name': name, 'batch': b, 'profile': prof}
        if reps > 1:
            ty['micro_batches'] = reps
        types.append(ty)
    doc = {'name': 'published-%s' % r['run'], 'job': {'model': model}, 'device_types': types}
    hs = hosts_of(r)
    if form == 'devices':
        devs, links = [], []
        for hi, (host, t, procs, g) in enumerate(hs):
            names_h = []
            for p in procs:
                for _ in range(p['gpus']):
                    n = 'h%d-g%d' % (hi, len(names_h))
                    names_h.append(n)
                    ty = names[(t, p['batch_per_gpu'], p['micro_batches'])]
                    devs.append({'name': n, 'type': ty, 'addr': host})
            for a, b in zip(names_h, names_h[1:] + names_h[:1]):
                if a != b:
                    links.append([a, b, '%dB/s' % opts.intra])
        doc['devices'] = devs
        doc['network'] = {'default_bandwidth': '%dB/s' % round(bw), 'latency': '0ns'}
        if links:
            doc['network']['links'] = links
    else:
        kinds = {}
        order = []
        for host, t, procs, g in hs:
            tys = {names[(t, p['batch_per_gpu'], p['micro_batches'])] for p in procs}
            if len(tys) != 1:
                return None           # a host with two device types: no nodes form
            key = (tys.pop(), g)
            if key not in kinds:
                kinds[key] = 0
                order.append(key)
            elif order[-1] != key:
                return None           # kinds interleaved in the listing: nodes form would reorder
            kinds[key] += 1
        kl = []
        for (ty, g) in order:
            k = {'name': '%s-x%d' % (ty, g), 'type': ty, 'devices': g, 'count': kinds[(ty, g)],
                 'nics': 1, 'nic_bandwidth': '%dB/s' % round(bw)}
            if g > 1:
                k['intra_bandwidth'] = '%dB/s' % opts.intra
            kl.append(k)
        doc['nodes'] = {'kinds': kl, 'inter_bandwidth': '%dB/s' % round(bw), 'inter_latency': '0ns'}
        if collective != 'ring':
            doc['collective'] = collective
    doc['simulate'] = {'steps': 10, 'overlap': 'none'}
    return doc


def variants(r, feats, opts):
    """(key, form, collective) of every prediction made for run r."""
    out = [('ring/devices', 'devices', 'ring')]
    if opts.no_nodes:
        return out
    out.append(('ring/nodes', 'nodes', 'ring'))
    hs = hosts_of(r)
    if len({g for _, _, _, g in hs}) == 1 or feats.collectives.get('hierarchical_unequal'):
        out.append(('hierarchical/nodes', 'nodes', 'hierarchical'))
    for c in ('tree', 'auto'):
        if feats.collectives.get(c):
            out.append(('%s/nodes' % c, 'nodes', c))
    return out


class Predictor:
    def __init__(self, hs, workdir, feats, opts):
        self.hs, self.workdir, self.feats, self.opts = hs, workdir, feats, opts
        self.cache = {}
        self.calls = 0

    def predict(self, r, m_bytes, bw, form, coll):
        key = (r['run'], round(bw), form, coll)
        if key in self.cache:
            return self.cache[key]
        doc = build_scenario(r, m_bytes, bw, form, coll, self.opts, self.feats)
        if doc is None:
            self.cache[key] = None
            return None
        path = os.path.join(self.workdir, '%s-%s-%s.yaml' % (r['run'], form, coll))
        out = run_hetsim(self.hs, doc, path, check=False)
        self.calls += 1
        if isinstance(out, str):
            res = {'error': out.strip().splitlines()[-1]}
        else:
            res = {p: (out['step_%s_ns' % p] / 1e9 if out.get('step_%s_ns' % p) else None)
                   for p in PREDICTORS}
            res['recommended'] = out['predictor_recommended']
        self.cache[key] = res
        return res


def calibrate(pr, cal_runs, m_bytes, form, coll, pred, hint):
    """Bisection (in log bandwidth) for the B at which `pred`'s prediction of the calibration
    runs has a mean signed error of zero. None when hetsim cannot predict them."""
    def err(bw):
        es = []
        for r in cal_runs:
            res = pr.predict(r, m_bytes, bw, form, coll)
            if res is None or 'error' in res or res.get(pred) is None:
                return None
            es.append((res[pred] - r['step_s_median']) / r['step_s_median'])
        return sum(es) / len(es)
    if hint:
        e = err(hint)
        if e is None:
            return None
        if abs(e) < BISECT_REL_TOL:
            return hint
    lo, hi = 1e5, 1e12          # B/s; a larger B => a shorter step
    elo, ehi = err(lo), err(hi)
    if elo is None or ehi is None or elo < 0 or ehi > 0:
        return None             # no bandwidth reproduces the calibration step
    for _ in range(BISECT_MAX_IT):
        mid = math.sqrt(lo * hi)
        e = err(mid)
        if abs(e) < BISECT_REL_TOL:
            return mid
        if e > 0:
            lo = mid
        else:
            hi = mid
    return math.sqrt(lo * hi)


def main(argv):
    ap = argparse.ArgumentParser(prog='bench_published.py', description=__doc__.split('\n')[0])
    ap.add_argument('--hetsim', default=os.environ.get('HETSIM', os.path.join(ROOT, 'build', 'hetsim')))
    ap.add_argument('--json', metavar='FILE')
    ap.add_argument('--runs', help='only these runs (short names, e.g. c1,c2); a group is kept when '
                                   'its calibration runs are all listed')
    ap.add_argument('--split', choices=['fold', 'phases'], default='fold')
    ap.add_argument('--keep', metavar='DIR', help='write the scenarios there (else a temp dir)')
    ap.add_argument('--no-nodes', action='store_true', help='the devices: form only')
    ap.add_argument('--intra', type=float, default=INTRA_BYTES_PER_S, metavar='B_PER_S',
                    help='intra-host link bandwidth, bytes/s (default 10e9)')
    ap.add_argument('--held-apart', action='store_true',
                    help='score the held-apart clusters (final, one-time report; needs --frozen)')
    ap.add_argument('--frozen', metavar='COMMIT', help="the commit of hetsim's model being judged")
    opts = ap.parse_args(argv)

    sets = ['calibration']
    commit = None
    if opts.held_apart:
        if not opts.frozen:
            die('--held-apart refuses to run without --frozen COMMIT (the commit of the hetsim model '
                'being judged): the held-apart set is for the final, one-time report')
        commit, why = frozen_commit(opts.frozen)
        if why:
            die(why)
        sys.stderr.write('WARNING: scoring the HELD-APART set against hetsim frozen at %s. This is the '
                         'final, one-time report: do not tune anything on these figures.\n' % commit)
        sets = ['held-apart']
    if not os.access(opts.hetsim, os.X_OK):
        die('no hetsim at %s (build it, or give --hetsim)' % opts.hetsim)
    only = set(opts.runs.split(',')) if opts.runs else None

    notes = []
    workdir = opts.keep or tempfile.mkdtemp(prefix='hs-published-')
    os.makedirs(workdir, exist_ok=True)
    feats = Features(opts.hetsim, workdir, notes)
    if not feats.micro_batches:
        notes.append('gradient accumulation: micro-batches multiplied into the compute by hand '
                     '(hetsim has no micro_batches key)')
    version = subprocess.run([opts.hetsim, '--version'], stdout=subprocess.PIPE,
                             universal_newlines=True).stdout.strip()
    pr = Predictor(opts.hetsim, workdir, feats, opts)

    rows, groups = [], []
    for cluster, model, label, cal, pred, gset in GROUPS:
        if gset not in sets:
            continue
        if only is not None:
            if not set(cal) <= only:
                continue
            pred = [x for x in pred if x in only]
        for name in cal + pred:
            if cm.RUNS[name]['set'] not in sets:
                die('refusing: %s is %s' % (name, cm.RUNS[name]['set']))
        m_bytes = cm.DATA['models'][model]['gradient_bytes']
        cal_runs = [cm.RUNS[x] for x in cal]
        keys = []
        for r in cal_runs + [cm.RUNS[x] for x in pred]:
            for v in variants(r, feats, opts):
                if v not in keys:
                    keys.append(v)
        bws = {}
        hint = None
        for key, form, coll in keys:
            for p in PREDICTORS:
                b = calibrate(pr, cal_runs, m_bytes, form, coll, p, hint)
                bws['%s/%s' % (p, key)] = b
                hint = b or hint
        t_cal = sum(r['step_s_median'] - max(cm.compute_of(r)) for r in cal_runs) / len(cal_runs)
        groups.append({'cluster': cluster, 'model': model, 'label': label, 'set': gset,
                       'calibration_runs': cal, 'predicted_runs': pred,
                       'gradient_bytes': m_bytes, 'allreduce_cal_s': round(t_cal, 4),
                       'bandwidth_bytes_per_s': {k: (round(v) if v else None) for k, v in bws.items()}})
        for role, names_ in (('calibration', cal), ('predicted', pred)):
            for name in names_:
                r = cm.RUNS[name]
                comp = max(cm.compute_of(r))
                meas = r['step_s_median']
                hs = hosts_of(r)
                row = {'run': name, 'cluster': cluster, 'group': label, 'kind': r['kind'], 'role': role,
                       'gpus': sum(g for _, _, _, g in hs), 'hosts': len(hs),
                       'gpus_per_host': [g for _, _, _, g in hs],
                       'measured_s': meas, 'compute_max_s': round(comp, 4),
                       'allreduce_measured_s': round(meas - comp, 4),
                       'predicted_s': {'naive': round(comp + t_cal, 4)}, 'notes': []}
                avail = {k for k, _, _ in variants(r, feats, opts)}
                for key, form, coll in keys:
                    for p in PREDICTORS:
                        k = '%s/%s' % (p, key)
                        b = bws.get(k)
                        if key not in avail:
                            continue
                        if b is None:
                            row['predicted_s'][k] = None
                            row['notes'].append('%s: no calibration' % k)
                            continue
                        res = pr.predict(r, m_bytes, b, form, coll)
                        if res is None or 'error' in res:
                            row['predicted_s'][k] = None
                            row['notes'].append('%s: %s' % (k, res['error'] if res else 'no scenario'))
                            continue
                        row['predicted_s'][k] = round(res[p], 4) if res[p] is not None else None
                        row['recommended'] = res['recommended']
                row['error_pct'] = {k: (round(100 * (v - meas) / meas, 2) if v is not None else None)
                                    for k, v in row['predicted_s'].items()}
                rows.append(row)

    summary = summarize(rows)
    doc = {'format': 'hetsim.bench.published', 'format_version': 1, 'hetsim_version': version,
           'hetsim': os.path.abspath(opts.hetsim), 'set': sets[0], 'frozen_commit': commit,
           'command': 'bench/published/bench_published.py ' + ' '.join(argv),
           'split': opts.split, 'intra_bandwidth_bytes_per_s': opts.intra,
           'features': feats.as_dict(), 'mapping': MAPPING, 'notes': notes, 'hetsim_calls': pr.calls,
           'not_scenarios': NOT_SCENARIOS, 'groups': groups, 'runs': rows, 'summary': summary}
    print_table(doc)
    if opts.json:
        write_json(opts.json, doc)
    return 0


def mape(rows, k):
    errs = [abs(x['error_pct'][k]) for x in rows if x['error_pct'].get(k) is not None]
    if not errs:
        return None
    return {'cases': len(errs), 'mape_pct': round(sum(errs) / len(errs), 2), 'worst_pct': max(errs),
            'missing': sum(1 for x in rows if k in x['error_pct'] and x['error_pct'][k] is None)}


def summarize(rows):
    pred = [x for x in rows if x['role'] == 'predicted']
    keys = []
    for x in pred:
        for k in x['error_pct']:
            if k not in keys:
                keys.append(k)
    sel = {'overall': pred, 'mixed': [x for x in pred if x['kind'] == 'mixed'],
           'homogeneous': [x for x in pred if x['kind'] == 'homogeneous']}
    for c in sorted({x['cluster'] for x in pred}):
        sel['cluster ' + c] = [x for x in pred if x['cluster'] == c]
    for g in sorted({(x['cluster'], x['group']) for x in pred}):
        sel['group %s %s' % g] = [x for x in pred if (x['cluster'], x['group']) == g]
    out = {}
    for name, rs in sel.items():
        if rs:
            out[name] = {'cases': len(rs), 'by_predictor': {k: mape(rs, k) for k in keys}}
    return out


def short(k):
    """A column label: S/E/R (source, extended, replay), the collective, d/n (devices, nodes)."""
    if '/' not in k:
        return k
    p, c, f = k.split('/')
    c = {'hierarchical': 'hier', 'nccl_ring': 'nccl'}.get(c, c)
    return '%s-%s-%s' % (p[0].upper(), c, f[0])


def print_table(doc):
    rows = doc['runs']
    keys = []
    for x in rows:
        for k in x['predicted_s']:
            if k not in keys:
                keys.append(k)
    print('hetsim on published GPU clusters (%s set), %s, split %s; hetsim calls %d'
          % (doc['set'], doc['hetsim_version'], doc['split'], doc['hetsim_calls']))
    for n in doc['notes']:
        print('note: ' + n)
    print('bandwidths calibrated (MB/s), per group and predictor:')
    for g in doc['groups']:
        print('  %-5s %-22s cal %-8s AR_cal %.3f s  %s' % (
            g['cluster'], g['label'], ','.join(g['calibration_runs']), g['allreduce_cal_s'],
            ' '.join('%s=%s' % (short(k), '%.1f' % (v / 1e6) if v else 'n/a')
                     for k, v in g['bandwidth_bytes_per_s'].items())))
    print('signed error % per run (role cal = a calibration run, fit not predicted):')
    print('%-5s %-22s %-4s %-5s %-4s %3s %2s %7s %7s  %s' % (
        'clus', 'group', 'run', 'kind', 'role', 'N', 'K', 'step_s', 'comp_s',
        ' '.join('%9s' % short(k) for k in keys)))
    for x in rows:
        print('%-5s %-22s %-4s %-5s %-4s %3d %2d %7.3f %7.3f  %s' % (
            x['cluster'], x['group'][:22], x['run'], x['kind'][:5], x['role'][:4], x['gpus'], x['hosts'],
            x['measured_s'], x['compute_max_s'],
            ' '.join('%9s' % ('%+.1f' % x['error_pct'][k] if x['error_pct'].get(k) is not None
                              else ('n/a' if k in x['error_pct'] else '-')) for k in keys)))
    print('legend: ' + ', '.join('%s = %s' % (short(k), k) for k in keys))
    print('MAPE % (cases) over the predicted runs:')
    for name, s in doc['summary'].items():
        cells = []
        for k in keys:
            v = s['by_predictor'].get(k)
            c = 'n/a' if not v else '%.1f' % v['mape_pct']
            if v and v['cases'] != s['cases']:
                c += '/%d' % v['cases']      # over fewer runs: the others cannot be predicted so
            cells.append('%9s' % c)
        print('  %-34s %s  (%d)' % (name, ' '.join(cells), s['cases']))


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
