"""What the modules of the accuracy benchmark share: the source tree's
paths, the testbed module (bench/testbed/testbed.py, imported as T), the
models' folder, the replay modes, the per-process settings of the ranks,
CaseError and the number formats of the report."""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, os.path.join(BENCH, "testbed"))
import testbed as T  # noqa: E402

MODELS = os.path.join(ROOT, "scenarios", "models")
MODES = ("patent", "buckets", "none", "last_bucket")
# the testbed's per-process settings (one compute thread, a fixed
# allocator: bench/testbed/testbed.py), for the profiling ranks (through the
# scenario's env) and the full runs alike
THREAD_ENV = dict(T.THREAD_ENV, GLOO_SOCKET_IFNAME="eth0")


class CaseError(Exception):
    pass


def fmt_ms(ns):
    return "-" if ns is None else "%.1fms" % (ns / 1e6)


def fmt_err(e):
    return "-" if e is None else "%+.1f%%" % (100 * e)


def yaml_str(s):
    return json.dumps(s)     # a JSON string is a valid YAML flow scalar
