"""The model-module contract (live/harness/hetsim_models.py) that the
profiling harness (live/harness/hetsim_harness.py) and the testbed's
trainer (bench/testbed/ddp_run.py) share: both resolve a model file to the
same module, entry and model, build the same random data, and train with
the same step; both report an unusable model file the same way.

Usage: python3 -m pytest tests/test_models_contract.py (CTest
test_models_contract: Debian's python3, which has python3-torch; exit 77 =
skipped without torch or pytest, see tests/CMakeLists.txt).
"""

import json
import os
import socket
import subprocess
import sys

if __name__ == "__main__":
    # CTest runs the file: pytest on it, 77 (skipped) without torch or
    # pytest
    try:
        import pytest
        __import__("torch")
    except ImportError as e:
        print("SKIP: test_models_contract: %s" % e)
        sys.exit(77)
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider",
                          os.path.abspath(__file__)]))

import pytest  # noqa: E402

torch = pytest.importorskip("torch")

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARNESS_DIR = os.path.join(SRC, "live", "harness")
TESTBED_DIR = os.path.join(SRC, "bench", "testbed")
sys.path.insert(0, HARNESS_DIR)
sys.path.insert(0, TESTBED_DIR)
import ddp_run  # noqa: E402
import hetsim_harness  # noqa: E402
import hetsim_models  # noqa: E402

MODEL = '''
import torch
SYNTHETIC = "6/3"
BUILT = []


def build_model():
    BUILT.append(1)
    return torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(),
                               torch.nn.Linear(5, 3))


def tiny():
    return torch.nn.Linear(6, 3)


def not_a_model():
    return 42


def build_loss():
    return torch.nn.CrossEntropyLoss(reduction="sum")
'''


@pytest.fixture
def model_file(tmp_path):
    p = tmp_path / "tinymodel.py"
    p.write_text(MODEL)
    return str(p)


def _harness_model(spec):
    """The harness's path: --model FILE[:ENTRY] through _load_entry, the
    model through the contract, seeded as the harness seeds."""
    mod, fn, path, entry = hetsim_harness._load_entry(spec, "build_model",
                                                      "model", 0)
    torch.manual_seed(1)
    return mod, hetsim_models.make_model(fn, entry, torch), path, entry


def _trainer_model(path, entry="build_model"):
    """ddp_run.py's path: its own arguments, its load_model."""
    a = ddp_run.parse(["--model", path, "--entry", entry, "--batch", "4",
                       "--out", "unused"])
    torch.manual_seed(a.seed)
    return ddp_run.load_model(a, torch)


def test_one_contract_module():
    # both entry points import the same module, from beside the harness
    assert hetsim_harness.M is hetsim_models
    assert ddp_run.M is hetsim_models
    assert os.path.samefile(os.path.dirname(hetsim_models.__file__),
                            HARNESS_DIR)


@pytest.mark.parametrize("entry", ["build_model", "tiny"])
def test_same_model_through_both(model_file, entry):
    spec = model_file if entry == "build_model" else model_file + ":" + entry
    hmod, hmodel, hpath, hentry = _harness_model(spec)
    assert (hpath, hentry) == (model_file, entry)
    assert hmod.__name__ == "hetsim_user_model"
    tmod, tmodel, tsyn = _trainer_model(model_file, entry)
    assert tmod.__name__ == "hetsim_user_model"
    assert tsyn == hetsim_models.synthetic_spec(hmod) == "6/3"
    hs, ts = hmodel.state_dict(), tmodel.state_dict()
    assert list(hs) == list(ts)
    for k in hs:
        assert torch.equal(hs[k], ts[k]), k
    # the model file's own loss, for both
    assert hetsim_models.make_loss(tmod, torch).reduction == "sum"


def test_split_spec():
    s = hetsim_models.split_spec
    assert s("m.py", "build_model") == ("m.py", "build_model")
    assert s("m.py:tiny", "build_model") == ("m.py", "tiny")
    assert s("a:b/m.py", "build_model") == ("a:b/m.py", "build_model")
    assert s("x:m.py", "build_model") == ("x:m.py", "build_model")


def test_bad_model_files(model_file, tmp_path):
    def err(path, entry):
        with pytest.raises(hetsim_models.ContractError) as e:
            hetsim_models.load_entry(path, entry, "model")
        return str(e.value)
    missing = str(tmp_path / "none.py")
    assert err(missing, "build_model") == \
        "model file %s: no such file" % missing
    assert err(model_file, "nope") == \
        "model file %s has no function nope()" % model_file
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\nraise RuntimeError('boom')\n")
    assert err(str(broken), "build_model") == \
        "model file %s failed to import: RuntimeError: boom" % broken
    with pytest.raises(TypeError, match="not_a_model\\(\\) returned int"):
        _trainer_model(model_file, "not_a_model")


def _old_trainer_data(spec, n, seed):
    """The reference: ddp_run.py's own random data before the contract
    (its synthetic(), as it was): the shared SyntheticDataset must give
    the same samples, so measured runs train on the data they did."""
    shape_s, _, classes_s = spec.partition("/")
    classes = int(classes_s or "10")
    g = torch.Generator().manual_seed(seed)
    if shape_s.startswith("tokens:"):
        _, length, vocab = shape_s.split(":")
        x = torch.randint(0, int(vocab), (n, int(length)), generator=g)
    else:
        shape = tuple(int(v) for v in shape_s.split("x"))
        x = torch.randn((n,) + shape, generator=g)
    y = torch.randint(0, classes, (n,), generator=g)
    return x, y


@pytest.mark.parametrize("spec", ["6/3", "3x4x4/5", "tokens:7:50/4"])
def test_synthetic_data_as_before(spec):
    seed = hetsim_models.data_seed(1, 2)
    assert seed == 1 * 1000003 + 7919 * 2 + 1
    assert hetsim_models.loader_seed(1, 2) == 1 * 1000003 + 2
    ds = hetsim_models.SyntheticDataset(spec, 12, seed)
    x, y = _old_trainer_data(spec, 12, seed)
    assert len(ds) == 12
    for i in range(12):
        assert torch.equal(ds[i][0], x[i]) and torch.equal(ds[i][1], y[i])
    with pytest.raises(ValueError):
        hetsim_models.SyntheticDataset("0x4/3", 2, 1)


def test_train_step(model_file):
    mod, model, syn = _trainer_model(model_file)
    ds = hetsim_models.SyntheticDataset(syn, 8, 1)
    loader = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True,
                                         drop_last=True)
    batches = hetsim_models.Batches(loader)
    loss_fn = hetsim_models.make_loss(mod, torch)
    opt = hetsim_models.make_optimizer(mod, model.parameters(), 0.01, torch)
    assert isinstance(opt, torch.optim.SGD)
    assert opt.param_groups[0]["momentum"] == 0.9
    before = [p.detach().clone() for p in model.parameters()]
    phases, extra = [], []
    # 3 steps over a 2-batch loader: the third starts a new epoch
    for _ in range(3):
        loss = hetsim_models.train_step(
            model, loss_fn, opt, batches, phases.append,
            after_backward=lambda: extra.append(phases[-1]))
        assert torch.isfinite(loss).item()
    assert phases == ["data", "forward", "backward", "backward done",
                      "optimizer", "done"] * 3
    assert extra == ["backward done"] * 3
    assert all(p.grad is None for p in model.parameters())
    assert any(not torch.equal(a, b.detach())
               for a, b in zip(before, model.parameters()))

    def nan_loss(out, y):
        return out.sum() * float("nan")
    with pytest.raises(FloatingPointError, match="loss is nan"):
        hetsim_models.train_step(model, nan_loss, opt, batches,
                                 lambda _: None)


def _env(port):
    return dict(os.environ, RANK="0", WORLD_SIZE="1", LOCAL_RANK="0",
                MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                OMP_NUM_THREADS="1", GLOO_SOCKET_IFNAME="lo")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unusable_model_through_both_entry_points(model_file, tmp_path):
    """A model file without its entry: the trainer exits 1 and the harness
    3, each naming the file and the entry as the contract says."""
    r = subprocess.run([sys.executable, os.path.join(TESTBED_DIR,
                                                     "ddp_run.py"),
                        "--model", model_file, "--entry", "nope",
                        "--batch", "4", "--out", str(tmp_path / "t")],
                       env=_env(_free_port()), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    assert ("model file %s has no function nope()" % model_file) in r.stderr
    r = subprocess.run([sys.executable, os.path.join(HARNESS_DIR,
                                                     "hetsim_harness.py"),
                        "--model", model_file + ":nope", "--batch", "4",
                        "--out", str(tmp_path / "h")],
                       env=_env(_free_port()), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 3, r.stderr
    assert ("hetsim-harness: rank 0: step load model: model file %s has no "
            "function nope()" % model_file) in r.stderr


def test_trainer_runs(model_file, tmp_path):
    """ddp_run.py end to end on one rank (gloo on the loopback): every
    step timed, the phases inside the step."""
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, os.path.join(TESTBED_DIR,
                                                     "ddp_run.py"),
                        "--model", model_file, "--batch", "4", "--iters",
                        "5", "--warmup", "1", "--out", str(out)],
                       env=_env(_free_port()), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    with open(out / "rank0.json") as f:
        res = json.load(f)
    assert len(res["step_start_ns"]) == 6
    for k in ("t_dl_ns", "t_fwd_ns", "t_bwd_ns", "t_opt_ns", "t_grad_ns"):
        assert len(res[k]) == 5 and min(res[k]) >= 0, k
    s = res["step_start_ns"]
    for i in range(5):
        phases = (res["t_dl_ns"][i] + res["t_fwd_ns"][i]
                  + res["t_bwd_ns"][i] + res["t_opt_ns"][i])
        assert phases <= s[i + 1] - s[i]
        assert res["t_grad_ns"][i] <= res["t_bwd_ns"][i]
    assert res["cpu_ns"] > 0
    # the model's parameters: 6*5+5 + 5*3+3 floats
    assert res["param_bytes"] == 4 * (6 * 5 + 5 + 5 * 3 + 3)


def test_harness_copy_without_contract(tmp_path):
    """A copy of the harness alone (profiling.harness names any file):
    exit 3 and a line saying the contract belongs beside it."""
    lone = tmp_path / "hetsim_harness.py"
    with open(os.path.join(HARNESS_DIR, "hetsim_harness.py")) as f:
        lone.write_text(f.read())
    env = _env(_free_port())
    env.pop("PYTHONPATH", None)
    r = subprocess.run([sys.executable, str(lone), "--model", "m.py",
                        "--batch", "4", "--out", str(tmp_path / "o")],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 3, r.stderr
    assert ("hetsim-harness: rank 0: step start-up: cannot import "
            "hetsim_models.py") in r.stderr
