"""hetsim from Python: the C library libhetsim in a notebook.

    import hetsim
    s = hetsim.Scenario.load("scenarios/default.yaml")
    s["device_types.A100.count"] = 64
    s.predict()["step_recommended_ns"]

A thin, typed layer: every figure comes from libhetsim (through the flat
entry points of capi/hs_capi.h), with the names of docs/output.md.
"""
import contextlib
import ctypes
import json
import os
import threading

from . import _native as _n
from ._native import (Error, ExternalError, InputError, InternalError,
                      IOError_)

__all__ = ["Scenario", "Timeline", "Error", "InputError", "IOError_",
           "ExternalError", "InternalError", "sweep", "advise_ring",
           "advise_batch", "advise_mix", "read_trace", "plot_timeline",
           "PHASES", "INTERVAL_DTYPE"]

_lib = _n.lib
_MODE = {"auto": 0, "never": 1, "always": 2}

# hs_phase_t's names, by value (sim/hs_trace.h)
PHASES = tuple(_lib.hs_phase_name(i).decode() for i in range(10))


def _b(x):
    return x.encode() if isinstance(x, str) else x


def _s(p):
    return p.decode() if p is not None else None


def _opt(v):
    return None if v < 0 else int(v)


@contextlib.contextmanager
def _interruptible():
    """Lets SIGINT (Ctrl-C) stop the C call at its next check: the
    library's flag handler replaces Python's for the call's duration.
    Yields a list that holds True afterwards when SIGINT came; the caller
    checks the call's own error first (_n.check), then _late()."""
    armed = (threading.current_thread() is threading.main_thread()
             and _lib.hs_capi_interrupt_arm() == 0)
    came = [False]
    try:
        yield came
    finally:
        if armed:
            came[0] = bool(_lib.hs_capi_interrupt_disarm())


def _late(came):
    """SIGINT came after the call's last check (it finished): raise it
    now, as Python would have."""
    if came[0]:
        raise KeyboardInterrupt("hetsim: interrupted")


def _err():
    return _n.hs_error_t()


def _pct(value, ref):
    """value against ref in percent, as the command line prints it (not a
    model formula: a difference of two of the library's figures)."""
    return 100.0 * (value - ref) / ref if ref != 0 else 0.0


# ---- the timeline --------------------------------------------------------

try:
    import numpy as _np
except ImportError:  # the arrays need NumPy; the rest does not
    _np = None


def _interval_dtype():
    if _np is None:
        return None
    dt = _np.dtype([("device", "u4"), ("step", "u4"), ("phase", "u1"),
                    ("round", "i4"), ("bucket", "i4"), ("peer", "i4"),
                    ("start_ns", "i8"), ("end_ns", "i8"), ("bytes", "u8")],
                   align=True)
    if dt.itemsize != _lib.hs_capi_interval_size():
        raise ImportError("hetsim: hs_interval_t is %d bytes, the dtype %d"
                          % (_lib.hs_capi_interval_size(), dt.itemsize))
    return dt


INTERVAL_DTYPE = _interval_dtype()


class _Buffer:
    """Owns a C timeline (hs_capi_timeline_t); NumPy views its memory
    through __array_interface__ (no copy) and keeps this object alive as
    the array's base; freeing it frees the C buffer."""

    def __init__(self):
        self.ptr = ctypes.c_void_p()
        err = _err()
        _n.check(_lib.hs_capi_timeline_new(ctypes.byref(self.ptr), err), err)

    def array(self):
        n = ctypes.c_size_t()
        data = _lib.hs_capi_timeline_data(self.ptr, ctypes.byref(n))
        self.__array_interface__ = {
            "shape": (n.value,), "typestr": "|V%d" % INTERVAL_DTYPE.itemsize,
            "data": (data or 0, False), "version": 3}
        if n.value == 0:
            return _np.zeros(0, dtype=INTERVAL_DTYPE)
        return _np.asarray(self).view(INTERVAL_DTYPE)

    def __del__(self):
        if getattr(self, "ptr", None):
            _lib.hs_capi_timeline_free(self.ptr)
            self.ptr = None


class Timeline:
    """The replay's intervals: .intervals is a NumPy structured array
    (INTERVAL_DTYPE: device, step, phase, round, bucket, peer, start_ns,
    end_ns, bytes) over the C buffer; .devices and .types name the
    devices by index (listing order)."""

    def __init__(self, intervals, devices, types):
        self.intervals = intervals
        self.devices = devices
        self.types = types

    def __len__(self):
        return len(self.intervals)

    def __repr__(self):
        return "<hetsim.Timeline: %d intervals, %d devices>" % (
            len(self.intervals), len(self.devices))


def read_trace(path):
    """The intervals of an HDF5 trace (`hetsim simulate --h5 PATH`) as a
    NumPy structured array (INTERVAL_DTYPE)."""
    if _np is None:
        raise ImportError("hetsim.read_trace needs NumPy")
    buf = _Buffer()
    err = _err()
    _n.check(_lib.hs_capi_read_trace(_b(os.fspath(path)), buf.ptr, err), err)
    return buf.array()


# ---- the scenario --------------------------------------------------------


class Scenario:
    """A loaded, resolved scenario (hs_scenario_t), as data.

    Settings use the key paths and value texts of `hetsim sweep --vary`
    (hs_scenario_set): s.set("device_types.A100.count", 64),
    s["network.default_bandwidth"] = "100Gbps".  Freed with the object.
    """

    def __init__(self, ptr, edits=()):
        self._ptr = ptr
        self._edits = list(edits)   # (key, value text) for to_yaml()

    # -- making one
    @classmethod
    def _load(cls, fn, *args):
        ptr = ctypes.c_void_p()
        err = _err()
        _n.check(fn(*args, ctypes.byref(ptr), err), err)
        return cls(ptr)

    @classmethod
    def load(cls, path):
        """Loads the scenario file at path (profiles relative to it)."""
        return cls._load(_lib.hs_scenario_load, _b(os.fspath(path)))

    @classmethod
    def default(cls):
        """The embedded default (scenarios/default.yaml as built in)."""
        return cls._load(_lib.hs_scenario_load_default)

    @classmethod
    def from_yaml(cls, text, name="<string>", base_dir=None):
        """Loads scenario YAML text; base_dir resolves relative paths
        (profiles, links_csv; None: the current directory)."""
        raw = _b(text)
        return cls._load(_lib.hs_scenario_load_text, raw, len(raw), _b(name),
                         _b(os.fspath(base_dir)) if base_dir else None)

    @classmethod
    def from_dict(cls, d, name="<dict>", base_dir=None):
        """Loads a scenario given as a dict (as the YAML would read);
        written as JSON, which YAML reads."""
        return cls.from_yaml(json.dumps(d), name, base_dir)

    def __del__(self):
        if getattr(self, "_ptr", None):
            _lib.hs_scenario_free(self._ptr)
            self._ptr = None

    def close(self):
        """Frees the C side now (also done when the object is freed)."""
        self.__del__()

    # -- settings
    def set(self, key, value):
        """Sets one setting (hs_scenario_set) from its YAML text; a bool
        is written true/false, a list as a YAML flow list."""
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            text = "[" + ", ".join(str(v) for v in value) + "]"
        else:
            text = str(value)
        err = _err()
        _n.check(_lib.hs_scenario_set(self._ptr, _b(key), _b(text), err), err)
        self._edits.append((key, text))
        return self

    __setitem__ = set

    def _resolved(self):
        err = _err()
        _n.check(_lib.hs_scenario_resolve(self._ptr, err), err)
        return self._ptr

    def copy(self):
        """A deep copy (hs_scenario_clone)."""
        ptr = ctypes.c_void_p()
        err = _err()
        _n.check(_lib.hs_scenario_clone(self._ptr, ctypes.byref(ptr), err),
                 err)
        return Scenario(ptr, self._edits)

    __copy__ = copy

    def to_yaml(self):
        """The scenario's YAML text with every set() applied
        (hs_rewrite_yaml: comments and order kept)."""
        text = _lib.hs_capi_scenario_text(self._ptr) or b""
        if not self._edits:
            return text.decode()
        edits = (_n.hs_rewrite_edit_t * len(self._edits))(
            *[_n.hs_rewrite_edit_t(_b(k), _b(v)) for k, v in self._edits])
        out = ctypes.c_void_p()
        err = _err()
        _n.check(_lib.hs_rewrite_yaml(text, len(text), _b(self.file), edits,
                                      len(self._edits), None,
                                      ctypes.byref(out), err), err)
        try:
            return ctypes.string_at(out.value).decode()
        finally:
            _lib.hs_capi_free(out)

    # -- what it holds
    @property
    def name(self):
        return _s(_lib.hs_capi_scenario_name(self._ptr))

    @property
    def file(self):
        return _s(_lib.hs_capi_scenario_file(self._ptr))

    @property
    def types(self):
        """The device type names, in listing order."""
        p = self._resolved()
        return [_s(_lib.hs_capi_type_name(p, k))
                for k in range(_lib.hs_capi_n_types(p))]

    @property
    def devices(self):
        """The device names, in listing order (timeline indices)."""
        p = self._resolved()
        return [_s(_lib.hs_capi_device_name(p, i))
                for i in range(_lib.hs_capi_n_devices(p))]

    @property
    def n_devices(self):
        return _lib.hs_capi_n_devices(self._resolved())

    def __repr__(self):
        return "<hetsim.Scenario %r (%s): %d devices>" % (
            self.name, self.file, self.n_devices)

    # -- answers
    def _answer(self, mode, sim=None, timeline=None):
        p = self._resolved()
        nt = _lib.hs_capi_n_types(p)
        a = _n.hs_capi_answer_t()
        types = (_n.hs_capi_type_t * max(nt, 1))()
        err = _err()
        with _interruptible() as came:
            rc = _lib.hs_capi_answer(p, mode,
                                     ctypes.byref(sim) if sim else None,
                                     timeline.ptr if timeline else None,
                                     ctypes.byref(a), types, nt, err)
        _n.check(rc, err)
        notes = []
        if a.notes:
            notes = ctypes.string_at(a.notes).decode().split("\n")[:-1]
            _lib.hs_capi_free(a.notes)
        a.notes = None
        ns, nc = a.n_notes_scenario, a.n_notes_closed
        # predict: all; simulate, validate: the scenario's and the replay's
        self._notes_replay = notes[:ns] + notes[ns + nc:]
        a.steps_replay_ns = []
        if a.cluster_step_ns:
            a.steps_replay_ns = [a.cluster_step_ns[i] for i in range(a.steps)]
            _lib.hs_capi_free(a.cluster_step_ns)
        _late(came)
        return a, types, nt, notes

    def _head(self, a, model=True):
        sc = {"name": self.name, "file": self.file}
        if model:
            sc["model"] = _s(_lib.hs_capi_scenario_model(self._ptr))
        d = {"scenario": sc,
             "predictor_recommended": _n.PREDICTORS[a.recommended],
             "predictor_why": a.why.decode()}
        r = a.recommended
        d["step_recommended_ns"] = _opt(a.step_ns[r])
        d["epoch_recommended_ns"] = _opt(a.epoch_ns[r])
        d["total_recommended_ns"] = _opt(a.total_ns[r])
        for k, name in enumerate(_n.PREDICTORS):
            d["step_%s_ns" % name] = _opt(a.step_ns[k])
            d["epoch_%s_ns" % name] = _opt(a.epoch_ns[k])
            d["total_%s_ns" % name] = _opt(a.total_ns[k])
        d["iters_per_epoch"] = int(a.iters_per_epoch)
        d["epochs"] = int(a.epochs)
        d["n_devices"] = int(a.n_devices)
        return d

    def predict(self, closed_only=False):
        """`hetsim predict --json`'s document, less its format head and
        --per-device: the recommended predictor and every predictor's
        step/epoch/total (ns), per type, the bottleneck, the notes.
        closed_only: no replay (the extended form is then the
        recommended figure)."""
        a, types, nt, notes = self._answer(
            _MODE["never" if closed_only else "auto"])
        p = self._ptr
        d = self._head(a)
        if closed_only:
            d["predictor_why"] = "--closed-only: the replay was not run"
        d["latency_ns"] = int(a.latency_ns)
        names = self.types
        dev = lambda i: _s(_lib.hs_capi_device_name(p, i))
        d["types"] = []
        for k in range(nt):
            t = types[k]
            row = {"name": names[k], "count": t.count, "batch": t.batch}
            if t.micro_batches > 1:     # the CLI's key, only with
                row["micro_batches"] = t.micro_batches  # accumulation
            d["types"].append(dict(row, **{
                "t_dl_ns": _opt(t.t_dl_ns), "t_fwd_ns": t.t_fwd_ns,
                "t_b1_ns": t.t_b1_ns, "t_bwd_ns": _opt(t.t_bwd_ns),
                "t_opt_ns": _opt(t.t_opt_ns),
                "allreduce_bytes": t.allreduce_bytes,
                "subsystem_size": t.subsystem_size,
                "comm_ns_per_byte": t.comm_ns_per_byte,
                "t_hop_wait_ns": t.t_hop_wait_ns,
                "cpu_quota_cores": t.cpu_quota_cores,
                "t_cpu_period_ns": t.t_cpu_period_ns,
                "payload_bytes": t.payload_bytes,
                "t_ar_min_ns": t.t_ar_min_ns, "t_ar_max_ns": t.t_ar_max_ns,
                "step_source_min_ns": t.step_source_min_ns,
                "step_source_max_ns": t.step_source_max_ns,
                "step_extended_max_ns": t.step_extended_max_ns,
                "step_replay_ns": _opt(t.step_replay_ns),
                "slowest_device": dev(t.slowest_device),
                "shard_samples": t.shard_samples,
                "iters_per_epoch": t.iters_per_epoch}))
        d["bottleneck"] = {
            "device": dev(a.bottleneck_device),
            "type": _s(_lib.hs_capi_device_type_name(p,
                                                     a.bottleneck_device)),
            "bound": "data_loading" if a.bottleneck_bound == 0 else "device",
            "link": {"ring_pos": a.link_pos, "from": dev(a.link_from),
                     "to": dev(a.link_to),
                     "from_addr": _s(_lib.hs_capi_device_addr(p,
                                                             a.link_from)),
                     "to_addr": _s(_lib.hs_capi_device_addr(p, a.link_to)),
                     "bandwidth_bytes_per_s": a.link_bandwidth_bytes_per_s,
                     "latency_ns": a.link_latency_ns,
                     "t_ar_ns": a.link_t_ar_ns}}
        coll = _s(_lib.hs_capi_scenario_collective(p))
        if coll is not None:
            d["collective"] = coll
        if a.n_nodes:
            d["nodes"] = int(a.n_nodes)
        d["shards_unbalanced"] = bool(a.shards_unbalanced)
        d["shard_coverage"] = a.shard_coverage
        d["notes"] = notes
        return d

    def simulate(self, steps=None, seed=None, overlap=None, timeline=False,
                 force=False):
        """`hetsim simulate --json`'s answer (the replay always runs):
        steps, seed and overlap ("patent", "buckets", "none",
        "last_bucket") override the scenario's simulate: section.  With
        timeline=True also "timeline": a Timeline of every interval.
        Ctrl-C stops a long replay (KeyboardInterrupt)."""
        sim = _n.hs_capi_sim_t(steps or 0, seed is not None, seed or 0,
                               -1 if overlap is None else
                               _n.OVERLAPS.index(overlap), bool(force))
        buf = _Buffer() if timeline else None
        if timeline and _np is None:
            raise ImportError("hetsim: timeline=True needs NumPy")
        a, types, nt, _ = self._answer(_MODE["always"], sim, buf)
        notes = self._notes_replay
        p = self._ptr
        d = self._head(a, model=False)
        d["n_devices"] = int(a.n_devices)
        d["steps"] = int(a.steps)
        d["overlap"] = _n.OVERLAPS[a.overlap]
        d["overlap_asked"] = _n.OVERLAPS[a.overlap_asked]
        d["collective"] = _s(a.collective)
        d["send"] = _n.SENDS[a.send]
        d["hop_wait"] = _n.HOP_WAITS[a.hop_wait]
        d["stochastic"] = bool(a.stochastic)
        d["seed"] = int(a.seed)
        d["n_buckets"] = int(a.n_buckets)
        d["streams"] = int(a.streams)
        d["streams_asked"] = int(a.streams_asked)
        d["first_step_replay_ns"] = int(a.first_step_replay_ns)
        d["replay_vs_source_pct"] = _pct(a.replay_step_ns, a.closed_step_ns)
        d["replay_vs_extended_pct"] = _pct(a.replay_step_ns,
                                           a.closed_ext_step_ns)
        d["step_stats"] = {"mean_ns": a.step_mean_ns, "sd_ns": a.step_sd_ns,
                           "p50_ns": a.step_p50_ns, "p95_ns": a.step_p95_ns,
                           "epoch_lo_ns": a.epoch_lo_ns,
                           "epoch_hi_ns": a.epoch_hi_ns,
                           "total_lo_ns": a.total_lo_ns,
                           "total_hi_ns": a.total_hi_ns}
        d["steps_replay_ns"] = a.steps_replay_ns
        names = self.types
        d["types"] = []
        for k in range(nt):
            t = types[k]
            row = {"name": names[k], "count": t.count,
                   "comm_ns_per_byte": t.comm_ns_per_byte,
                   "t_hop_wait_ns": t.t_hop_wait_ns,
                   "hop_wait_ns": t.hop_wait_ns}
            if t.hop_wait_intra_ns >= 0:
                row["hop_wait_intra_ns"] = t.hop_wait_intra_ns
                row["hop_wait_inter_ns"] = t.hop_wait_inter_ns
            row.update({"step_source_ns": t.replay_step_source_ns,
                        "step_extended_ns": t.replay_step_extended_ns,
                        "step_replay_ns": t.step_replay_ns,
                        "replay_vs_source_pct": _pct(
                            t.step_replay_ns, t.replay_step_source_ns)})
            d["types"].append(row)
        d["engine"] = {"path": "max-plus" if a.fast_path else "events",
                       "events": int(a.events), "end_ns": a.end_ns,
                       "queue_high_water": int(a.queue_high_water),
                       "state_bytes": int(a.state_bytes)}
        d["notes"] = notes
        if buf is not None:
            p = self._resolved()
            d["timeline"] = Timeline(
                buf.array(), self.devices,
                [_s(_lib.hs_capi_device_type_name(p, i))
                 for i in range(_lib.hs_capi_n_devices(p))])
        return d

    def validate(self, formula="extended", tolerance_pct=None, steps=None,
                 seed=None, overlap=None):
        """`hetsim validate --json`'s document, less its format head: the
        replay against the closed form (formula "extended" or "source"),
        per type and for the cluster; within_tolerance when tolerance_pct
        is given (the CLI then exits 1 when it is False)."""
        if formula not in ("extended", "source"):
            raise InputError("formula: extended or source, not %r" % formula,
                             _n.HS_ERR_USAGE, "usage error", 2)
        sim = _n.hs_capi_sim_t(steps or 0, seed is not None, seed or 0,
                               -1 if overlap is None else
                               _n.OVERLAPS.index(overlap), 0)
        a, types, nt, _ = self._answer(_MODE["always"], sim)
        notes = self._notes_replay
        src = formula == "source"
        d = self._head(a, model=False)
        del d["n_devices"]
        d["formula"] = formula
        d["overlap"] = _n.OVERLAPS[a.overlap]
        d["overlap_asked"] = _n.OVERLAPS[a.overlap_asked]
        d["send"] = _n.SENDS[a.send]
        d["steps"] = int(a.steps)

        def row(source, ext, rep):
            closed = source if src else ext
            return {"step_source_ns": source, "step_extended_ns": ext,
                    "step_replay_ns": rep, "diff_ns": rep - closed,
                    "diff_pct": _pct(rep, closed)}

        names = self.types
        d["types"] = []
        for k in range(nt):
            t = types[k]
            r = {"name": names[k], "count": t.count}
            r.update(row(t.replay_step_source_ns, t.replay_step_extended_ns,
                         t.step_replay_ns))
            d["types"].append(r)
        d["cluster"] = row(a.closed_step_ns, a.closed_ext_step_ns,
                           a.replay_step_ns)
        d["tolerance_pct"] = (None if tolerance_pct is None
                              else float(tolerance_pct))
        d["within_tolerance"] = (
            None if tolerance_pct is None
            else abs(d["cluster"]["diff_pct"]) <= tolerance_pct)
        d["notes"] = notes
        return d


# ---- sweeps and advice ---------------------------------------------------


def _strs(xs):
    arr = (ctypes.c_char_p * max(len(xs), 1))(*[_b(x) for x in xs])
    return arr, len(xs)


def _value_text(v):
    if isinstance(v, str):
        return v
    return ",".join(str(x) for x in v)


def sweep(scenario, vary, set=None, zip=False, replay="auto",
          as_json=False):
    """`hetsim sweep --json`: vary maps a key path to its values (a
    list, or the CLI's text "8,16,32", "8..64:8", "8..64*2"); set maps
    key paths to one value each.  replay: "auto", "never" (--closed-only) or "always"
    (--replay).  Returns a pandas DataFrame when pandas is importable,
    else a list of dicts (one per point: the varied keys, then the
    figures); as_json=True returns the whole JSON document instead."""
    va, nv = _strs(["%s=%s" % (k, _value_text(v)) for k, v in vary.items()])
    sa, ns = _strs(["%s=%s" % (k, v) for k, v in (set or {}).items()])
    out = ctypes.c_void_p()
    err = _err()
    p = scenario._resolved()
    with _interruptible() as came:
        rc = _lib.hs_capi_sweep_json(p, _MODE[replay], sa, ns, va, nv,
                                     bool(zip), ctypes.byref(out), err)
    _n.check(rc, err)
    _late(came)
    try:
        doc = json.loads(ctypes.string_at(out.value).decode())
    finally:
        _lib.hs_capi_free(out)
    if as_json:
        return doc
    rows = []
    for pt in doc["points"]:
        row = dict(pt.get("values", {}))
        row.update({k: v for k, v in pt.items() if k != "values"})
        rows.append(row)
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


def _fig(f):
    """An hs_advise_fig_t as advise --json writes one."""
    d = {}
    for q in ("step", "epoch", "total"):
        for k, name in enumerate(_n.PREDICTORS + ("recommended",)):
            e = f.est[k if k < 3 else f.recommended]
            d["%s_%s_ns" % (q, name)] = _opt(getattr(e, q + "_ns"))
    d["predictor_recommended"] = _n.PREDICTORS[f.recommended]
    d["predictor_why"] = f.why.decode()
    return d


_OUTCOMES = ("improved", "fallback", "none")
_QUANTITIES = ("step", "epoch", "total")


def _advice(question, scenario, adv, want_total):
    """The head every advise answer starts with, and what the answer was
    judged on (hs_advise_fig_pair, as the command line calls it)."""
    none = adv.outcome == 2
    chosen = None if none else adv.chosen
    vc, vg = ctypes.c_int64(), ctypes.c_int64()
    pred, qty = ctypes.c_int(), ctypes.c_int()
    _lib.hs_advise_fig_pair(ctypes.byref(chosen if chosen else adv.given),
                            ctypes.byref(adv.given), want_total,
                            ctypes.byref(vc), ctypes.byref(vg),
                            ctypes.byref(pred), ctypes.byref(qty))
    return {"question": question, "scenario": scenario.file,
            "outcome": _OUTCOMES[adv.outcome],
            "predictor_recommended": _n.PREDICTORS[adv.given.recommended],
            "predictor_why": adv.given.why.decode(),
            "judged": {"predictor": _n.PREDICTORS[pred.value],
                       "quantity": _QUANTITIES[qty.value],
                       "given_ns": _opt(vg.value),
                       "recommended_ns": None if none else _opt(vc.value),
                       "change_pct": (100.0 * (vc.value - vg.value)
                                      / vg.value
                                      if not none and vg.value > 0
                                      else None)}}


def _values(adv, k):
    """Candidate k's row of adv.values."""
    w = adv.width
    return [adv.values[k * w + i] for i in range(w)]


def _advise_call(fn, scenario, *args):
    adv = _n.hs_capi_advice_t()
    err = _err()
    with _interruptible() as came:
        rc = fn(scenario._resolved(), *args[:-1], ctypes.byref(adv),
                *args[-1], err)
    _n.check(rc, err)
    return adv, came


def advise_ring(scenario, replay=True, exact_max=16):
    """`hetsim advise ring --json`'s document, less its format head,
    search_cpu_s and scenario_written: the ring order with the least
    step.  "order" (not in the CLI's document) holds the recommended
    ring's device names (the given ring's when no better one is found)."""
    p = scenario._resolved()
    n = _lib.hs_capi_n_devices(p)
    order = (ctypes.c_uint32 * max(n, 1))()
    adv, came = _advise_call(_lib.hs_capi_advise_ring, scenario,
                             bool(replay), exact_max, (order, n))
    try:
        names = scenario.devices
        d = _advice("ring", scenario, adv, 0)
        d = dict([("question", d.pop("question")),
                  ("scenario", d.pop("scenario")), ("n_devices", n)]
                 + list(d.items()))
        d["recommended"] = None if adv.outcome == 2 else adv.label.decode()
        d["search"] = "exact" if adv.exact else "heuristic"
        d["lower_bound_step_source_ns"] = adv.lower_bound_step_source_ns
        d["candidates"] = []
        for k in range(adv.n_cands):
            c = adv.cands[k]
            row = {"label": c.label.decode(),
                   "same_as": (adv.cands[c.same_as].label.decode()
                               if c.same_as >= 0 else None),
                   "recommended": bool(c.recommended)}
            row.update(_fig(c.fig))
            row["ring"] = [names[i] for i in _values(adv, k)]
            d["candidates"].append(row)
        d["order"] = [names[order[i]] for i in range(n)]
    finally:
        _lib.hs_capi_free(ctypes.cast(adv.values, ctypes.c_void_p))
    _late(came)
    return d


def advise_batch(scenario, global_batch=0, max_batch=None, replay=True,
                 max_micro=1):
    """`hetsim advise batch --json`'s document, less its format head,
    scaling and scenario_written: per-type batches that keep the global
    batch (0: the scenario's); max_batch maps a type to its largest
    batch.  max_micro > 1 (`--max-micro N`) also searches gradient
    accumulation: a type may split a step's batch into up to max_micro
    equal micro-batches, max_batch then being what a device holds at
    once; the document then has the CLI's micro-batch keys (per type
    micro_batches_given, micro_batches_recommended,
    micro_batch_recommended; per candidate micro_batches).  "batch" and
    "shard_samples" (not in the CLI's document) map each type to the
    recommended batch and shard, and with max_micro > 1
    "micro_batches" to its recommended micro-batch count."""
    names = scenario.types
    nt = len(names)
    micro = int(max_micro) > 1
    given = [t["batch"] for t in scenario.predict(closed_only=True)["types"]]
    U = ctypes.c_uint64 * max(nt, 1)
    M = ctypes.c_uint32 * max(nt, 1)
    mb = U(*[int((max_batch or {}).get(t, 0)) for t in names])
    batch, shard, mgiven, mrec = U(), U(), M(), M()
    adv, came = _advise_call(_lib.hs_capi_advise_batch_micro, scenario,
                             bool(replay), int(global_batch), mb,
                             int(max_micro),
                             (batch, shard, mgiven, mrec, nt))
    try:
        d = _advice("batch", scenario, adv, 0)
        d["recommended"] = None if adv.outcome == 2 else adv.label.decode()
        d["global_batch_asked"] = int(adv.global_batch_asked)
        d["global_batch"] = int(adv.global_batch)
        d["types"] = [{"name": names[k], "count": None,
                       "batch_given": given[k],
                       "batch_recommended": int(batch[k])}
                      for k in range(nt)]
        counts = [t["count"] for t in
                  scenario.predict(closed_only=True)["types"]]
        for k in range(nt):
            d["types"][k]["count"] = counts[k]
            if micro:
                d["types"][k]["micro_batches_given"] = int(mgiven[k])
                d["types"][k]["micro_batches_recommended"] = int(mrec[k])
                d["types"][k]["micro_batch_recommended"] = \
                    int(batch[k]) // int(mrec[k])
        d["candidates"] = []
        for j in range(adv.n_cands):
            c = adv.cands[j]
            v = _values(adv, j)
            row = {"label": c.label.decode(),
                   "recommended": bool(c.recommended),
                   "global_batch": int(c.global_batch),
                   "batch": {names[k]: v[k] for k in range(nt)}}
            if micro:
                row["micro_batches"] = {names[k]: v[2 * nt + k]
                                        for k in range(nt)}
            row["shard_samples"] = {names[k]: v[nt + k] for k in range(nt)
                                    if v[nt + k] != 0}
            row.update(_fig(c.fig))
            d["candidates"].append(row)
        d["batch"] = {names[k]: int(batch[k]) for k in range(nt)}
        d["shard_samples"] = {names[k]: int(shard[k]) for k in range(nt)}
        if micro:
            d["micro_batches"] = {names[k]: int(mrec[k]) for k in range(nt)}
    finally:
        _lib.hs_capi_free(ctypes.cast(adv.values, ctypes.c_void_p))
    _late(came)
    return d


def advise_mix(scenario, price, budget=None, deadline_ns=None, avail=None,
               min=None, replay=True):
    """`hetsim advise mix --json`'s document, less its format head,
    search_cpu_s and scenario_written: how many devices of each type;
    price maps every type to its price per device-hour; exactly one of
    budget (the fastest mix within it) and deadline_ns (the cheapest
    within it); avail and min map types to counts (default: the
    scenario's count, 0).  "counts" (not in the CLI's document) maps each
    type to the recommended count."""
    if (budget is None) == (deadline_ns is None):
        raise InputError("advise_mix needs exactly one of budget and "
                         "deadline_ns", _n.HS_ERR_USAGE, "usage error", 2)
    names = scenario.types
    nt = len(names)
    missing = [t for t in names if t not in price]
    if missing:
        raise InputError("advise_mix needs a price for every type (%s)"
                         % ", ".join(missing), _n.HS_ERR_USAGE,
                         "usage error", 2)
    base = scenario.predict(closed_only=True)["types"]
    U = ctypes.c_uint64 * max(nt, 1)
    av = U(*[int((avail or {}).get(t, base[k]["count"]))
             for k, t in enumerate(names)])
    mn = U(*[int((min or {}).get(t, 0)) for t in names])
    pr = (ctypes.c_double * max(nt, 1))(*[float(price[t]) for t in names])
    counts = U()
    adv, came = _advise_call(_lib.hs_capi_advise_mix, scenario,
                             bool(replay), av, mn, pr, float(budget or 0),
                             int(deadline_ns or 0), (counts, nt))
    try:
        d = _advice("mix", scenario, adv, 1)
        d = dict([("question", d.pop("question")),
                  ("scenario", d.pop("scenario")),
                  ("goal", "fastest within budget" if budget is not None
                   else "cheapest within deadline"),
                  ("budget", float(budget) if budget is not None else None),
                  ("deadline_ns", int(deadline_ns) if deadline_ns is not None
                   else None)] + list(d.items()))
        d["recommended"] = (None if adv.outcome == 2
                            else int(adv.label.decode()))
        d["constraint_met"] = bool(adv.met)
        d["shards_derived"] = bool(adv.shards_derived)
        d["mixes_visited"] = int(adv.mixes_visited)
        d["mixes_evaluated"] = int(adv.mixes_evaluated)

        def mix(row_counts, fig, cost, ok):
            m = {"counts": {names[k]: row_counts[k] for k in range(nt)}}
            m.update(_fig(fig))
            m["cost_recommended"] = cost if cost >= 0 else None
            m["meets_constraint"] = bool(ok)
            return m

        d["given"] = mix(_values(adv, adv.n_cands), adv.given,
                         adv.given_cost, adv.given_ok)
        d["given"]["within_limits"] = bool(adv.given_allowed)
        d["candidates"] = []
        for j in range(adv.n_cands):
            c = adv.cands[j]
            row = {"rank": j + 1, "recommended": bool(c.recommended)}
            row.update(mix(_values(adv, j), c.fig, c.cost, c.meets))
            row["cost_extended"] = c.cost_extended
            d["candidates"].append(row)
        d["counts"] = {names[k]: int(counts[k]) for k in range(nt)}
    finally:
        _lib.hs_capi_free(ctypes.cast(adv.values, ctypes.c_void_p))
    _late(came)
    return d


# ---- the picture ---------------------------------------------------------

# one colour per phase, as plots/timeline.gp draws them
PHASE_COLORS = {"data_load": "#999999", "forward": "#1f77b4",
                "backward_first": "#d62728", "backward_rest": "#ff9896",
                "optimizer": "#9467bd", "ring_send": "#2ca02c",
                "ring_wait": "#dddddd", "data_wait": "#cccccc",
                "ring_reduce": "#bcbd22", "hop_wait": "#ff7f0e"}


def plot_timeline(ax, timeline, devices=None, steps=None, phases=None,
                  legend=True):
    """Draws a replay's timeline on the matplotlib axes ax: one row per
    device (the indices given, default all in listing order, at most 64),
    a bar per interval coloured by phase, time in ms.  timeline: a
    Timeline or an INTERVAL_DTYPE array; steps: (first, last) to show;
    phases: names to draw (default all but the waits' background)."""
    iv = timeline.intervals if isinstance(timeline, Timeline) else timeline
    names = timeline.devices if isinstance(timeline, Timeline) else None
    if devices is None:
        devices = sorted(set(int(x) for x in _np.unique(iv["device"])))[:64]
    if steps is not None:
        iv = iv[(iv["step"] >= steps[0]) & (iv["step"] <= steps[1])]
    row = {d: k for k, d in enumerate(devices)}
    sel = _np.isin(iv["device"], list(devices))
    iv = iv[sel]
    t0 = iv["start_ns"].min() if len(iv) else 0
    shown = set()
    for ph in range(len(PHASES)):
        name = PHASES[ph]
        if phases is not None and name not in phases:
            continue
        part = iv[iv["phase"] == ph]
        if not len(part):
            continue
        for d in _np.unique(part["device"]):
            q = part[part["device"] == d]
            spans = list(zip((q["start_ns"] - t0) / 1e6,
                             (q["end_ns"] - q["start_ns"]) / 1e6))
            ax.broken_barh(spans, (row[int(d)] - 0.4, 0.8),
                           facecolors=PHASE_COLORS.get(name, "k"),
                           label=name if name not in shown else None)
            shown.add(name)
    ax.set_yticks(range(len(devices)))
    ax.set_yticklabels([names[d] if names else str(d) for d in devices])
    ax.set_xlabel("time (ms)")
    ax.invert_yaxis()
    if legend and shown:
        ax.legend(loc="upper right", fontsize="small")
    return ax
