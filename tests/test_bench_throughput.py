#!/usr/bin/env python3
"""bench/published/bench_throughput.py on made-up throughput tables, against a reference model.

The test writes, in a temp dir, an MLPerf-format throughput CSV and systems CSV and a
DLE-format CSV of two made-up calibration clusters and a CSC extract (made-up CSC-mahti rows)
whose steps follow the flat ring all-reduce after the whole backward (overlap none): step = V x
C(b) + 2 (N-1)/N x M / B, C(b) = K x b per micro-batch, B = the NVLink spec inside one node
(A100: 300 GB/s) and the NICs' total between nodes (MLPerf: "2x ... 200Gb/Sec" = 50 GB/s; DGX
A100: 8 x 200 Gb/s = 200 GB/s), M = the bench's gradient bytes (2 x parameters, mixed
precision). It runs the bench (calibration mode) and reads its JSON: the ring/none predictors
(replay and closed form) must predict every multi-node run's throughput to 0.1 % (the one-node
references fix C; the 4 x 4 MLPerf run has another micro-batch, so the proportional
extrapolation is exercised), naive/perfect must be the reference's measured time per
micro-batch (proportional in b) scaled perfectly, and every run is listed. Rows of held-apart
clusters (made-up ML-azure-ndv4, DLE-dgx1, CSC-puhti rows) in the same CSVs are dropped on
reading: none in the JSON, their distinctive figure not on stdout, their count reported.
Refusals (exit 2, nothing on stdout, no JSON): a held-apart cluster labelled calibration;
--clusters naming a held-apart cluster; --held-apart without --frozen; --held-apart with a
--frozen commit that is not HEAD. The held-apart mode's reading and its reference rule for a
cluster without a one-node run (smallest node count = reference) are checked in process on
made-up rows (the mode itself is never run).
Usage: test_bench_throughput.py LIBHETSIM
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, '..', 'bench', 'published', 'bench_throughput.py')
K = 1e-4                       # s per sample per micro-batch
M_RESNET = 2 * 25557032
M_BERT = 2 * 330000000
B_NVLINK, B_ML_NET, B_DGX_NET = 300e9, 50e9, 200e9
SECRET = 987654.321            # the made-up held-apart figure: must never be printed
ML_HEAD = ('cluster,set,round,submitter,system,benchmark,logged_benchmark,run,nodes,gpus_per_node,'
           'global_batch_size,gradient_accumulation_steps,nccl_net,kind,epoch,step,time_ms,value\n')
SYS_HEAD = ('cluster,set,round,commit,submitter,system,number_of_nodes,accelerators_per_node,'
            'accelerator_model_name,accelerator_memory_capacity,accelerator_host_interconnect,'
            'accelerator_interconnect,host_networking,host_networking_topology,framework,nccl_version\n')
CSC_HEAD = ('cluster,set,line,benchmark,framework,machine,gpu,gpus,nodes,gpus_per_node,date,value,unit,'
            'model,batch_per_gpu_at_ref\n')
M_CSC = 4 * 25557032
B_MAHTI_NET = 100e9
DLE_HEAD = ('cluster,set,readme,heading,line,container,system,gpu,model,seq_len,nodes,gpus_per_node,'
            'precision,batch_per_gpu,accum_steps,accum_batch_per_gpu,global_batch,throughput,'
            'throughput_unit,flag\n')
DDL_HEAD = ('cluster,set,line,dnn,model,batch_per_gpu,seq_len,connection,rdma,network,method,architecture,'
            'gpus,nodes,gpus_per_node,throughput_mean,throughput_std,unit,one_gpu_as_printed\n')
M_DDL = 4 * 25557032           # ResNet-50, fp32 gradients
B_PCIE_V100, B_10GBE = 16e9, 10e9 / 8
DDL_NODES = (1, 2, 4)
# (system, nodes, gpus per node, global batch, accumulation)
ML_CONFIGS = [('T1', 1, 4, 1024, 1), ('T2', 2, 4, 2048, 1), ('T4', 4, 4, 2048, 1)]
# (line, nodes, gpus per node, micro-batch, accumulation)
DLE_CONFIGS = [(10, 1, 8, 32, 4), (11, 2, 8, 32, 2), (12, 4, 8, 32, 1)]


def fail(msg):
    sys.stderr.write('test_bench_throughput: FAIL: %s\n' % msg)
    sys.exit(1)


def ref_step(nodes, gpn, b, v, m, b_inter):
    n = nodes * gpn
    bw = B_NVLINK if nodes == 1 else min(B_NVLINK, b_inter)
    return v * K * b + 2.0 * (n - 1) / n * m / bw


def ml_thr(nodes, gpn, gb, v):
    return gb / ref_step(nodes, gpn, gb // (nodes * gpn * v), v, M_RESNET, B_ML_NET)


def dle_thr(nodes, gpn, b, v):
    return nodes * gpn * b * v / ref_step(nodes, gpn, b, v, M_BERT, B_DGX_NET)


def csc_thr(nodes):
    return nodes * 4 * 32 / ref_step(nodes, 4, 32, 1, M_CSC, B_MAHTI_NET)


def ddl_thr(nodes):
    """4 V100 PCIe a host, 64 images a GPU, one 10 GbE NIC a host: the flat ring, overlap none."""
    n = nodes * 4
    bw = B_PCIE_V100 if nodes == 1 else min(B_PCIE_V100, B_10GBE)
    return n * 64 / (K * 64 + 2.0 * (n - 1) / n * M_DDL / bw)


def write_ddl(path):
    """A made-up calibration cluster in extract_ddlbench.py's format (Horovod rows follow the
    ring; a BytePS row to be skipped) and a made-up DDL-hkbu row (held apart: dropped)."""
    with open(path, 'w') as f:
        f.write(DDL_HEAD)
        for n in DDL_NODES:
            f.write('TEST-ddl,calibration,7,ResNet-50,"ResNet-50, fp32",64,,10GbE with TCP/IP,0,10 GbE,'
                    'BSP-A2A,Horovod all-reduce (NCCL),%d,%d,4,%.6f,1.5,images/s,300\n' % (4 * n, n, ddl_thr(n)))
        f.write('TEST-ddl,calibration,8,ResNet-50,"ResNet-50, fp32",64,,10GbE with TCP/IP,0,10 GbE,'
                'BSP-PS,BytePS parameter server,8,2,4,123.0,1.0,images/s,300\n')
        f.write('DDL-hkbu,held-apart,9,ResNet-50,"ResNet-50, fp32",64,,10GbE with TCP/IP,0,10 GbE,'
                'BSP-A2A,Horovod all-reduce (NCCL),8,2,4,%.3f,1.0,images/s,300\n' % SECRET)


def write(d, bad_label=False):
    ml, sy, dl, cs = (os.path.join(d, n) for n in ('ml.csv', 'sys.csv', 'dle.csv', 'csc.csv'))
    dd = os.path.join(d, 'ddl.csv')
    write_ddl(dd)
    with open(cs, 'w') as f:
        f.write(CSC_HEAD)
        for line, n in ((3, 1), (4, 2)):
            f.write('CSC-mahti,calibration,%d,"DDP, synthetic",PyTorch 9,mahti,A100,%d,%d,4,2026-01-01,%.6f,'
                    'images/s,"ResNet-50 (torchvision), fp32",32\n' % (line, 4 * n, n, csc_thr(n)))
        f.write('CSC-mahti,calibration,6,"DDP, synthetic",PyTorch 9,mahti,A100,8,2,4,2026-01-01,ERROR,'
                'images/s,"ResNet-50 (torchvision), fp32",32\n')      # a failed run, as CSC records one
        f.write('CSC-puhti,held-apart,5,"DDP, synthetic",PyTorch 9,puhti,V100,8,2,4,2026-01-01,%.3f,'
                'images/s,"ResNet-50 (torchvision), fp32",32\n' % SECRET)
    with open(ml, 'w') as f, open(sy, 'w') as g:
        f.write(ML_HEAD)
        g.write(SYS_HEAD)
        for s, n, gpn, gb, v in ML_CONFIGS:
            g.write('TEST-ml,calibration,v9,x,Test,%s,%d,%d,NVIDIA A100-SXM4-80GB (400W),80 GB,PCIe,'
                    'NVLink,"2x ConnectX-6 IB HDR 200Gb/Sec",N/A,fw,2.0\n' % (s, n, gpn))
            for run in range(2):
                for ep in range(3):
                    f.write('TEST-ml,calibration,v9,Test,%s,resnet,resnet,result_%d,%d,%d,%d,%d,,'
                            'mllog_throughput,%d,,0,%.6f\n' % (s, run, n, gpn, gb, v, ep,
                                                              ml_thr(n, gpn, gb, v) * (1 + 1e-8 * run)))
        held_set = 'calibration' if bad_label else 'held-apart'
        g.write('ML-azure-ndv4,%s,v9,x,Az,A2,2,8,NVIDIA A100-SXM4-80GB,80 GB,PCIe,NVLink,'
                '"8x ConnectX-6 IB HDR 200Gb/Sec",N/A,fw,2.0\n' % held_set)
        for s, n in (('A1', 1), ('A2', 2)):
            f.write('ML-azure-ndv4,%s,v9,Az,%s,resnet,resnet,result_0,%d,8,2048,1,,mllog_throughput,'
                    '1,,0,%.3f\n' % (held_set, s, n, SECRET))
    with open(dl, 'w') as f:
        f.write(DLE_HEAD)
        for line, n, gpn, b, v in DLE_CONFIGS:
            f.write('TEST-dle,calibration,X/BERT/README.md,Pre-training,%d,c,DGX A100,A100,BERT-large,'
                    '128,%d,%d,mixed,%d,%d,,,%.6f,sequences/s,\n' % (line, n, gpn, b, v, dle_thr(n, gpn, b, v)))
        f.write('DLE-dgx1,held-apart,X/BERT/README.md,Pre-training,20,c,DGX-1,V100,BioBERT-base,128,4,8,'
                'mixed,16,,,,%.3f,sequences/s,\n' % SECRET)
    return ['--mlperf-csv', ml, '--mlperf-systems', sy, '--dle-csv', dl, '--csc-csv', cs, '--ddl-csv', dd]


def bench(args):
    return subprocess.run([sys.executable, BENCH] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


def close(a, b, rel):
    return a is not None and abs(a - b) <= rel * abs(b)


def check_run(doc, stdout):
    if doc['set'] != 'calibration' or doc['frozen_commit'] is not None:
        fail('set/frozen_commit %s %s' % (doc['set'], doc['frozen_commit']))
    if doc['clusters'] != ['CSC-mahti', 'TEST-ddl', 'TEST-dle', 'TEST-ml']:
        fail('clusters %s' % doc['clusters'])
    if doc['dropped_on_reading'] != {'ml.csv': 2, 'sys.csv': 1, 'dle.csv': 1, 'csc.csv': 1, 'ddl.csv': 1}:
        fail('dropped %s' % doc['dropped_on_reading'])
    if doc['skipped'].get('ddl parameter-server row (BytePS: not modelled)') != 1:
        fail('the BytePS row is not skipped and counted: %s' % doc['skipped'])
    if '%.1f' % SECRET in stdout or str(int(SECRET)) in json.dumps(doc):
        fail('a held-apart figure reached the output')
    if doc['skipped'].get('csc row without a figure (failed run)') != 1:
        fail('the failed CSC run is not skipped and counted: %s' % doc['skipped'])
    rows = doc['rows']
    want = {('TEST-ml', 'v9/T2/resnet/result_%d' % r) for r in range(2)} | \
        {('TEST-ml', 'v9/T4/resnet/result_%d' % r) for r in range(2)} | \
        {('TEST-dle', 'X/BERT/README.md:%d' % l) for l in (11, 12)} | {('CSC-mahti', 'results.md:4')} | \
        {('TEST-ddl', 'README.md:7/%dx4' % n) for n in DDL_NODES[1:]}
    if {(r['cluster'], r['run']) for r in rows} != want:
        fail('rows %s' % sorted((r['cluster'], r['run']) for r in rows))
    for r in rows:
        if r['cluster'] == 'TEST-ml':
            s = r['run'].split('/')[1]
            n, gpn, gb, v = next(c[1:] for c in ML_CONFIGS if c[0] == s)
            ref = ml_thr(n, gpn, gb, v)
        elif r['cluster'] == 'CSC-mahti':
            ref = csc_thr(2)
        elif r['cluster'] == 'TEST-ddl':
            ref = ddl_thr(r['nodes'])
            if r.get('measured_throughput_std') != 1.5:
                fail('%s: the runs\' spread %s' % (r['run'], r.get('measured_throughput_std')))
        else:
            line = int(r['run'].rsplit(':', 1)[1])
            n, gpn, b, v = next(c[1:] for c in DLE_CONFIGS if c[0] == line)
            ref = dle_thr(n, gpn, b, v)
        if not close(r['measured_throughput'], ref, 1e-6):
            fail('%s measured %s, want %s' % (r['run'], r['measured_throughput'], ref))
        for k in ('replay/ring/none', 'closed/ring/none'):
            if not close(r['predicted_throughput'][k], ref, 1e-3):
                fail('%s %s: predicted %s, reference %s' % (r['run'], k, r['predicted_throughput'][k], ref))
        # perfect scaling of the reference's measured time per micro-batch (proportional in b)
        if r['cluster'] == 'CSC-mahti':
            n1, g1, b1, v1 = 1, 4, 32, 1
            t1 = 128 / csc_thr(1)
        elif r['cluster'] == 'TEST-ddl':
            n1, g1, b1, v1 = 1, 4, 64, 1
            t1 = 256 / ddl_thr(1)
        elif r['cluster'] == 'TEST-ml':
            _, n1, g1, gb1, v1 = ML_CONFIGS[0]
            b1 = gb1 // (n1 * g1 * v1)
            t1 = gb1 / ml_thr(n1, g1, gb1, v1)
        else:
            _, n1, g1, b1, v1 = DLE_CONFIGS[0]
            t1 = n1 * g1 * b1 * v1 / dle_thr(n1, g1, b1, v1)
        b, v = r['micro_batch'], r['micro_batches']
        perfect = r['samples_per_step'] / (t1 / v1 * b / b1 * v)
        if not close(r['predicted_throughput']['naive/perfect'], perfect, 1e-6):
            fail('%s naive/perfect %s, want %s' % (r['run'], r['predicted_throughput']['naive/perfect'], perfect))
        if len(r['predicted_throughput']) != 18:
            fail('%s: %d predictors' % (r['run'], len(r['predicted_throughput'])))
    for c in ('TEST-ml', 'TEST-dle', 'TEST-ddl'):
        s = doc['summary']['%s all' % c]['by_predictor']['replay/ring/none']
        if s['runs'] != (4 if c == 'TEST-ml' else 2) or s['mape_pct'] > 0.1:
            fail('summary %s %s' % (c, s))


def check_held_rules(lib, d):
    """In process: the held-apart reading keeps only held-apart rows; a cluster without a
    one-node run is referenced on its smallest node count (made-up rows, never real ones)."""
    sys.path.insert(0, os.path.dirname(BENCH))
    os.environ['HETSIM_LIBRARY'] = lib
    sys.path.insert(0, os.path.join(HERE, '..', 'python'))
    import bench_throughput as bt
    import hetsim
    rows = bt.read_rows(os.path.join(d, 'ml.csv'), True, {})
    if len(rows) != 2 or {r['cluster'] for r in rows} != {'ML-azure-ndv4'}:
        fail('held-apart reading kept %d rows of %s' % (len(rows), {r['cluster'] for r in rows}))
    base = {'source': 'mlperf', 'cluster': 'X', 'group': ('g',), 'pref': 'v', 'model': 'bert',
            'gpn': 2, 'V': 1, 'grad_bytes': M_BERT, 'intra_bps': 32e9, 'nics': (1, 12.5e9),
            'unit': 'samples/s'}
    runs = []
    for n in (8, 16):
        x = dict(base, run='r%d' % n, config=(n,), nodes=n, micro=16, samples_per_step=n * 2 * 16)
        x['throughput'] = x['samples_per_step'] / ref_step(n, 2, 16, 1, M_BERT, 12.5e9)
        runs.append(x)
    refs, targets, rows = bt.predict_group(bt.Predictor(hetsim), bt.configs_of(runs), [])
    if [c['nodes'] for c in refs] != [8] or [c['nodes'] for c in targets] != [16] or len(rows) != 1:
        fail('smallest-node reference rule: refs %s targets %s' % (refs, targets))
    if rows[0]['predicted_throughput']['replay/ring/none'] is None:
        fail('smallest-node reference: no prediction')
    # a network text the bench cannot read: no hetsim prediction, no crash, the naive ones kept
    for x in runs:
        x['nics'] = None
    _, _, rows = bt.predict_group(bt.Predictor(hetsim), bt.configs_of(runs), [])
    p = rows[0]['predicted_throughput']
    if p['replay/ring/none'] is not None or p['naive/perfect'] is None:
        fail('unknown network: %s' % p)
    # networking texts as MLPerf's systems write them (made-up combinations of their forms)
    for text, want in (('2x ConnectX-6 IB HDR 200Gb/Sec', (2, 25e9)), ('1Gb Ethernet', (1, 0.125e9)),
                       ('1x Ethernet 40Gb/Sec, 8x ConnectX-6 IB HDR 200Gb/Sec', (8, 25e9)),
                       ('Management: 1x Ethernet 100Gb/Sec, Compute: 4x IB HDR 200Gb/Sec', (4, 25e9)),
                       ('Compute: 4 x ConnectX-6 HDR 200 Gb/Sec +  Management: 1 x 100 GB/Sec', (4, 25e9)),
                       ('2x Omni-Path HFI Adapter 100 Series 100Gb/Sec', (2, 12.5e9)), ('N/A', None)):
        if bt.parse_nics(text) != want:
            fail('parse_nics(%r) = %r, not %r' % (text, bt.parse_nics(text), want))


def main():
    lib = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix='hs-tbt-') as d:
        args = write(d)
        out = os.path.join(d, 'b.json')
        p = bench(['--lib', lib, '--json', out] + args)
        if p.returncode != 0:
            fail('bench exit %d: %s' % (p.returncode, p.stderr))
        check_run(json.load(open(out)), p.stdout)
        check_held_rules(lib, d)
        # a held-apart cluster labelled calibration: refused before any figure
        bd = os.path.join(d, 'bad')
        os.mkdir(bd)
        bad = write(bd, bad_label=True)
        h = os.path.join(d, 'h.json')
        for extra in ([], ['--no-dle']):
            q = bench(['--lib', lib, '--json', h] + bad + extra)
            if q.returncode != 2 or q.stdout or os.path.exists(h) or 'held-apart' not in q.stderr:
                fail('held-apart row labelled calibration: exit %d, stdout %r' % (q.returncode, q.stdout))
        q = bench(['--lib', lib, '--json', h, '--clusters', 'TEST-ml,ML-azure-ndv4'] + args)
        if q.returncode != 2 or q.stdout or os.path.exists(h):
            fail('--clusters with a held-apart cluster: exit %d' % q.returncode)
        q = bench(['--lib', lib, '--held-apart'] + args)
        if q.returncode != 2 or q.stdout:
            fail('--held-apart without --frozen: exit %d' % q.returncode)
        r = subprocess.run(['git', '-C', HERE, 'rev-list', '--max-parents=0', 'HEAD'],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
        other = (r.stdout.split() or ['0' * 40])[0]
        head = subprocess.run(['git', '-C', HERE, 'rev-parse', 'HEAD'], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
        if other == head:
            other = '0' * 40
        q = bench(['--lib', lib, '--held-apart', '--frozen', other] + args)
        if q.returncode != 2 or q.stdout:
            fail('--held-apart with a --frozen that is not HEAD: exit %d' % q.returncode)
    print('test_bench_throughput: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
