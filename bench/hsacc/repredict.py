"""bench/accuracy --repredict: the recorded cases' predictions made again.

For every case of earlier --json results, rebuild the profiled scenario
the live run predicted from, from the record alone (no testbed, no torch,
no root), with the live run's own code (run.py): the case (the draw's
own definition when the record matches it, cases.draw_cases), the
testbed's addresses (case_hosts, the same Testbed layout), the measured
links (the record's "links": what measure-bw wrote), each type's profile
file, scenario_text with the overlap mode hetsim profile wrote into it
(its note in profile_notes) and the delay rows; then predict with the
given hetsim through predict_case, as step 3 of a live case does.

The profile file is the recorded one where the result keeps it
(profile_files, recorded since 2026-12-03): the rebuild is then the live
scenario.  Older results keep only the figures hetsim predict printed
(profile: t_fwd_ns, t_b1_ns, ...): the profile is written from them, and
what it lacks (the gradient buckets, the per-operator forward, the
samples) leaves the predictors that read the buckets (buckets,
last_bucket, buckets_eager, buckets_probe, and closed_ext and recommended
where the scenario's mode is buckets or last_bucket) not compared.

Per case and predictor: the recorded prediction, the new one, their
difference and the error of each against the recorded measurement; then
summarize() (report.py) over the recorded and over the new predictions of
the pairs compared.  A difference is information, not a failure.
"""

import json
import os
import re
import shutil
import sys
import tempfile

from .cases import case, draw_cases
from .common import CaseError, T, fmt_err, yaml_str
from .report import COLS, case_held, summarize
from .run import (PROFILE_KEYS, add_delay_rows, case_errors, case_hosts,
                  predict_case, scenario_text)

FORMAT = "hetsim.accuracy.repredict"
# the overlap modes whose replay and extended closed form read the
# profiles' gradient buckets
BUCKET_MODES = ("buckets", "last_bucket")
# the predictors that read them whatever the scenario's mode
BUCKET_PREDICTORS = ("buckets", "last_bucket", "buckets_eager",
                     "buckets_probe")
# what a record needs for a re-prediction; per type, in its profile
NEEDED = ("case", "model", "ring", "ring_types", "types", "links",
          "profile", "measured_ns", "closed_ns", "replay_ns")
PROFILE_NEEDED = ("t_fwd_ns", "allreduce_bytes")
NO_BUCKETS = ("reads the profiles' gradient buckets, which the record "
              "lacks (it keeps the profiles' figures only, not "
              "profile_files)")


def recorded_mode(r):
    """The overlap mode hetsim profile wrote into the case's scenario (its
    progress line "replay mode written into the scenario: MODE: ..." in
    profile_notes), or None when the record does not say."""
    for line in r.get("profile_notes") or []:
        m = re.search(r"replay mode written into the scenario: ([a-z_]+)",
                      str(line))
        if m:
            return m.group(1)
    return None


def missing_field(r):
    """The first field (a dotted path) a record lacks for a
    re-prediction, or None when it has them all."""
    if not isinstance(r, dict):
        return "(the result is not an object)"
    for k in NEEDED:
        if r.get(k) is None:
            return k
    try:
        for t, v in r["types"].items():
            for k in ("quota", "batch"):
                if v.get(k) is None:
                    return "types.%s.%s" % (t, k)
            p = r["profile"].get(t)
            if p is None:
                return "profile.%s" % t
            for k in PROFILE_NEEDED:
                if p.get(k) is None:
                    return "profile.%s.%s" % (t, k)
        if (len(r["ring"]) != len(r["ring_types"]) or len(r["ring"]) < 2
                or any(t not in r["types"] for t in r["ring_types"])):
            return "ring_types"
        if float(r["measured_ns"]) <= 0:
            return "measured_ns"
        if not all(isinstance(x, str) for x in r["links"]):
            return "links"
    except (AttributeError, TypeError, ValueError):
        return "types/profile/ring (not the shape a result has)"
    return None


def recorded_case(r):
    """The case behind a recorded result: the draw's own definition
    (cases.draw_cases from the note "draw I/K seed S: ...") when it
    matches the record's model, ring and types, else one rebuilt from
    the record (its link rates are then unknown; only the scenario's
    comments show them: the links are the measured ones).  Returns
    (case, "draw" or "record")."""
    types = [(t, (v["quota"], v["batch"])) for t, v in r["types"].items()]
    m = re.match(r"draw (\d+)/(\d+) seed (\d+):", r.get("note") or "")
    if m:
        i, k, seed = (int(x) for x in m.groups())
        if 1 <= i <= k <= 1000:
            c = draw_cases(k, seed)[i - 1]
            if (c["name"] == r["case"] and c["model"] == r["model"]
                    and [h for h, _, _, _ in c["ring"]] == r["ring"]
                    and [t for _, t, _, _ in c["ring"]] == r["ring_types"]
                    and list(c["types"].items()) == types):
                return c, "draw"
    ring = [(h, t, "none", 0) for h, t in zip(r["ring"], r["ring_types"])]
    it, wu = r.get("iters") or 30, r.get("warmup") or 10
    return case(r["case"], r["model"], dict(types), ring, r.get("note", ""),
                iters=it, warmup=wu, prof_iters=it,
                prof_warmup=wu), "record"


def notes_quota(r):
    """{type: {"cpu_quota_cores", "t_cpu_period_ns"}} from the profile's
    notes ("type T: note: CPU quota Q cores per P ms period"), for the
    results recorded before the figures kept the quota (the tenth draw's:
    its profiles had it, the replay grew the hop wait with it).  The note
    writes 3 digits: the testbed's quotas (multiples of 0.05 core, a 10 ms
    period) come back exactly."""
    out = {}
    for line in r.get("profile_notes") or []:
        m = re.match(r"type (\S+): note: CPU quota ([0-9.eE+-]+) cores per "
                     r"([0-9.]+) ms period", str(line))
        if m:
            out[m.group(1)] = {"cpu_quota_cores": float(m.group(2)),
                               "t_cpu_period_ns":
                                   int(round(float(m.group(3)) * 1e6))}
    return out


def type_figures(r, t):
    """Type t's profile figures from record r (its "profile"), the CPU
    quota and period taken from the notes where the figures lack them
    (notes_quota); (figures, [the keys taken from the notes])."""
    p = dict(r["profile"][t])
    filled = []
    for k, v in notes_quota(r).get(t, {}).items():
        if p.get(k) is None:
            p[k] = v
            filled.append("%s.%s" % (t, k))
    return p, filled


def figures_profile(t, p):
    """A profile file's text from a result's figures of type t (p: what
    hetsim predict --json printed, run.PROFILE_KEYS): the times and sizes
    as integers with their units, the numbers as Python writes them back
    exactly; unknown times left out (unknown), and no gradient buckets,
    per-operator times or samples (the record has none)."""
    lines = ["# rebuilt by bench/accuracy --repredict from a result's "
             "figures", "type: %s" % yaml_str(t),
             "subsystem_size: %d" % int(p.get("subsystem_size") or 2)]
    for key, name, unit in (("t_dl_ns", "t_dl", "ns"),
                            ("t_fwd_ns", "t_fwd", "ns"),
                            ("t_b1_ns", "t_b1", "ns"),
                            ("t_bwd_ns", "t_bwd", "ns"),
                            ("t_opt_ns", "t_opt", "ns"),
                            ("allreduce_bytes", "allreduce_bytes", "B"),
                            ("t_hop_wait_ns", "t_hop_wait", "ns"),
                            ("t_cpu_period_ns", "t_cpu_period", "ns")):
        v = p.get(key)
        if v is not None and (v or key not in ("t_hop_wait_ns",
                                               "t_cpu_period_ns")):
            lines.append("%s: %d%s" % (name, int(round(v)), unit))
    for key in ("comm_ns_per_byte", "cpu_quota_cores"):
        if p.get(key):
            lines.append("%s: %r" % (key, float(p[key])))
    return "\n".join(lines) + "\n"


def rebuild(r, c, d, idx):
    """Case c's profiled scenario, rebuilt in folder d from its record r
    as the live run had it (run.profile_and_measure and hetsim profile's
    copy): the testbed's addresses, links.csv from the recorded links,
    one profile file per type (the recorded one, else figures_profile),
    scenario_text with them and the mode hetsim profile wrote (patent,
    the input's, when the record does not say), and the delay rows.
    Returns (the scenario's path, True when every profile file is the
    recorded one, [the figures taken from the notes])."""
    tb = T.Testbed(case_hosts(c), tag="repredict")
    links = os.path.join(d, "links.csv")
    with open(links, "w") as f:
        f.write("".join(line + "\n" for line in r["links"]))
    files = r.get("profile_files") or {}
    exact = all(isinstance(files.get(t), str) for t in c["types"])
    profiles, filled = {}, []
    for t in c["types"]:
        profiles[t] = os.path.join(d, t + ".profile.yaml")
        if exact:
            text = files[t]
        else:
            p, f = type_figures(r, t)
            text = figures_profile(t, p)
            filled += f
        with open(profiles[t], "w") as f:
            f.write(text)
    scen = os.path.join(d, "scenario.yaml")
    with open(scen, "w") as f:
        f.write(scenario_text(c, tb, 29700 + 10 * idx, links,
                              profiles=profiles,
                              overlap=recorded_mode(r) or "patent"))
    add_delay_rows(c, tb, scen, links)
    return scen, exact, filled


def predictions(res):
    """{predictor (report.COLS): ns or None} of a result."""
    out = {"closed": res.get("closed_ns"),
           "closed_ext": res.get("closed_ext_ns")}
    for k in COLS[2:]:
        out[k] = (res.get("replay_ns") or {}).get(k)
    return out


def why_not(key, r, exact):
    """Why predictor key of record r cannot be compared (exact: the
    record's own profile files were used), or None."""
    mode = recorded_mode(r)
    if key == "recommended" and mode is None:
        return ("the record does not say which overlap mode hetsim "
                "profile wrote into the scenario")
    if exact:
        return None
    if key in BUCKET_PREDICTORS or (key in ("recommended", "closed_ext")
                                    and mode in BUCKET_MODES):
        return NO_BUCKETS
    return None


def compare_row(o, n, m, why, note):
    """One predictor of a case: recorded o, new n (ns or None), measured
    m; why: why it is not compared (None: it is); note: why the new
    prediction is missing, when it is."""
    row = {"recorded": o, "new": None if why else n, "diff_ns": None,
           "diff_pct": None,
           "err_recorded": None if o is None else (o - m) / m,
           "err_new": None, "status": None, "why": why}
    if why:
        row["status"] = "not_compared"
    elif o is None and n is None:
        row["status"] = "neither"
    elif o is None:
        row["status"] = "new_only"
    elif n is None:
        row["status"] = "recorded_only"
        row["why"] = note or "the new prediction failed"
    else:
        row["diff_ns"] = n - o
        row["diff_pct"] = 100.0 * (n - o) / o if o else None
        row["status"] = "same" if n == o else "differs"
    if row["new"] is not None:
        row["err_new"] = (row["new"] - m) / m
    return row


def compare_case(path, r, origin, exact, new, error):
    """The comparison of one case (a dict, what --json writes per case):
    every predictor's row (compare_row), whether the rebuilt profile
    figures are the recorded ones, the hop waits."""
    m = r["measured_ns"]
    old, nw = predictions(r), predictions(new)
    notes = new.get("replay_notes") or {}
    rows = {k: compare_row(old[k], nw[k], m, why_not(k, r, exact),
                           notes.get(k) or error)
            for k in COLS}
    diff = []
    for t, p in r["profile"].items():
        q = (new.get("profile") or {}).get(t) or {}
        for k in PROFILE_KEYS:
            if k in ("t_ar_max_ns", "subsystem_size") or p.get(k) is None:
                continue
            if q.get(k) != p[k]:
                diff.append("%s.%s: %r -> %r" % (t, k, p[k], q.get(k)))
    compared = [x for x in rows.values()
                if x["status"] in ("same", "differs")]
    return {"file": path, "case": r["case"], "case_from": origin,
            "profiles": "recorded files" if exact else "figures",
            "overlap": recorded_mode(r), "measured_ns": m,
            "held": case_held(r), "error": error,
            "inputs_same": not diff and error is None, "inputs_diff": diff,
            "hop_wait_ns": {"recorded": r.get("hop_wait_ns"),
                            "new": new.get("hop_wait_ns")},
            "exact": bool(compared) and all(x["status"] == "same"
                                            for x in compared),
            "predictors": rows}


def as_results(pairs):
    """(recorded, new): copies of the records whose predictions and
    errors are kept only where both predictions exist (the pairs
    compared), the new ones in the new copies; what summarize() reads."""
    old_res, new_res = [], []
    for r, cmp in pairs:
        both = {k: x for k, x in cmp["predictors"].items()
                if x["status"] in ("same", "differs")}
        for side, out in (("recorded", old_res), ("new", new_res)):
            q = dict(r)
            q["closed_ns"] = (both["closed"][side] if "closed" in both
                              else r["closed_ns"])
            q["closed_ext_ns"] = (both["closed_ext"][side]
                                  if "closed_ext" in both else None)
            q["replay_ns"] = {k: x[side] for k, x in both.items()
                              if k not in ("closed", "closed_ext")}
            q["err"] = {k: v for k, v in case_errors(q).items()
                        if k in both}
            out.append(q)
    return old_res, new_res


def fmt_ns(v):
    return "-" if v is None else "%.3fms" % (v / 1e6)


def print_case(cmp, w):
    """One case's block of the printout."""
    w("\n%s (%s): measured %s, %s; case from the %s, profiles from the %s"
      ", overlap %s%s\n"
      % (cmp["case"], os.path.basename(cmp["file"]),
         fmt_ns(cmp["measured_ns"]),
         {True: "held", False: "NOT held", None: "no monitor"}[cmp["held"]],
         cmp["case_from"], cmp["profiles"], cmp["overlap"] or "patent "
         "(assumed: the record does not say)",
         "" if cmp["inputs_same"] else "; rebuilt figures differ: "
         + "; ".join(cmp["inputs_diff"][:4])))
    if cmp.get("from_notes"):
        w("  from the profile's notes: %s\n" % ", ".join(cmp["from_notes"]))
    if cmp["error"]:
        w("  hetsim failed: %s\n" % cmp["error"][-300:])
    w("  %-14s %13s %13s %12s %9s %9s %9s\n"
      % ("predictor", "recorded", "new", "diff", "diff %", "err rec",
         "err new"))
    for k in COLS:
        x = cmp["predictors"][k]
        if x["status"] in ("same", "differs"):
            w("  %-14s %13s %13s %10d ns %+8.3f%% %9s %9s\n"
              % (k, fmt_ns(x["recorded"]), fmt_ns(x["new"]), x["diff_ns"],
                 x["diff_pct"] or 0.0, fmt_err(x["err_recorded"]),
                 fmt_err(x["err_new"])))
        elif x["status"] != "neither":
            w("  %-14s %13s %13s   %s: %s\n"
              % (k, fmt_ns(x["recorded"]), fmt_ns(x["new"]),
                 x["status"].replace("_", " "), x["why"]))


def print_summary(summ, w):
    """The MAPE of every predictor, recorded vs new, over the pairs
    compared: all cases, and the cases that held."""
    w("\nMAPE over the predictions compared (recorded -> new):\n")
    w("  %-14s %4s %9s %9s %9s   %4s %9s %9s\n"
      % ("predictor", "n", "recorded", "new", "change", "held", "recorded",
         "new"))
    for k in COLS:
        a, b = summ["recorded"]["all"][k], summ["new"]["all"][k]
        if a is None or b is None:
            continue
        ha, hb = summ["recorded"]["held"][k], summ["new"]["held"][k]
        w("  %-14s %4d %8.2f%% %8.2f%% %+8.2fpp   %4s %9s %9s\n"
          % (k, a["n"], 100 * a["mape"], 100 * b["mape"],
             100 * (b["mape"] - a["mape"]), ha["n"] if ha else "-",
             "%.2f%%" % (100 * ha["mape"]) if ha else "-",
             "%.2f%%" % (100 * hb["mape"]) if hb else "-"))
    w("cases compared %d: %d reproduce every compared prediction exactly; "
      "predictions compared %d, the same %d, different %d, not compared "
      "%d; cases skipped (a field missing) %d, failed in the record %d\n"
      % (summ["cases"], summ["cases_exact"], summ["compared"],
         summ["same"], summ["differs"], summ["not_compared"],
         len(summ["skipped"]), summ["failed_in_record"]))


def load(paths, w_err):
    """[(path, [result, ...])] of the readable files; the number that
    were not (said on w_err)."""
    out, bad = [], 0
    for p in paths:
        try:
            with open(p) as f:
                d = json.load(f)
            res = d["results"]
            if not isinstance(res, list):
                raise TypeError("'results' is not a list")
            out.append((p, res))
        except (OSError, ValueError, KeyError, TypeError) as e:
            w_err("bench/accuracy --repredict: %s: cannot read its results"
                  ": %s\n" % (p, e))
            bad += 1
    return out, bad


def repredict_one(p, idx, r, hetsim, wd):
    """Rebuild and predict case idx of file p; its comparison."""
    c, origin = recorded_case(r)
    d = os.path.join(wd, re.sub(r"[^A-Za-z0-9_.-]", "_",
                                os.path.basename(p)), "%02d" % idx)
    os.makedirs(d, exist_ok=True)
    scen, exact, filled = rebuild(r, c, d, idx)
    new, error = {}, None
    try:
        predict_case(scen, hetsim, os.path.join(d, "hetsim.log"), new)
    except (CaseError, ValueError, KeyError, OSError) as e:
        error = str(e)
    cmp = compare_case(p, r, origin, exact, new, error)
    cmp["from_notes"] = filled
    return cmp


def repredict_main(paths, hetsim, json_out=None, work=None, keep=False,
                   w=sys.stdout.write, w_err=sys.stderr.write):
    """--repredict: every case of the files in paths, rebuilt and
    predicted again with hetsim; prints each case and the summary,
    writes them to json_out.  0 when it ran, 2 when a file could not be
    read or a case lacked a field (said, skipped, counted)."""
    if not os.access(hetsim, os.X_OK):
        w_err("bench/accuracy --repredict: no hetsim binary at %s\n"
              % hetsim)
        return 2
    files, bad = load(paths, w_err)
    wd = work or tempfile.mkdtemp(prefix="hetsim-repredict-")
    os.makedirs(wd, exist_ok=True)
    cases, pairs, skipped, failed = [], [], [], 0
    w("bench/accuracy --repredict with %s\n" % hetsim)
    try:
        for p, results in files:
            for idx, r in enumerate(results):
                if isinstance(r, dict) and "error" in r:
                    failed += 1
                    continue
                field = missing_field(r)
                if field is None:
                    try:
                        cmp = repredict_one(p, idx, r, hetsim, wd)
                    except (T.TestbedError, KeyError, TypeError,
                            ValueError) as e:
                        field = "ring/types (%s)" % e
                if field is not None:
                    name = r.get("case") if isinstance(r, dict) else None
                    w_err("bench/accuracy --repredict: %s: case %s (result "
                          "%d) lacks %s: skipped\n" % (p, name, idx, field))
                    skipped.append({"file": p, "case": name, "index": idx,
                                    "field": field})
                    continue
                print_case(cmp, w)
                cases.append(cmp)
                pairs.append((r, cmp))
    finally:
        if not work and not keep:
            shutil.rmtree(wd, ignore_errors=True)
    summ = summary(pairs, cases, skipped, failed)
    print_summary(summ, w)
    if json_out:
        T.write_json(json_out, {"format": FORMAT, "hetsim": hetsim,
                                "files": list(paths), "cases": cases,
                                "skipped": skipped, "summary": summ})
    return 2 if bad or skipped else 0


def summary(pairs, cases, skipped, failed):
    """The figures of a --repredict run as data: summarize() of the
    recorded and of the new predictions over the pairs compared, and the
    counts."""
    old_res, new_res = as_results(pairs)
    st = [x["status"] for c in cases for x in c["predictors"].values()]
    return {"recorded": summarize(old_res), "new": summarize(new_res),
            "cases": len(cases),
            "cases_exact": sum(1 for c in cases if c["exact"]),
            "compared": st.count("same") + st.count("differs"),
            "same": st.count("same"), "differs": st.count("differs"),
            "not_compared": st.count("not_compared"),
            "skipped": skipped, "failed_in_record": failed}
