"""The model-module contract: how a model file is loaded and how one
training step runs, shared by the profiling harness (hetsim_harness.py,
`hetsim profile` starts it) and the testbed's trainer
(bench/testbed/ddp_run.py, the real runs the accuracy benchmark measures),
so that a profiled job and a measured one train alike.

A model file is a Python file that defines

  build_model()            (or the entry named: FILE:ENTRY) returns the
                           torch.nn.Module to train
  SYNTHETIC = "SPEC"       optional: the built-in random dataset used when
                           none is given, SHAPE/CLASSES (784/10, 3x32x32/10)
                           or tokens:LEN:VOCAB/CLASSES
  build_loss()             optional: the loss (default CrossEntropyLoss)
  build_optimizer(params)  optional: the optimizer (default SGD with the
                           caller's learning rate, momentum 0.9)

and the training step is train_step(): the next batch, the forward and
the loss, the backward, the optimizer's step, zero_grad(set_to_none=True),
and a check that the loss is finite.  The random data (SyntheticDataset)
and its seeds (data_seed, loader_seed) are the same for both callers.

Nothing here imports torch at import time: the harness reports a missing
torch itself, as a failure of its own step.
"""

import contextlib
import importlib.util
import os
import sys
import traceback


class ContractError(Exception):
    """A model (or dataset) file that cannot be used: missing, failing to
    import, or without its entry; the message names the file."""


def split_spec(spec, default_entry):
    """(path, entry) of "FILE:ENTRY", or of "FILE" with default_entry (a
    colon in a path, or an ENTRY that looks like a file, is a path)."""
    path, _, entry = spec.rpartition(":")
    if not path or os.sep in entry or entry.endswith(".py"):
        path, entry = spec, default_entry
    return path, entry


def load_entry(path, entry, what="model"):
    """Imports the Python file path as module "hetsim_user_<what>" (in
    sys.modules, as a regular import would put it) and returns (module,
    its function entry).  Raises ContractError when the file is missing,
    fails to import (any error of the user's code) or has no callable
    entry."""
    if not os.path.isfile(path):
        raise ContractError("%s file %s: no such file" % (what, path))
    name = "hetsim_user_%s" % what
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    except Exception as e:  # noqa: BLE001 -- the user's code, any error
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        raise ContractError("%s file %s failed to import: %s"
                            % (what, path, tb))
    fn = getattr(mod, entry, None)
    if not callable(fn):
        raise ContractError("%s file %s has no function %s()"
                            % (what, path, entry))
    return mod, fn


def synthetic_spec(mod, given=None):
    """The random dataset's spec: given when set, else the model module's
    SYNTHETIC, else None."""
    return given or getattr(mod, "SYNTHETIC", None)


def make_model(fn, entry, torch):
    """fn() (a model file's entry, named entry in messages), checked to be
    a torch.nn.Module; raises TypeError otherwise."""
    model = fn()
    if not isinstance(model, torch.nn.Module):
        raise TypeError("%s() returned %s, not a torch.nn.Module"
                        % (entry, type(model).__name__))
    return model


def make_loss(mod, torch):
    """The model module's build_loss(), else torch.nn.CrossEntropyLoss()."""
    if callable(getattr(mod, "build_loss", None)):
        return mod.build_loss()
    return torch.nn.CrossEntropyLoss()


def make_optimizer(mod, params, lr, torch):
    """The model module's build_optimizer(params), else SGD over params
    with learning rate lr and momentum 0.9."""
    if callable(getattr(mod, "build_optimizer", None)):
        return mod.build_optimizer(params)
    return torch.optim.SGD(params, lr=lr, momentum=0.9)


def data_seed(seed, rank):
    """The seed of rank's random samples (SyntheticDataset)."""
    return seed * 1000003 + 7919 * rank + 1


def loader_seed(seed, rank):
    """The seed of rank's data order (the DataLoader's generator)."""
    return seed * 1000003 + rank


class SyntheticDataset(object):
    """Deterministic random samples: sample i depends only on (seed, i).
    spec: SHAPE/CLASSES (inputs from a normal distribution) or
    tokens:LEN:VOCAB/CLASSES (token ids below VOCAB); targets are class
    ids below CLASSES (10 when not given).  Raises ValueError on a bad
    spec."""

    def __init__(self, spec, n, seed):
        import torch
        shape_s, _, classes_s = spec.partition("/")
        self.classes = int(classes_s or "10")
        self.tokens = shape_s.startswith("tokens:")
        if self.tokens:
            _, length, vocab = shape_s.split(":")
            self.shape = (int(length),)
            self.vocab = int(vocab)
        else:
            self.shape = tuple(int(x) for x in shape_s.split("x"))
        if self.classes < 1 or not self.shape or min(self.shape) < 1:
            raise ValueError("bad synthetic dataset spec %r" % spec)
        g = torch.Generator().manual_seed(seed)
        if self.tokens:
            self.x = torch.randint(0, self.vocab, (n,) + self.shape,
                                   generator=g)
        else:
            self.x = torch.randn((n,) + self.shape, generator=g)
        self.y = torch.randint(0, self.classes, (n,), generator=g)

    def __len__(self):
        return self.x.shape[0]

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class Batches(object):
    """A DataLoader read without end: when an epoch is over, the next
    begins (a new iterator over the loader)."""

    def __init__(self, loader):
        self.loader = loader
        self.it = iter(loader)

    def next(self):
        try:
            return next(self.it)
        except StopIteration:
            self.it = iter(self.loader)
            return next(self.it)


def _nothing():
    pass


def train_step(ddp, loss_fn, opt, batches, mark, device=None, sync=None,
               after_backward=None, micro_batches=1, micro_scope=None):
    """One training step: the next batch of batches (moved to device when
    one is given), loss_fn(ddp(x), y), its backward, after_backward() when
    given (the harness's all-reduces deferred to after the backward), then
    opt.step() and opt.zero_grad(set_to_none=True).  sync() (a CUDA
    synchronize; none by default) runs after each phase, and then
    mark(PHASE), the caller's clock: "data" before the batch, "forward"
    before the forward, "backward" before the backward, "backward done"
    after it, "optimizer" before the optimizer, "done" after it.

    With micro_batches V > 1 (gradient accumulation) the step runs V
    micro-batches, each the next batch of batches, its forward and its
    backward with the loss divided by V, the gradients adding up; all but
    the last inside ddp.no_sync() (no all-reduce), so DDP all-reduces in
    the last one's backward only; then one after_backward and one
    optimizer step.  mark sees "data", "forward", "backward" and
    "backward done" once per micro-batch; micro_scope(K), when given, is
    a context manager each micro-batch K runs in (the harness's trace
    mark).  Returns the loss (the micro-batches' mean); raises
    FloatingPointError when it is not finite (and whatever the model,
    loss or optimizer raise)."""
    if sync is None:
        sync = _nothing
    total = None
    for k in range(micro_batches):
        last = k == micro_batches - 1
        with (micro_scope(k) if micro_scope is not None
              else contextlib.nullcontext()), \
                (contextlib.nullcontext() if last else ddp.no_sync()):
            loss = _micro_batch(ddp, loss_fn, batches, mark, device, sync,
                                micro_batches)
        total = loss.detach() if total is None else total + loss.detach()
    if after_backward is not None:
        after_backward()
    mark("optimizer")
    opt.step()
    opt.zero_grad(set_to_none=True)
    sync()
    mark("done")
    if micro_batches > 1:
        loss = total
    if not loss.isfinite().item():
        raise FloatingPointError("loss is %s" % loss.item())
    return loss


def _micro_batch(ddp, loss_fn, batches, mark, device, sync, micro_batches):
    """train_step's data, forward and backward of one (micro-)batch; the
    loss divided by micro_batches when above 1."""
    mark("data")
    x, y = batches.next()
    if device is not None:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
    sync()
    mark("forward")
    loss = loss_fn(ddp(x), y)
    if micro_batches > 1:
        loss = loss / micro_batches
    sync()
    mark("backward")
    loss.backward()
    sync()
    mark("backward done")
    return loss
