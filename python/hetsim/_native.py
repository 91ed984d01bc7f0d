"""The ctypes layer over libhetsim.so: finding the library, the plain
structs of capi/hs_capi.h, and the error classes.

ctypes, not cffi: it is in every Python, needs no compiler and no
python3-cffi at install time, and the C side (capi/hs_capi.h) is made of
plain structs and arrays, which is what ctypes describes well.
"""
import ctypes
import os

# ---- the library --------------------------------------------------------


def _candidates():
    env = os.environ.get("HETSIM_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    try:  # written by `cmake --install`: the installed library
        from . import _paths

        yield os.path.normpath(os.path.join(here, _paths.LIBRARY))
    except ImportError:
        pass
    # the build tree: python/hetsim -> SRC/build (or any BUILD* folder)
    src = os.path.dirname(os.path.dirname(here))
    for b in sorted(os.listdir(src)) if os.path.isdir(src) else []:
        if b.startswith("build"):
            yield os.path.join(src, b, "libhetsim.so")
    yield "libhetsim.so.2"


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("hetsim: libhetsim.so not found; build it or set "
                      "HETSIM_LIBRARY (tried: %s)" % ", ".join(tried))


lib, LIBRARY_PATH = _load()

# ---- errors ---------------------------------------------------------------


class Error(Exception):
    """A hetsim failure: .code (the hs_err_t), .code_name, .exit_status
    (what the CLI exits with) and the message, "file:line:col: what"."""

    def __init__(self, message, code=0, code_name="", exit_status=1):
        super().__init__(message)
        self.message = message
        self.code = code
        self.code_name = code_name
        self.exit_status = exit_status


class InternalError(Error):
    """Exit status 1: memory, a tolerance, an internal fault."""


class InputError(Error):
    """Exit status 2: a bad scenario, value, unit, network or option."""


class IOError_(Error):
    """Exit status 3: a file that cannot be read or written."""


class ExternalError(Error):
    """Exit status 4: an external program, host or rank failed."""


for _c in (Error, InternalError, InputError, IOError_, ExternalError):
    _c.__module__ = "hetsim"

_BY_EXIT = {1: InternalError, 2: InputError, 3: IOError_, 4: ExternalError}

HS_ERR_USAGE = 10


class hs_error_t(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * 1024)]


lib.hs_err_name.restype = ctypes.c_char_p
lib.hs_err_name.argtypes = [ctypes.c_int]
lib.hs_err_exit_code.restype = ctypes.c_int
lib.hs_err_exit_code.argtypes = [ctypes.c_int]


def check(rc, err):
    """Raises the Error subclass for rc (not 0), with err's message; an
    interrupted call raises KeyboardInterrupt."""
    if rc == 0:
        return
    msg = err.msg.decode("utf-8", "replace")
    if rc == HS_ERR_USAGE and msg == "interrupted":
        raise KeyboardInterrupt("hetsim: interrupted")
    status = lib.hs_err_exit_code(rc)
    cls = _BY_EXIT.get(status, Error)
    raise cls(msg, rc, lib.hs_err_name(rc).decode(), status)


# ---- the structs of hs_capi.h --------------------------------------------

P = 3  # HS_PREDICTORS
PREDICTORS = ("source", "extended", "replay")
OVERLAPS = ("patent", "buckets", "none", "last_bucket")
SENDS = ("rendezvous", "eager")
HOP_WAITS = ("ring", "probe")


class hs_capi_answer_t(ctypes.Structure):
    _fields_ = [("step_ns", ctypes.c_int64 * P),
                ("epoch_ns", ctypes.c_int64 * P),
                ("total_ns", ctypes.c_int64 * P),
                ("recommended", ctypes.c_int32),
                ("epochs", ctypes.c_uint32),
                ("iters_per_epoch", ctypes.c_uint64),
                ("n_devices", ctypes.c_uint64),
                ("latency_ns", ctypes.c_int64),
                ("replay_ran", ctypes.c_int32),
                ("steps", ctypes.c_uint32),
                ("overlap", ctypes.c_int32),
                ("fast_path", ctypes.c_int32),
                ("seed", ctypes.c_uint64),
                ("first_step_replay_ns", ctypes.c_int64),
                ("step_mean_ns", ctypes.c_int64),
                ("step_sd_ns", ctypes.c_int64),
                ("step_p50_ns", ctypes.c_int64),
                ("step_p95_ns", ctypes.c_int64),
                ("events", ctypes.c_uint64),
                ("overlap_asked", ctypes.c_int32),
                ("send", ctypes.c_int32),
                ("hop_wait", ctypes.c_int32),
                ("stochastic", ctypes.c_int32),
                ("n_buckets", ctypes.c_uint32),
                ("streams", ctypes.c_uint32),
                ("streams_asked", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32),
                ("replay_step_ns", ctypes.c_int64),
                ("closed_step_ns", ctypes.c_int64),
                ("closed_ext_step_ns", ctypes.c_int64),
                ("epoch_lo_ns", ctypes.c_int64),
                ("epoch_hi_ns", ctypes.c_int64),
                ("total_lo_ns", ctypes.c_int64),
                ("total_hi_ns", ctypes.c_int64),
                ("end_ns", ctypes.c_int64),
                ("queue_high_water", ctypes.c_uint64),
                ("state_bytes", ctypes.c_uint64),
                ("collective", ctypes.c_char_p),
                ("cluster_step_ns", ctypes.POINTER(ctypes.c_int64)),
                ("bottleneck_device", ctypes.c_uint32),
                ("bottleneck_bound", ctypes.c_int32),
                ("link_pos", ctypes.c_uint32),
                ("link_from", ctypes.c_uint32),
                ("link_to", ctypes.c_uint32),
                ("link_bandwidth_bytes_per_s", ctypes.c_double),
                ("link_latency_ns", ctypes.c_int64),
                ("link_t_ar_ns", ctypes.c_int64),
                ("shards_unbalanced", ctypes.c_int32),
                ("shard_coverage", ctypes.c_double),
                ("n_nodes", ctypes.c_uint64),
                ("notes", ctypes.c_void_p),
                ("n_notes_scenario", ctypes.c_uint32),
                ("n_notes_closed", ctypes.c_uint32),
                ("n_notes_replay", ctypes.c_uint32),
                ("reserved2", ctypes.c_uint32),
                ("why", ctypes.c_char * 320)]


class hs_capi_type_t(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in
                ("count", "batch", "shard_samples", "iters_per_epoch")] + \
               [(n, ctypes.c_int64) for n in
                ("t_fwd_ns", "t_b1_ns", "t_ar_min_ns", "t_ar_max_ns",
                 "step_source_min_ns", "step_source_max_ns",
                 "step_extended_max_ns", "step_replay_ns")] + \
               [("payload_bytes", ctypes.c_double),
                ("t_dl_ns", ctypes.c_int64), ("t_bwd_ns", ctypes.c_int64),
                ("t_opt_ns", ctypes.c_int64),
                ("allreduce_bytes", ctypes.c_uint64),
                ("subsystem_size", ctypes.c_uint64),
                ("comm_ns_per_byte", ctypes.c_double),
                ("t_hop_wait_ns", ctypes.c_int64),
                ("cpu_quota_cores", ctypes.c_double),
                ("t_cpu_period_ns", ctypes.c_int64),
                ("slowest_device", ctypes.c_uint32),
                ("micro_batches", ctypes.c_uint32),
                ("replay_step_source_ns", ctypes.c_int64),
                ("replay_step_extended_ns", ctypes.c_int64),
                ("hop_wait_ns", ctypes.c_int64),
                ("hop_wait_intra_ns", ctypes.c_int64),
                ("hop_wait_inter_ns", ctypes.c_int64)]


class hs_capi_sim_t(ctypes.Structure):
    _fields_ = [("steps", ctypes.c_uint32), ("has_seed", ctypes.c_int32),
                ("seed", ctypes.c_uint64), ("overlap", ctypes.c_int32),
                ("force", ctypes.c_int32)]


class hs_estimate_t(ctypes.Structure):
    _fields_ = [("step_ns", ctypes.c_int64), ("epoch_ns", ctypes.c_int64),
                ("total_ns", ctypes.c_int64)]


class hs_advise_fig_t(ctypes.Structure):
    _fields_ = [("est", hs_estimate_t * P), ("recommended", ctypes.c_int),
                ("why", ctypes.c_char * 320)]


class hs_capi_cand_t(ctypes.Structure):
    _fields_ = [("label", ctypes.c_char * 32), ("same_as", ctypes.c_int32),
                ("recommended", ctypes.c_int32),
                ("global_batch", ctypes.c_uint64),
                ("cost", ctypes.c_double), ("cost_extended", ctypes.c_double),
                ("meets", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("fig", hs_advise_fig_t)]


class hs_capi_advice_t(ctypes.Structure):
    _fields_ = [("outcome", ctypes.c_int32), ("met", ctypes.c_int32),
                ("given", hs_advise_fig_t), ("chosen", hs_advise_fig_t),
                ("label", ctypes.c_char * 32),
                ("lower_bound_step_source_ns", ctypes.c_int64),
                ("global_batch", ctypes.c_uint64),
                ("global_batch_asked", ctypes.c_uint64),
                ("exact", ctypes.c_int32), ("given_ok", ctypes.c_int32),
                ("given_allowed", ctypes.c_int32),
                ("shards_derived", ctypes.c_int32),
                ("given_cost", ctypes.c_double),
                ("mixes_visited", ctypes.c_uint64),
                ("mixes_evaluated", ctypes.c_uint64),
                ("n_cands", ctypes.c_size_t),
                ("cands", hs_capi_cand_t * 8),
                ("width", ctypes.c_size_t),
                ("values", ctypes.POINTER(ctypes.c_uint64))]


class hs_rewrite_edit_t(ctypes.Structure):
    _fields_ = [("key_path", ctypes.c_char_p), ("value", ctypes.c_char_p)]


# ---- signatures -----------------------------------------------------------

_vp, _sz, _cp = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p
_E = ctypes.POINTER(hs_error_t)


def _sig(name, res, *args):
    f = getattr(lib, name)
    f.restype = res
    f.argtypes = list(args)


_sig("hs_capi_version", ctypes.c_int)
_sig("hs_scenario_load", ctypes.c_int, _cp, ctypes.POINTER(_vp), _E)
_sig("hs_scenario_load_text", ctypes.c_int, _cp, _sz, _cp, _cp,
     ctypes.POINTER(_vp), _E)
_sig("hs_scenario_load_default", ctypes.c_int, ctypes.POINTER(_vp), _E)
_sig("hs_scenario_free", None, _vp)
_sig("hs_scenario_set", ctypes.c_int, _vp, _cp, _cp, _E)
_sig("hs_scenario_resolve", ctypes.c_int, _vp, _E)
_sig("hs_scenario_clone", ctypes.c_int, _vp, ctypes.POINTER(_vp), _E)
_sig("hs_rewrite_yaml", ctypes.c_int, _cp, _sz, _cp,
     ctypes.POINTER(hs_rewrite_edit_t), _sz, _cp, ctypes.POINTER(_vp), _E)
for _n in ("hs_capi_n_types", "hs_capi_n_devices"):
    _sig(_n, _sz, _vp)
for _n in ("hs_capi_type_name", "hs_capi_device_name",
           "hs_capi_device_type_name"):
    _sig(_n, _cp, _vp, _sz)
_sig("hs_capi_device_addr", _cp, _vp, _sz)
for _n in ("hs_capi_scenario_name", "hs_capi_scenario_file",
           "hs_capi_scenario_text", "hs_capi_scenario_model",
           "hs_capi_scenario_collective"):
    _sig(_n, _cp, _vp)
_sig("hs_capi_answer", ctypes.c_int, _vp, ctypes.c_int,
     ctypes.POINTER(hs_capi_sim_t), _vp, ctypes.POINTER(hs_capi_answer_t),
     ctypes.POINTER(hs_capi_type_t), _sz, _E)
_sig("hs_capi_timeline_new", ctypes.c_int, ctypes.POINTER(_vp), _E)
_sig("hs_capi_timeline_data", _vp, _vp, ctypes.POINTER(_sz))
_sig("hs_capi_timeline_free", None, _vp)
_sig("hs_capi_interval_size", _sz)
_sig("hs_capi_read_trace", ctypes.c_int, _cp, _vp, _E)
_sig("hs_capi_sweep_json", ctypes.c_int, _vp, ctypes.c_int,
     ctypes.POINTER(_cp), _sz, ctypes.POINTER(_cp), _sz, ctypes.c_int,
     ctypes.POINTER(_vp), _E)
_sig("hs_capi_advise_ring", ctypes.c_int, _vp, ctypes.c_int,
     ctypes.c_uint32, ctypes.POINTER(hs_capi_advice_t),
     ctypes.POINTER(ctypes.c_uint32), _sz, _E)
_sig("hs_capi_advise_batch", ctypes.c_int, _vp, ctypes.c_int,
     ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64),
     ctypes.POINTER(hs_capi_advice_t), ctypes.POINTER(ctypes.c_uint64),
     ctypes.POINTER(ctypes.c_uint64), _sz, _E)
_sig("hs_capi_advise_batch_micro", ctypes.c_int, _vp, ctypes.c_int,
     ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64), ctypes.c_uint32,
     ctypes.POINTER(hs_capi_advice_t), ctypes.POINTER(ctypes.c_uint64),
     ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32),
     ctypes.POINTER(ctypes.c_uint32), _sz, _E)
_sig("hs_capi_advise_mix", ctypes.c_int, _vp, ctypes.c_int,
     ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
     ctypes.POINTER(ctypes.c_double), ctypes.c_double, ctypes.c_int64,
     ctypes.POINTER(hs_capi_advice_t), ctypes.POINTER(ctypes.c_uint64), _sz,
     _E)
_sig("hs_capi_interrupt_arm", ctypes.c_int)
_sig("hs_capi_interrupt_disarm", ctypes.c_int)
_sig("hs_capi_free", None, _vp)
_sig("hs_phase_name", _cp, ctypes.c_int)
_sig("hs_advise_fig_pair", None, ctypes.POINTER(hs_advise_fig_t),
     ctypes.POINTER(hs_advise_fig_t), ctypes.c_int,
     ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int64),
     ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))

if lib.hs_capi_version() != 1:
    raise ImportError("hetsim: %s has C API version %d, this package wants 1"
                      % (LIBRARY_PATH, lib.hs_capi_version()))
