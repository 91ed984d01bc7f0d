"""The Python package hetsim against the command-line tool's JSON, on the
shipped scenarios: the same figures, the same errors.

Run by CTest (test_python) with HETSIM (the built tool), HETSIM_LIBRARY
(the built libhetsim.so) and PYTHONPATH=python/.
"""
import gc
import glob
import json
import os
import signal
import subprocess
import threading

import pytest

import hetsim

SRC = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CLI = os.environ.get("HETSIM", os.path.join(SRC, "build", "hetsim"))
SCENARIOS = sorted(glob.glob(os.path.join(SRC, "scenarios", "*.yaml")))
FIGS = ["%s_%s_ns" % (q, p) for q in ("step", "epoch", "total")
        for p in ("recommended", "source", "extended", "replay")] + \
       ["predictor_recommended", "predictor_why"]


def cli(*args):
    """The CLI's JSON and exit status."""
    p = subprocess.run([CLI] + list(args), capture_output=True, text=True,
                       cwd=SRC)
    doc = None
    if "--json" in args and p.returncode in (0, 1) and p.stdout:
        doc = json.loads(p.stdout)
    return doc, p.returncode, p.stderr


def rel(path):
    return os.path.relpath(path, SRC)


@pytest.fixture(autouse=True)
def _in_src(monkeypatch):
    monkeypatch.chdir(SRC)


def same(py, ref, keys):
    for k in keys:
        assert py[k] == ref[k], k


@pytest.mark.parametrize("path", SCENARIOS, ids=os.path.basename)
def test_predict_matches_cli(path):
    ref, rc, err = cli("predict", rel(path), "--json")
    if rc != 0:
        with pytest.raises(hetsim.Error) as e:
            hetsim.Scenario.load(rel(path)).predict()
        assert e.value.exit_status == rc
        assert e.value.message in err
        return
    py = hetsim.Scenario.load(rel(path)).predict()
    # the whole document, less its format head: every field, in order
    for k in ("format", "format_version", "hetsim_version"):
        del ref[k]
    assert list(py) == list(ref)
    assert py == ref


@pytest.mark.parametrize("path", SCENARIOS, ids=os.path.basename)
def test_predict_closed_only(path):
    ref, rc, _ = cli("predict", rel(path), "--json", "--closed-only")
    if rc != 0:
        pytest.skip("the CLI refuses it (test_predict_matches_cli)")
    py = hetsim.Scenario.load(rel(path)).predict(closed_only=True)
    same(py, ref, FIGS + ["types", "bottleneck", "notes"])


@pytest.mark.parametrize("path", SCENARIOS, ids=os.path.basename)
def test_simulate_matches_cli(path):
    ref, rc, _ = cli("simulate", rel(path), "--json", "--steps", "4",
                     "--seed", "7")
    s = hetsim.Scenario.load(rel(path)) if rc != 2 else None
    if rc != 0:
        pytest.skip("the CLI refuses it")
    py = s.simulate(steps=4, seed=7)
    # the whole document, less its format head: every field, in order;
    # an event-engine replay from Python holds one trace block more (the
    # sink that lets Ctrl-C stop it), which state_bytes counts
    for k in ("format", "format_version", "hetsim_version"):
        del ref[k]
    assert list(py) == list(ref)
    assert py["engine"].pop("state_bytes") >= ref["engine"].pop(
        "state_bytes")
    assert py == ref


def test_simulate_overlap_and_timeline():
    s = hetsim.Scenario.load("scenarios/fig3-compute-bound.yaml")
    ref, rc, _ = cli("simulate", "scenarios/fig3-compute-bound.yaml",
                     "--json", "--steps", "3", "--overlap", "none")
    assert rc == 0
    py = s.simulate(steps=3, overlap="none", timeline=True)
    # the same figures; the reason names the engine (a timeline takes the
    # event engine, the CLI without --h5 the max-plus path)
    same(py, ref, [k for k in FIGS if k != "predictor_why"] + ["overlap"])
    tl = py["timeline"]
    iv = tl.intervals
    assert tl.devices == s.devices and len(iv) > 0
    assert {0, 1, 2} <= set(int(x) for x in iv["step"])
    assert (iv["end_ns"] >= iv["start_ns"]).all()
    # every device's ring sends carry the same bytes as the CLI's trace
    assert iv.dtype == hetsim.INTERVAL_DTYPE
    assert isinstance(iv.base, object) and not iv.flags["OWNDATA"]


def test_timeline_equals_h5_trace(tmp_path):
    h5 = tmp_path / "t.h5"
    _, rc, err = cli("simulate", "scenarios/fig4-dataload-bound.yaml",
                     "--steps", "3", "--h5", str(h5))
    assert rc == 0, err
    s = hetsim.Scenario.load("scenarios/fig4-dataload-bound.yaml")
    iv = s.simulate(steps=3, timeline=True)["timeline"].intervals
    tr = hetsim.read_trace(h5)
    import numpy as np
    key = ["device", "step", "phase", "start_ns", "end_ns", "bytes"]
    a = np.sort(iv[key], order=key)
    b = np.sort(tr[key], order=key)
    assert len(a) == len(b) and (a == b).all()


def test_read_trace_errors(tmp_path):
    with pytest.raises(hetsim.IOError_) as e:
        hetsim.read_trace(tmp_path / "missing.h5")
    assert e.value.exit_status == 3


@pytest.mark.parametrize("path", SCENARIOS, ids=os.path.basename)
def test_validate_matches_cli(path):
    ref, rc, _ = cli("validate", rel(path), "--json")
    if rc != 0:
        pytest.skip("the CLI refuses it")
    py = hetsim.Scenario.load(rel(path)).validate()
    for k in ("format", "format_version", "hetsim_version"):
        del ref[k]
    assert list(py) == list(ref)
    assert py == ref
    ref, rc, _ = cli("validate", rel(path), "--json", "--formula", "source",
                     "--tolerance", "5")
    py = hetsim.Scenario.load(rel(path)).validate(formula="source",
                                                   tolerance_pct=5)
    assert rc == (0 if py["within_tolerance"] else 1)
    for k in ("format", "format_version", "hetsim_version"):
        del ref[k]
    assert py == ref


def test_sweep_matches_cli():
    vary = {"device_types.A100.count": [25, 50, 100],
            "network.default_bandwidth": "25Gbps,100Gbps"}
    ref, rc, _ = cli("sweep", "scenarios/default.yaml", "--json",
                     "--vary", "device_types.A100.count=25,50,100",
                     "--vary", "network.default_bandwidth=25Gbps,100Gbps")
    assert rc == 0
    s = hetsim.Scenario.load("scenarios/default.yaml")
    doc = hetsim.sweep(s, vary=vary, as_json=True)
    assert doc == ref
    rows = hetsim.sweep(s, vary=vary)
    if not isinstance(rows, list):  # a DataFrame
        rows = rows.to_dict("records")
    assert len(rows) == 6
    for row, pt in zip(rows, ref["points"]):
        assert row["step_recommended_ns"] == pt["step_recommended_ns"]
        assert row["device_types.A100.count"] == \
            pt["values"]["device_types.A100.count"]


# what advise --json has that the Python answer leaves out (a CPU time,
# where a file was written, the batch's scaling sentence), and what the
# Python answer adds (the recommendation itself, by name)
ADVISE_ONLY_CLI = {"format", "format_version", "hetsim_version",
                   "search_cpu_s", "scenario_written", "scaling"}
ADVISE_ONLY_PY = {"order", "batch", "shard_samples", "counts",
                  "micro_batches"}


def same_advice(py, ref):
    assert set(ref) - set(py) <= ADVISE_ONLY_CLI
    assert set(py) - set(ref) <= ADVISE_ONLY_PY
    keys = [k for k in ref if k in py]
    assert [k for k in py if k in ref] == keys      # in the CLI's order
    for k in keys:
        assert py[k] == ref[k], k


@pytest.mark.parametrize("name", ["default", "fig3-compute-bound",
                                  "validate-slow-owner", "example-full"])
def test_advise_ring_matches_cli(name):
    path = "scenarios/%s.yaml" % name
    ref, rc, _ = cli("advise", "ring", path, "--json")
    assert rc == 0
    py = hetsim.advise_ring(hetsim.Scenario.load(path))
    same_advice(py, ref)
    chosen = [c for c in ref["candidates"] if c["recommended"]]
    assert py["order"] == (chosen[0] if chosen else
                           ref["candidates"][0])["ring"]


@pytest.mark.parametrize("args,kw", [
    ((), {}),
    (("--global-batch", "40000", "--max-batch", "A100=300"),
     {"global_batch": 40000, "max_batch": {"A100": 300}}),
    (("--no-replay",), {"replay": False}),
    (("--max-micro", "4", "--max-batch", "A100=64", "--no-replay"),
     {"max_micro": 4, "max_batch": {"A100": 64}, "replay": False}),
    (("--max-micro", "8", "--max-batch", "A100=100", "--max-batch",
      "MLU370=200"),
     {"max_micro": 8, "max_batch": {"A100": 100, "MLU370": 200}})])
def test_advise_batch_matches_cli(args, kw):
    ref, rc, _ = cli("advise", "batch", "scenarios/default.yaml", "--json",
                     *args)
    assert rc == 0
    py = hetsim.advise_batch(hetsim.Scenario.load("scenarios/default.yaml"),
                             **kw)
    same_advice(py, ref)
    for t in ref["types"]:
        assert py["batch"][t["name"]] == t["batch_recommended"]
        if kw.get("max_micro", 1) > 1:
            assert py["micro_batches"][t["name"]] == \
                t["micro_batches_recommended"]
            # a recommended micro-batch fits what a device holds at once
            if ref["recommended"] is not None:
                assert t["micro_batch_recommended"] <= kw["max_batch"].get(
                    t["name"], t["micro_batch_recommended"])
        else:
            assert "micro_batches" not in py


def test_advise_batch_max_micro_capi():
    """The C API's micro-batch search, read as data: with --max-micro 4
    and A100 held to 128 samples at once, every candidate past the
    baseline splits its A100 batch into at most 4 equal micro-batches of
    at most 128 (the recommendation uses more than one); without
    max_micro every count is the given one.  An N past the limit is
    refused as the CLI refuses it."""
    s = hetsim.Scenario.load("scenarios/default.yaml")
    d = hetsim.advise_batch(s, global_batch=60000, max_batch={"A100": 128},
                            max_micro=4)
    assert d["recommended"] == "searched" and len(d["candidates"]) >= 2
    for c in d["candidates"][1:]:
        b, v = c["batch"]["A100"], c["micro_batches"]["A100"]
        assert 1 <= v <= 4 and b % v == 0 and b // v <= 128
    assert d["micro_batches"]["A100"] > 1
    assert sum(t["count"] * t["batch_recommended"]
               for t in d["types"]) == 60000
    _, rc, err = cli("advise", "batch", "scenarios/default.yaml",
                     "--max-micro", "100000")
    assert rc != 0
    with pytest.raises(hetsim.Error):
        hetsim.advise_batch(s, max_micro=100000)


@pytest.mark.parametrize("args,kw", [
    (("--budget", "1000"), {"budget": 1000}),
    (("--deadline", "3h", "--avail", "A100=150"),
     {"deadline_ns": 3 * 3600 * 10**9, "avail": {"A100": 150}})])
def test_advise_mix_matches_cli(args, kw):
    ref, rc, _ = cli("advise", "mix", "scenarios/default.yaml", "--json",
                     "--price", "A100=3", "--price", "MLU370=1", *args)
    assert rc in (0, 1)
    py = hetsim.advise_mix(hetsim.Scenario.load("scenarios/default.yaml"),
                           price={"A100": 3, "MLU370": 1}, **kw)
    same_advice(py, ref)
    if ref["recommended"] is not None:
        assert py["counts"] == \
            ref["candidates"][ref["recommended"] - 1]["counts"]


def test_scenario_as_data():
    s = hetsim.Scenario.load("scenarios/default.yaml")
    t = s.copy()
    t.set("device_types.A100.count", 64)
    t["network.default_bandwidth"] = "100Gbps"
    assert s.n_devices == 200 and t.n_devices == 164
    ref, rc, _ = cli("sweep", "scenarios/default.yaml", "--json",
                     "--vary", "device_types.A100.count=64",
                     "--set", "network.default_bandwidth=100Gbps")
    assert rc == 0
    got = t.predict()
    assert got["step_recommended_ns"] == \
        ref["points"][0]["step_recommended_ns"]
    assert got["total_source_ns"] == ref["points"][0]["total_source_ns"]
    # to_yaml carries the sets; loading it gives the same answer
    u = hetsim.Scenario.from_yaml(t.to_yaml(), base_dir="scenarios")
    assert u.n_devices == 164
    assert u.predict()["step_recommended_ns"] == got["step_recommended_ns"]
    # the unchanged original
    assert s.predict() == hetsim.Scenario.load(
        "scenarios/default.yaml").predict()


def test_from_dict_and_yaml():
    d = {"name": "two", "device_types": [
        {"name": "X", "count": 2, "batch": 32,
         "profile": {"t_fwd": "10ms", "t_b1": "1ms", "t_dl": "1ms",
                     "allreduce_bytes": "1MB", "subsystem_size": 2}}],
        "network": {"default_bandwidth": "10Gbps"}}
    s = hetsim.Scenario.from_dict(d)
    assert s.types == ["X"] and s.n_devices == 2
    a = s.predict()
    assert a["step_source_ns"] > 10000000
    yaml_text = json.dumps(d)
    assert hetsim.Scenario.from_yaml(yaml_text).predict() == dict(
        a, scenario=dict(a["scenario"], file="<string>"))


def test_errors_carry_position_and_class():
    with pytest.raises(hetsim.InputError) as e:
        hetsim.Scenario.from_yaml("name: x\njob:\n  epochs: many\n",
                                  name="bad.yaml")
    assert e.value.message.startswith("bad.yaml:3:")
    assert e.value.exit_status == 2
    with pytest.raises(hetsim.IOError_) as e:
        hetsim.Scenario.load("no/such.yaml")
    assert e.value.exit_status == 3 and "no/such.yaml" in str(e.value)
    s = hetsim.Scenario.load("scenarios/default.yaml")
    with pytest.raises(hetsim.InputError) as e:
        s.set("device_types.H100.count", 3)
    assert "device_types.H100.count" in str(e.value)
    with pytest.raises(hetsim.InputError):
        s["network.default_bandwidth"] = "fast"
    assert s.n_devices == 200       # a refused set changes nothing
    _, rc, err = cli("predict", "scenarios/live-mlp.yaml", "--json")
    with pytest.raises(hetsim.Error) as e:
        hetsim.Scenario.load("scenarios/live-mlp.yaml").predict()
    assert e.value.exit_status == rc and e.value.message in err


@pytest.fixture
def python_sigint():
    """SIGINT handled by Python as in a terminal or a notebook (a test run
    in the background may inherit it ignored); restored afterwards."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_ctrl_c_stops_a_long_replay(python_sigint):
    """SIGINT during an event-engine replay (stochastic: no max-plus path)
    of 2,000 steps of 500 devices (~40 s) stops it in the library: the
    KeyboardInterrupt comes from the call's own error, not after it."""
    s = hetsim.Scenario.load("scenarios/default.yaml")
    s["device_types.A100.count"] = 400
    s["simulate.stochastic"] = True
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            s.simulate(steps=2000, force=True)
    finally:
        timer.cancel()
    assert e.traceback[-1].name == "check"   # the C call said so
    # Python's own handler is back, and the scenario still answers
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert s.predict(closed_only=True)["n_devices"] == 500


def test_ctrl_c_stops_a_fast_path_replay(python_sigint):
    """SIGINT during a max-plus fast-path replay (deterministic ring) of
    100,000 steps of 4,100 devices (hours) stops it in the library, between
    steps: the KeyboardInterrupt comes from the call's own error."""
    s = hetsim.Scenario.load("scenarios/default.yaml")
    s["device_types.A100.count"] = 4000
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            s.simulate(steps=100000, force=True)
    finally:
        timer.cancel()
    assert e.traceback[-1].name == "check"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_stops_a_sweep(python_sigint):
    """SIGINT during a sweep of 3,000 points, each replayed (1,001 to 4,000
    devices: 20 ms to 0.2 s a point on the fast path, some 5 minutes in
    all on any machine), stops it between points, from the library's
    check.  (Closed-form points were too quick: on a quiet machine the
    whole sweep ended before the signal.)"""
    s = hetsim.Scenario.load("scenarios/default.yaml")
    s["device_types.MLU370.count"] = 1000
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            hetsim.sweep(s, vary={"device_types.A100.count": "1..3000:1"},
                         replay="always")
    finally:
        timer.cancel()
    assert e.traceback[-1].name == "check"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ignored_sigint_stays_ignored():
    """A process that ignores SIGINT (nohup) keeps ignoring it during a
    call: the library does not arm its handler."""
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        s = hetsim.Scenario.load("scenarios/default.yaml")
        s["device_types.MLU370.count"] = 1000
        rows = hetsim.sweep(s, vary={"device_types.A100.count": "1..2000:1"},
                            replay="never", as_json=True)
        timer.join()
        assert rows["n_points"] == 2000 and rows["n_failed"] == 0
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old)


def test_scenarios_are_freed():
    """Scenarios (100,000 devices: ~10 MiB of C memory each) and timelines
    (~2 MiB each) made and dropped 40 times: the C side is freed with them,
    the resident size does not grow by what 40 of them would hold."""
    def rss_kb():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])

    def churn(n):
        for _ in range(n):
            s = hetsim.Scenario.load("scenarios/large/nodes-100k.yaml")
            t = s.copy()
            t["nodes.dgx.count"] = 7000
            assert t.n_devices == 96000 and s.n_devices == 100000
            d = hetsim.Scenario.load("scenarios/default.yaml")
            assert len(d.simulate(steps=2, timeline=True)["timeline"]) > 0
        gc.collect()

    churn(3)
    before = rss_kb()
    churn(40)
    assert rss_kb() - before < 100 * 1024   # 40 leaked would be ~800 MiB
