#!/usr/bin/env python3
"""The one table of hetsim's output fields.

Every JSON document, CSV column and HDF5 member hetsim writes is named
here once, with its type, unit and meaning.  From this table come
  schemas/*.schema.json   a JSON Schema (draft-07) per JSON output, and
  docs/output.md          the reference of every field,
so the two cannot drift from each other; tests/test_output_schemas.py checks that
the files in the repository are what this script makes (--check) and that
every command's JSON validates against its schema.

    python3 scripts/schemas.py            write schemas/ and docs/output.md
    python3 scripts/schemas.py --check    exit 1 when they differ

Names: a quantity's unit ends its name (_ns, _bytes, _bytes_per_s, _pct,
_cores); a figure of a predictor is QUANTITY_PREDICTOR_ns with QUANTITY in
step, epoch, total and PREDICTOR in recommended, source, extended, replay.
"""
import json
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))
FORMAT_VERSION = 2


# ---- the little language --------------------------------------------------

def F(name, typ, desc, null=False, optional=False, enum=None):
    """A field: typ is int, number, string, bool, or [int]/[string]."""
    return {"name": name, "type": typ, "desc": desc, "null": null,
            "optional": optional, "enum": enum}


def O(name, fields, desc, null=False, optional=False, open_keys=None):
    """An object field (open_keys: a type for arbitrary keys instead)."""
    return {"name": name, "type": "object", "fields": fields, "desc": desc,
            "null": null, "optional": optional, "open": open_keys}


def A(name, item_fields, desc, optional=False):
    """An array of objects."""
    return {"name": name, "type": "array", "fields": item_fields,
            "desc": desc, "null": False, "optional": optional}


PREDICTORS = {
    "recommended": "the recommended predictor's (the replay when it ran, "
                   "else the extended form; see predictor_recommended)",
    "source": "the source's closed form, max_i T(i) (docs/method.md, S400)",
    "extended": "the extended closed form, max_i T_ext(i): also the rest of "
                "the backward and the optimizer",
    "replay": "the discrete-event replay's steady step (null when the "
              "replay did not run)",
}


def answer_fields():
    """What hs_cli_kv_answer writes (cli/hs_cli_answer.c)."""
    out = [
        F("predictor_recommended", "string",
          "the predictor whose figures are the answer", enum=[
              "replay", "extended"]),
        F("predictor_why", "string", "why that predictor, in a sentence"),
    ]
    for p in ("recommended", "source", "extended", "replay"):
        for q, what in (("step", "a training step, ns"),
                        ("epoch", "an epoch (iters_per_epoch steps), ns; "
                                  "null when unknown (no dataset or shards)"),
                        ("total", "the whole training (epochs epochs), ns; "
                                  "null when unknown")):
            out.append(F("%s_%s_ns" % (q, p), "int",
                         "%s: %s" % (what, PREDICTORS[p]), null=True))
    out += [
        F("iters_per_epoch", "int", "steps in an epoch (0: unknown)"),
        F("epochs", "int", "epochs of the training (job.epochs)"),
    ]
    return out


def head(fmt):
    return [
        F("format", "string", "the document's format", enum=[fmt]),
        F("format_version", "int",
          "the version of its field names (this page's)",
          enum=[FORMAT_VERSION]),
        F("hetsim_version", "string", "the hetsim that wrote it"),
    ]


SCENARIO = [F("name", "string", "scenario name", null=True),
            F("file", "string", "path it was loaded from, or "
                                 "<default>/scenarios/default.yaml")]

NOTES = F("notes", ["string"],
          "assumptions and remarks: the scenario's, the closed form's, the "
          "replay's")

REPLAY_SETTINGS = [
    F("n_devices", "int", "devices in the ring"),
    F("steps", "int", "steps replayed"),
    F("overlap", "string", "the overlap mode replayed",
      enum=["patent", "buckets", "none", "last_bucket"]),
    F("overlap_asked", "string", "the overlap mode asked for",
      enum=["patent", "buckets", "none", "last_bucket"]),
]

# A type's micro-batches per step, in predict's and simulate's types[].
MICRO_BATCHES = F("micro_batches", "int",
                  "gradient accumulation: the step's batch as this many "
                  "micro-batches of batch / micro_batches samples (the "
                  "type's micro_batches, or its profile's); only when above "
                  "1", optional=True)

PREDICT = head("hetsim.predict") + [
    O("scenario", SCENARIO + [F("model", "string", "job.model",
                                null=True)], "the scenario"),
] + answer_fields() + [
    F("n_devices", "int", "devices in the ring"),
    F("latency_ns", "int", "the default per-message latency, ns"),
    A("types", [
        F("name", "string", "device type"),
        F("count", "int", "devices of this type"),
        F("batch", "int", "samples per step per device"),
        MICRO_BATCHES,
        F("t_dl_ns", "int", "data loading per step, ns (null: not measured)",
          null=True),
        F("t_fwd_ns", "int", "forward, ns (scaled, extra compute included)"),
        F("t_b1_ns", "int", "the first backward op, ns"),
        F("t_bwd_ns", "int", "the whole backward, ns (null: not measured)",
          null=True),
        F("t_opt_ns", "int", "the optimizer step, ns (null: not measured)",
          null=True),
        F("allreduce_bytes", "int",
          "D: bytes one device all-reduced per step in the profile's "
          "sub-system"),
        F("subsystem_size", "int", "n: devices of the profiled sub-system"),
        F("comm_ns_per_byte", "number",
          "the communication's own cost on the device, ns per byte sent"),
        F("t_hop_wait_ns", "int",
          "the profile's probed hop wait, ns (0: none)"),
        F("cpu_quota_cores", "number",
          "the profile's CPU quota, cores (0: none)"),
        F("t_cpu_period_ns", "int", "the quota's period, ns (0: none)"),
        F("payload_bytes", "number", "M = D n / (2(n-1)), bytes"),
        F("t_ar_min_ns", "int", "the smallest T_ar(i) of its devices, ns"),
        F("t_ar_max_ns", "int", "the largest T_ar(i) of its devices, ns"),
        F("step_source_min_ns", "int",
          "the smallest source T(i) of its devices, ns"),
        F("step_source_max_ns", "int",
          "the largest source T(i) of its devices, ns"),
        F("step_extended_max_ns", "int",
          "the largest extended T_ext(i) of its devices, ns"),
        F("step_replay_ns", "int",
          "the largest replayed step of its devices, ns (null: no replay)",
          null=True),
        F("slowest_device", "string", "its device with the largest T(i)"),
        F("shard_samples", "int", "samples per device per epoch"),
        F("iters_per_epoch", "int", "ceil(shard / batch)"),
    ], "per device type, in listing order"),
    O("bottleneck", [
        F("device", "string", "the device with the largest source T(i)"),
        F("type", "string", "its type"),
        F("bound", "string", "what bounds it",
          enum=["data_loading", "device"]),
        O("link", [
            F("ring_pos", "int", "ring position k of the edge "
                                 "ring[k] -> ring[k+1]"),
            F("from", "string", "device name"),
            F("to", "string", "device name"),
            F("from_addr", "string", "its address"),
            F("to_addr", "string", "its address"),
            F("bandwidth_bytes_per_s", "number", "the edge's bandwidth"),
            F("latency_ns", "int", "the edge's latency per message, ns"),
            F("t_ar_ns", "int", "T_ar over it, ns"),
        ], "the slowest ring edge (by T_ar)"),
    ], "what limits the step by the source formula"),
    F("collective", "string", "the scenario's collective", optional=True),
    F("collective_chosen", "string",
      "collective: auto only: the collective NCCL's cost model picks",
      optional=True, enum=["ring", "tree"]),
    F("collective_why", "string",
      "collective: auto only: NCCL's predicted ring and tree times",
      optional=True),
    F("nodes", "int", "nodes of the nodes: section", optional=True),
    F("shards_unbalanced", "bool",
      "types need different iterations per epoch"),
    F("shard_coverage", "number",
      "sum of shards over the dataset (0: no total given)"),
    NOTES,
    A("devices", [
        F("name", "string", "device name"),
        F("type", "string", "its type"),
        F("addr", "string", "its address"),
        F("ring_pos", "int", "its ring position"),
        F("next_bandwidth_bytes_per_s", "number",
          "bandwidth of the edge to the next device"),
        F("t_fwd_ns", "int", "forward, ns"),
        F("t_b1_ns", "int", "first backward op, ns"),
        F("t_ar_ns", "int", "T_ar(i), ns"),
        F("step_source_ns", "int", "T(i), ns"),
        F("step_extended_ns", "int", "T_ext(i), ns"),
        F("step_replay_ns", "int", "the device's replayed step, ns",
          null=True),
        F("bound", "string", "what bounds it",
          enum=["data_loading", "device"]),
    ], "per device (--per-device only)", optional=True),
]

SIMULATE = head("hetsim.simulate") + [
    O("scenario", SCENARIO, "the scenario"),
] + answer_fields() + REPLAY_SETTINGS + [
    F("collective", "string", "the collective replayed"),
    F("collective_chosen", "string",
      "collective: auto only: the collective NCCL's cost model picks "
      "(the one replayed)", optional=True, enum=["ring", "tree"]),
    F("collective_why", "string",
      "collective: auto only: NCCL's predicted ring and tree times",
      optional=True),
    F("send", "string", "who must be ready for a chunk to move",
      enum=["rendezvous", "eager"]),
    F("hop_wait", "string", "how the hop wait grows", enum=["ring", "probe"]),
    F("stochastic", "bool", "per-step times drawn from the spread"),
    F("seed", "int", "the random seed"),
    F("n_buckets", "int", "rings per step"),
    F("streams", "int", "bucket rings at once (used)"),
    F("streams_asked", "int", "bucket rings at once (asked)"),
    F("first_step_replay_ns", "int", "the replay's first step, ns"),
    F("replay_vs_source_pct", "number",
      "100 (step_replay - step_source) / step_source"),
    F("replay_vs_extended_pct", "number",
      "100 (step_replay - step_extended) / step_extended"),
    O("step_stats", [
        F("mean_ns", "int", "mean replayed step over steps 1..K-1, ns"),
        F("sd_ns", "int", "its standard deviation, ns"),
        F("p50_ns", "int", "its median, ns"),
        F("p95_ns", "int", "its 95th percentile, ns"),
        F("epoch_lo_ns", "int", "95% interval of the epoch, low, ns"),
        F("epoch_hi_ns", "int", "95% interval of the epoch, high, ns"),
        F("total_lo_ns", "int", "95% interval of the total, low, ns"),
        F("total_hi_ns", "int", "95% interval of the total, high, ns"),
    ], "the spread of the replayed steps (stochastic mode)"),
    F("steps_replay_ns", ["int"], "the cluster's replayed step, per step, "
                                  "ns"),
    A("types", [
        F("name", "string", "device type"),
        F("count", "int", "devices of this type"),
        MICRO_BATCHES,
        F("comm_ns_per_byte", "number", "the communication's own cost"),
        F("t_hop_wait_ns", "int", "the probed hop wait, ns"),
        F("hop_wait_ns", "int", "the hop wait replayed in the whole ring, ns"),
        F("hop_wait_intra_ns", "int",
          "hierarchical: the hop wait in a node's ring, ns", optional=True),
        F("hop_wait_inter_ns", "int",
          "hierarchical: the hop wait across nodes, ns", optional=True),
        F("step_source_ns", "int", "the largest T(i) of its devices, ns"),
        F("step_extended_ns", "int", "the largest T_ext(i), ns"),
        F("step_replay_ns", "int", "the largest replayed step, ns"),
        F("replay_vs_source_pct", "number", "replay against T(i), %"),
    ], "per device type"),
    A("devices", [
        F("name", "string", "device name"),
        F("type", "string", "its type"),
        F("ring_pos", "int", "its ring position"),
        F("step_source_ns", "int", "T(i), ns"),
        F("step_extended_ns", "int", "T_ext(i), ns"),
        F("step_replay_ns", "int", "its replayed step, ns"),
    ], "per device (--per-device only)", optional=True),
    O("engine", [
        F("path", "string", "which replay ran", enum=["max-plus", "events"]),
        F("events", "int", "events dispatched (or that would have been)"),
        F("end_ns", "int", "simulated time at the last event, ns"),
        F("queue_high_water", "int", "most events pending at once"),
        F("state_bytes", "int", "memory of the model and engine, bytes"),
    ], "the replay's engine"),
    NOTES,
]

ROW = [
    F("step_source_ns", "int", "source T(i), ns"),
    F("step_extended_ns", "int", "extended T_ext(i), ns"),
    F("step_replay_ns", "int", "the replayed step, ns"),
    F("diff_ns", "int", "step_replay_ns minus the compared closed form's "
                        "(formula), ns"),
    F("diff_pct", "number", "the same in % of the closed form's"),
]

VALIDATE = head("hetsim.validate") + [
    O("scenario", SCENARIO, "the scenario"),
] + answer_fields() + [
    F("formula", "string", "the closed form compared",
      enum=["extended", "source"]),
    F("overlap", "string", "the overlap mode replayed",
      enum=["patent", "buckets", "none", "last_bucket"]),
    F("overlap_asked", "string", "the overlap mode asked for",
      enum=["patent", "buckets", "none", "last_bucket"]),
    F("send", "string", "who must be ready for a chunk to move",
      enum=["rendezvous", "eager"]),
    F("steps", "int", "steps replayed"),
    A("types", [F("name", "string", "device type"),
                F("count", "int", "devices of this type")] + ROW,
      "per device type (the largest of its devices)"),
    O("cluster", ROW, "the cluster"),
    F("tolerance_pct", "number", "--tolerance, % (null: none)", null=True),
    F("within_tolerance", "bool", "the cluster's |diff_pct| <= tolerance",
      null=True),
    NOTES,
]

# The sweep's columns, in the order of every format (output/hs_sweep_out.c)
SWEEP_COLS = [
    F("n_devices", "int", "devices in the ring"),
    F("predictor_recommended", "string", "the point's recommended predictor",
      enum=["replay", "extended"]),
]
for _p in ("recommended", "source", "extended", "replay"):
    for _q in ("step", "epoch", "total"):
        SWEEP_COLS.append(F("%s_%s_ns" % (_q, _p), "int",
                            "%s, ns: %s" % (_q, PREDICTORS[_p]), null=True))
SWEEP_COLS += [
    F("iters_per_epoch", "int", "steps in an epoch (0: unknown)"),
    F("bottleneck_device", "string", "the device with the largest T(i)"),
    F("bottleneck_bound", "string", "what bounds it",
      enum=["data_loading", "device"]),
    F("bottleneck_link", "string", "the slowest ring edge, from->to"),
]


def nullable(f):
    g = dict(f)
    g["null"] = True
    return g


SWEEP = [
    F("format", "string", "the document's format", enum=["hetsim.sweep"]),
    F("format_version", "int", "the version of its field names",
      enum=[FORMAT_VERSION]),
    F("hetsim_version", "string", "the hetsim that wrote it"),
    O("scenario", SCENARIO + [F("hash", "string",
                                "fnv1a64: and 16 hex digits of the "
                                "scenario's text")], "the base scenario"),
    F("options", "string", "the sweep's settings in one line"),
    F("keys", ["string"], "the varied keys, in order"),
    F("n_points", "int", "points of the sweep"),
    F("n_failed", "int", "points that failed"),
    A("points", [
        F("point", "int", "the point's index"),
        O("values", [], "KEY: VALUE text of each varied key",
          open_keys="string"),
    ] + [nullable(c) for c in SWEEP_COLS] + [
        F("error", "string", "why the point failed (null: it ran; its "
                             "figures are then null)", null=True),
    ], "every point, in order"),
]

OUTPUTS = [
    ("predict", "hetsim predict --json [--per-device]", PREDICT),
    ("simulate", "hetsim simulate --json [--per-device]", SIMULATE),
    ("validate", "hetsim validate --json", VALIDATE),
    ("sweep", "hetsim sweep --json (and -o FILE.json)", SWEEP),
]


# ---- JSON Schema ----------------------------------------------------------

def schema_of(f):
    t = f["type"]
    if isinstance(t, list):
        s = {"type": "array", "items": {"type": "integer" if t[0] == "int"
                                        else t[0]}}
    elif t == "object":
        if f.get("open"):
            s = {"type": "object",
                 "additionalProperties": {"type": f["open"]}}
        else:
            s = object_schema(f["fields"])
    elif t == "array":
        s = {"type": "array", "items": object_schema(f["fields"])}
    else:
        s = {"type": {"int": "integer", "number": "number",
                      "string": "string", "bool": "boolean"}[t]}
    if f.get("enum"):
        s["enum"] = list(f["enum"])
    if f["null"]:
        s["type"] = [s["type"], "null"]
        if "enum" in s:
            s["enum"] = s["enum"] + [None]
    s = {"description": f["desc"], **s}
    return s


def object_schema(fields):
    return {
        "type": "object",
        "properties": {f["name"]: schema_of(f) for f in fields},
        "required": [f["name"] for f in fields if not f["optional"]],
        "additionalProperties": False,
    }


def make_schema(name, how, fields):
    s = object_schema(fields)
    return {"$schema": "http://json-schema.org/draft-07/schema#",
            "$id": "https://hetsim.invalid/schemas/%s.schema.json" % name,
            "title": "hetsim %s output, format version %d" %
                     (name, FORMAT_VERSION),
            "description": "What `%s` prints (docs/output.md). Generated by "
                           "scripts/schemas.py: edit the table there." % how,
            **s}


# ---- docs/output.md -------------------------------------------------------

def type_text(f):
    t = f["type"]
    if isinstance(t, list):
        t = "array of %s" % t[0]
    s = t + (" or null" if f["null"] else "")
    if f.get("enum"):
        s += ": " + " \\| ".join("`%s`" % e for e in f["enum"])
    if f["optional"]:
        s += " (optional)"
    return s


def rows(fields, prefix=""):
    out = []
    for f in fields:
        path = prefix + f["name"]
        if f["type"] == "array":
            out.append((path + "[]", "array", f["desc"]))
            out += rows(f["fields"], path + "[].")
        elif f["type"] == "object" and not f.get("open"):
            out.append((path, "object", f["desc"]))
            out += rows(f["fields"], path + ".")
        else:
            out.append((path, type_text(f), f["desc"]))
    return out


def make_doc():
    L = []
    w = L.append
    w("# hetsim's outputs: every field, its unit and its meaning")
    w("")
    w("<!-- Generated by scripts/schemas.py from its field table; edit the "
      "table, then run `python3 scripts/schemas.py`. -->")
    w("")
    w("Every JSON document hetsim prints starts with `format` (which output "
      "it is), `format_version` (%d: the version of the field names on this "
      "page) and `hetsim_version`. A JSON Schema (draft-07) for each is in "
      "[schemas/](../schemas); the test suite validates every command's "
      "output against it. The sweep's CSV starts with a `# format:` line "
      "(read it with `pandas.read_csv(path, comment=\"#\")`), its HDF5 "
      "table `/sweep` and the HDF5 trace carry `format` and "
      "`format_version` attributes." % FORMAT_VERSION)
    w("")
    w("## One vocabulary")
    w("")
    w("A quantity's unit ends its name: `_ns` (nanoseconds, integers), "
      "`_bytes`, `_bytes_per_s`, `_pct` (percent), `_cores`. A figure of a "
      "predictor is `QUANTITY_PREDICTOR_ns`:")
    w("")
    w("| QUANTITY | | PREDICTOR | |")
    w("|---|---|---|---|")
    w("| `step` | one training step | `recommended` | %s |" %
      PREDICTORS["recommended"])
    w("| `epoch` | iters_per_epoch steps | `source` | %s |" %
      PREDICTORS["source"])
    w("| `total` | epochs epochs | `extended` | %s |" % PREDICTORS["extended"])
    w("| | | `replay` | %s |" % PREDICTORS["replay"])
    w("")
    w("The recommended predictor is the replay whenever the scenario can be "
      "replayed in about a second (the max-plus fast path up to 1e9 ring "
      "rounds, the event engine up to 5e7 events: `HS_LIMIT_ANSWER_*` in "
      "base/hs_limits.h), else the extended closed form; "
      "`predictor_why` says which and why. `predict`, `simulate`, "
      "`validate`, `sweep` and `advise` give the same recommended figures "
      "for the same scenario (a test checks it on every shipped scenario). "
      "The source's formula is never the recommendation: on the blind draws "
      "of [accuracy.md](accuracy.md) it missed by 33.8%, the extended form "
      "by 23.1%, the replay by 7.4%.")
    w("")
    for name, how, fields in OUTPUTS:
        w("## `%s`" % how)
        w("")
        w("Format `%s`, schema [schemas/%s.schema.json]"
          "(../schemas/%s.schema.json)." %
          ("hetsim.%s" % name, name, name))
        w("")
        w("| field | type | meaning |")
        w("|---|---|---|")
        for path, t, d in rows(fields):
            w("| `%s` | %s | %s |" % (path, t, d.replace("|", "\\|")))
        w("")
    w("## The sweep's CSV and HDF5 table")
    w("")
    w("The same columns as a sweep point in JSON, in this order: one per "
      "varied key (its value text), then %s, then `error` (empty when the "
      "point ran). An unknown figure (a point not replayed, an epoch without "
      "a dataset) is an empty CSV field and -1 in HDF5; a failed point's "
      "figures are empty (0 in HDF5, with its `code`)." %
      ", ".join("`%s`" % c["name"] for c in SWEEP_COLS))
    w("")
    w("## The Chrome trace (`simulate --chrome`)")
    w("")
    w("Chrome's trace-event JSON (Perfetto and chrome://tracing read it); "
      "its `otherData` carries `format` (`hetsim.chrome`), "
      "`format_version` (%d), `generator`, `scenario` and `seed`; the "
      "events and their lanes are in [traces.md](traces.md)." %
      FORMAT_VERSION)
    w("")
    w("## The HDF5 trace (`simulate --h5`)")
    w("")
    w("Format `hetsim.trace`, version %d: the datasets and attributes of "
      "[traces.md](traces.md). The per-step table `/steps` names its "
      "figures `step_replay_ns` (the device's replayed step) and "
      "`step_source_ns` (its T(i)); version 1 traces named them `sim_ns` "
      "and `closed_ns`, and hetsim still reads them." % FORMAT_VERSION)
    w("")
    return "\n".join(L)


def main():
    check = "--check" in sys.argv[1:]
    want = {}
    for name, how, fields in OUTPUTS:
        want[os.path.join("schemas", name + ".schema.json")] = \
            json.dumps(make_schema(name, how, fields), indent=2) + "\n"
    want[os.path.join("docs", "output.md")] = make_doc()
    bad = 0
    for rel, text in sorted(want.items()):
        path = os.path.join(ROOT, rel)
        try:
            with open(path) as f:
                have = f.read()
        except OSError:
            have = None
        if have == text:
            continue
        if check:
            print("%s: not what scripts/schemas.py makes; run it" % rel)
            bad = 1
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path + ".tmp", "w") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
            print("wrote", rel)
    return bad


if __name__ == "__main__":
    sys.exit(main())
