"""The accuracy benchmark's report: the results table, the MAPE and its
bootstrap interval, the host-speed, host-monitor and compute-drift
sections, the advise table, and summarize(): the figures as data (what
--json writes and tests read)."""

import math
import sys

from .cases import SMOKE, SMOKE_REFERENCE
from .common import fmt_err, fmt_ms
from .monitor import CANARY_FLAG, MON_FLAG, MON_PERIOD_S, MON_PIECES


def print_smoke_reference(results, f=sys.stdout):
    """The smoke case's errors beside their reference bands
    (SMOKE_REFERENCE), and whether the host monitor saw the phases held
    (a run on a slowed host is not comparable)."""
    for r in results:
        if r.get("case") != SMOKE["name"] or "error" in r:
            continue
        f.write("\nsmoke errors against the reference (8 runs on "
                "2026-12-01, %d iterations; this run: %d%s):\n"
                % (SMOKE["iters"], r.get("iters", 0),
                   "; the host monitor flagged a phase of it"
                   if case_held(r) is False else ""))
        for mode, mean, sd, lo, hi in SMOKE_REFERENCE:
            e = (r.get("err") or {}).get(mode)
            f.write("  %-8s %s  reference mean %+.1f%% sd %.1f%%, band "
                    "%+.0f%%..%+.0f%%: %s\n"
                    % (mode, "   -   " if e is None else "%+6.1f%%" % (100 * e),
                       100 * mean, 100 * sd, 100 * lo, 100 * hi,
                       "-" if e is None else
                       "inside" if lo < e < hi else "OUTSIDE"))


def print_advise(results, f=sys.stdout):
    """The advise table: per case, the predicted step before and after
    (closed form and replay), the measured (mean and spread of the runs),
    the gains and each prediction's error."""
    w = f.write
    for r in results:
        if "error" in r:
            w("%-13s FAILED: %s\n" % (r["case"], r["error"][:300]))
            continue
        adv = r["advised"]
        if r["question"] == "ring":
            what = "ring %s -> %s (%s)" % (" ".join(r["ring"]),
                                           " ".join(adv["ring"]),
                                           adv["label"])
        else:
            what = "batch %s -> %s (global batch %d)" % (
                ", ".join("%s %d" % (t, v["batch"])
                          for t, v in r["types"].items()),
                ", ".join("%s %d" % (t, b) for t, b in adv["batch"].items()),
                adv["global_batch"])
        w("%s: %s\n  %s; %d runs each, %d steps (%d warm-up)%s\n"
          % (r["case"], r["note"], what, r["repeat"], r["iters"],
             r["warmup"], ("; pair links " + ", ".join(r["pair_rates"]))
             if r.get("pair_rates") else ""))
        w("  %-22s %10s %10s %8s %9s %9s\n" % ("", "before", "after",
                                             "gain", "err before",
                                             "err after"))
        m0, m1 = r["measured"]
        sp = ["-" if x is None else "%.1f%%" % (100 * x) for x in r["spread"]]
        w("  %-22s %10s %10s %7.1f%%   spread %s / %s\n"
          % ("measured", fmt_ms(m0), fmt_ms(m1), 100 * r["measured_gain"],
             sp[0], sp[1]))
        if len(r.get("paired_gains") or []) > 1:
            w("  %-22s %s\n" % ("gain per repetition", ", ".join(
                "%.1f%%" % (100 * g) for g in r["paired_gains"])))
        mode = r.get("replay_mode") or "scenario's"
        for k, label in (("replay", "replay (%s)" % mode),
                         ("closed", "closed form")):
            p0, p1 = r["predicted"][k]
            if k not in r["err"]:
                w("  %-22s %10s %10s\n" % (label, fmt_ms(p0), fmt_ms(p1)))
                continue
            e0, e1 = r["err"][k]
            w("  %-22s %10s %10s %7.1f%% %9s %9s   gain error %+.1f pp\n"
              % (label, fmt_ms(p0), fmt_ms(p1),
                 100 * r["predicted_gain"][k], fmt_err(e0), fmt_err(e1),
                 100 * (r["predicted_gain"][k] - r["measured_gain"])))
        w("  cost: profile %.0f s, measure-bw %.0f s, advise %.1f s, full "
          "runs %.0f s (wall)\n\n" % (r["profile_wall_s"],
                                      r["measure_bw_s"], r["advise_s"],
                                      r["full_wall_s"]))


BOOT_N = 10000


def bootstrap_mape(abs_errs, n=BOOT_N, seed=1):
    """95% percentile interval of the MAPE (%), the cases resampled with
    replacement n times."""
    import random
    if len(abs_errs) < 2:
        return None, None
    rng = random.Random(seed)
    k = len(abs_errs)
    m = sorted(sum(rng.choice(abs_errs) for _ in range(k)) / k
               for _ in range(n))
    return 100 * m[int(0.025 * n)], 100 * m[int(0.975 * n) - 1]


def held_runs(r):
    """The full runs (ns) a case's measured step is the mean of: those
    the host monitor did not flag, or all when none held or the result
    predates the monitor."""
    runs = r.get("measured_runs_ns") or [r["measured_ns"]]
    held = r.get("runs_held")
    if held and any(held):
        return [x for x, h in zip(runs, held) if h]
    return runs


def case_held(r):
    """True when the host monitor saw the case's profile and at least one
    of its full runs on a steady host; None for results without the
    monitor (draws before 2026-12-01 15:00 UTC)."""
    if "runs_held" not in r:
        return None
    return bool(r.get("profile_held")) and any(r["runs_held"])


def host_factors(r):
    """(the profile's host factor, the mean host factor of the full runs
    the measured step is made of) from a result's monitor, or None."""
    mon = r.get("monitor") or {}
    att = r.get("profile_attempts") or []
    used = r.get("profile_used") or (att[-1]["phase"] if att else None)
    if not used or not (mon.get(used) or {}).get("factor"):
        return None
    fp = mon[used]["factor"]
    held = r.get("runs_held") or []
    use = [i for i, h in enumerate(held) if h] or list(range(len(held)))
    fr = [mon["full%d" % i]["factor"] for i in use
          if (mon.get("full%d" % i) or {}).get("factor")]
    if not fr:
        return None
    return fp, sum(fr) / len(fr)


def print_monitor(results, w, summ):
    """The host-monitor section of the report: per case the host factor
    of every profile attempt and full run (flagged above MON_FLAG); then
    the figures of summ (summarize()) over the cases that held, over all
    runs, and the host-factor diagnostic."""
    rows = [r for r in results if "error" not in r
            and case_held(r) is not None]
    if not rows:
        return
    w("\nhost monitor (one sampler pinned to each vCPU all along the case, "
      "%d pieces every %.2f s, samples whose thread was switched out "
      "dropped; host factor = mean sample over the fastest reading, "
      "averaged over the vCPUs; a phase is flagged above %.2f)\n"
      % (MON_PIECES, MON_PERIOD_S, MON_FLAG))
    for r in rows:
        mon = r.get("monitor") or {}

        def cell(ph):
            m = mon.get(ph)
            if not m or m.get("factor") is None:
                return "%s no samples" % ph
            return "%s %.2f%s" % (ph, m["factor"],
                                  " FLAGGED" if m["flagged"] else "")
        used = r.get("profile_used")
        parts = [cell(a["phase"]) + (" (used)" if a["phase"] == used
                                     and len(r["profile_attempts"]) > 1
                                     else "")
                 for a in r.get("profile_attempts", [])]
        for i, x in enumerate(r["measured_runs_ns"]):
            parts.append("%s %s" % (cell("full%d" % i), fmt_ms(x)))
        w("  %-15s %-4s %s\n" % (r["case"], "held" if case_held(r)
                                 else "NOT", " | ".join(parts)))
    waits = [x for r in rows for x in
             [a.get("waited_s") for a in r.get("profile_attempts", [])]
             + (r.get("full_waited_s") or []) if x is not None]
    if waits:
        w("  waited for a steady host before %d of %d phases, %.0f s in "
          "all (longest %.0f s)\n" % (sum(1 for x in waits if x > 0),
                                      len(waits), sum(waits), max(waits)))
    w("  cases that held: %d of %d\n" % (summ["held_cases"],
                                         summ["monitored_cases"]))
    for k in COLS:
        st = summ["held"][k]
        if st is None:
            continue
        w("  held  %-15s %5.1f%%%s  worst %5.1f%%\n"
          % (k, 100 * st["mape"],
             "  [%5.1f%%, %5.1f%%]" % (100 * st["lo"], 100 * st["hi"])
             if st["lo"] is not None else "", 100 * st["worst"]))
    st = summ["all_runs_recommended"]
    if st is not None:
        w("  all cases, all runs (flagged included), recommended: MAPE "
          "%.1f%%, worst %.1f%%\n" % (100 * st["mape"], 100 * st["worst"]))
    st = summ["host_adjusted_recommended"]
    if st is not None:
        w("  diagnostic, not a prediction: recommended x (run's host factor "
          "/ profile's), all cases: MAPE %.1f%%, worst %.1f%%\n"
          % (100 * st["mape"], 100 * st["worst"]))


def run_vs_run(results):
    """The testbed's repeatability, as errors: for every case with 2 or
    more full runs, each run against the mean of the case's other runs,
    |r_i - m_-i| / m_-i, averaged over the case's runs.  One value per
    such case (what a MAPE over them is made of)."""
    out = []
    for r in results:
        runs = held_runs(r) if "error" not in r else []
        if len(runs) < 2:
            continue
        e = []
        for i, x in enumerate(runs):
            rest = runs[:i] + runs[i + 1:]
            m = sum(rest) / len(rest)
            e.append(abs(x - m) / m)
        out.append(sum(e) / len(e))
    return out


def canary_ratio(r):
    """max / min over a case's canary readings (every vCPU, every
    checkpoint), or None when it has fewer than 2."""
    v = [x for cp in (r.get("canary_ns") or {}).values()
         for x in cp.values() if x > 0]
    return max(v) / min(v) if len(v) >= 2 else None


def print_canary(results, w):
    """The host-speed section of the report: per case the canary
    readings (us per piece, per vCPU, per checkpoint) and whether they
    held within CANARY_FLAG; then the recommended prediction's MAPE over
    the cases that held.  Nothing for results without canary readings
    (draws before 2026-12-01 13:30 UTC)."""
    rows = [(r, canary_ratio(r)) for r in results if "error" not in r]
    rows = [(r, ratio) for r, ratio in rows if ratio is not None]
    if not rows:
        return
    w("\nhost speed (canary: CPU us per fixed piece of work, one process "
      "pinned to each vCPU, no quota; before/after the profile, after each "
      "full run; flagged when max/min > %.2f)\n" % CANARY_FLAG)
    held = []
    for r, ratio in rows:
        cells = " | ".join("%s %s" % (k.replace("_", " "), " ".join(
            "%s:%.0f" % (cpu, v / 1e3) for cpu, v in sorted(cp.items())))
            for k, cp in r["canary_ns"].items())
        ok = ratio <= CANARY_FLAG
        w("  %-15s max/min %.2f %-7s %s\n" % (r["case"], ratio,
                                              "" if ok else "FLAGGED", cells))
        if ok and r["err"].get("recommended") is not None:
            held.append(abs(r["err"]["recommended"]))
    if held:
        w("  recommended over the %d of %d cases whose canary held: MAPE "
          "%.1f%%, worst %.1f%%\n" % (len(held), len(rows),
                                       100 * sum(held) / len(held),
                                       100 * max(held)))
    else:
        w("  no case's canary held\n")


COLS = ("closed", "closed_ext", "patent", "buckets", "none",
        "last_bucket", "buckets_eager", "buckets_probe", "recommended")


def err_stats(abs_errs):
    """{n, mape, lo, hi, worst} of absolute errors (fractions; lo, hi the
    bootstrap 95% interval, None under 2 values), or None when empty."""
    v = [x for x in abs_errs if x is not None and math.isfinite(x)]
    if not v:
        return None
    lo, hi = bootstrap_mape(v)
    return {"n": len(v), "mape": sum(v) / len(v),
            "lo": None if lo is None else lo / 100,
            "hi": None if hi is None else hi / 100, "worst": max(v)}


def summarize(results):
    """What the report's figures are made of, as data (also written to
    --json): every predictor's error statistics over all cases; over the
    cases the host monitor says held (case_held) and the number of them
    (None for results without the monitor); the recommended prediction
    against all runs, flagged ones included (all_runs_recommended); the
    testbed's repeatability (run_vs_run); and the host-factor diagnostic
    (host_adjusted_recommended: the recommended prediction scaled by the
    run's host factor over the profile's; not a prediction); and the
    compute-drift diagnostic over the cases that have it (drift_cases):
    the recommended prediction's errors there (drift_recommended) and the
    drift replay's (drift_replay; run.compute_drift; not a
    prediction)."""
    ok = [r for r in results if "error" not in r]
    out = {"cases": len(ok), "failed": len(results) - len(ok),
           "all": {k: err_stats([abs(r["err"][k]) for r in ok
                                 if r["err"].get(k) is not None])
                   for k in COLS},
           "run_vs_run": err_stats(run_vs_run(results))}
    mon = [r for r in ok if case_held(r) is not None]
    held = [r for r in mon if case_held(r)]
    out["monitored_cases"] = len(mon)
    out["held_cases"] = len(held) if mon else None
    out["held"] = {k: err_stats([abs(r["err"][k]) for r in held
                                 if r["err"].get(k) is not None])
                   for k in COLS}
    out["all_runs_recommended"] = err_stats(
        [abs(r["replay_ns"]["recommended"] - r["measured_all_ns"])
         / r["measured_all_ns"] for r in mon
         if r["replay_ns"].get("recommended") is not None])
    adj = []
    for r in mon:
        f = host_factors(r)
        v = r["replay_ns"].get("recommended")
        if f and v is not None:
            adj.append(abs(v * f[1] / f[0] - r["measured_ns"])
                       / r["measured_ns"])
    out["host_adjusted_recommended"] = err_stats(adj)
    dr = [r for r in ok if r.get("err_drift_replay") is not None
          and r["err"].get("recommended") is not None]
    out["drift_cases"] = len(dr)
    out["drift_recommended"] = err_stats([abs(r["err"]["recommended"])
                                          for r in dr])
    out["drift_replay"] = err_stats([abs(r["err_drift_replay"])
                                     for r in dr])
    return out


def print_table(results, f=sys.stdout, summ=None):
    """The report (summ: summarize(results), computed here when not
    given)."""
    w = f.write
    hdr = ("%-13s %2s %-10s %9s %6s %17s %17s %17s %17s %17s %17s %17s "
           "%17s %17s\n"
           % ("case", "N", "types", "measured", "spread", "closed form",
              "closed ext.", "replay patent", "replay buckets",
              "replay none", "last bucket", "buckets, eager",
              "buckets, probe", "recommended"))
    w(hdr)
    w("-" * (len(hdr) - 1) + "\n")
    cols = COLS
    if summ is None:
        summ = summarize(results)
    for r in results:
        if "error" in r:
            w("%-13s FAILED: %s\n" % (r["case"], r["error"][:200]))
            continue
        types = "+".join("%d%s" % (v["count"], t[0])
                         for t, v in r["types"].items())
        vals = {"closed": r["closed_ns"], "closed_ext": r["closed_ext_ns"]}
        vals.update(r["replay_ns"])
        cells = []
        for k in cols:
            e = r["err"].get(k)
            cells.append("%8s %8s" % (fmt_ms(vals.get(k)), fmt_err(e)))
        runs = held_runs(r)
        spread = (max(runs) - min(runs)) / r["measured_ns"]
        w("%-13s %2d %-10s %9s %6s %s\n" % (r["case"], len(r["ring"]), types,
                                            fmt_ms(r["measured_ns"]),
                                            "%.1f%%" % (100 * spread)
                                            if len(runs) > 1 else "-",
                                            " ".join(cells)))
    w("-" * (len(hdr) - 1) + "\n")
    mape = {k: (None if summ["all"][k] is None else
                100 * summ["all"][k]["mape"]) for k in cols}
    w("%-13s %2s %-10s %9s %6s %s\n" % ("MAPE", "", "", "", "", " ".join(
        "%17s" % ("-" if mape[k] is None else "%.1f%%" % mape[k])
        for k in cols)))
    w("replay columns: rendezvous sends unless said; every replay counts "
      "the communication's own cost (comm_ns_per_byte)\n")
    n_ok = summ["cases"]
    if n_ok >= 2:
        w("MAPE 95%% bootstrap interval (the cases resampled %d times):\n"
          % BOOT_N)
        for k in cols:
            st = summ["all"][k]
            if st is not None and st["lo"] is not None:
                w("  %-15s %5.1f%%  [%5.1f%%, %5.1f%%]  worst %5.1f%%"
                  "%s\n"
                  % (k, 100 * st["mape"], 100 * st["lo"], 100 * st["hi"],
                     100 * st["worst"], "" if st["n"] == n_ok else
                     "  (%d of %d cases)" % (st["n"], n_ok)))
        st = summ["run_vs_run"]
        if st is not None and st["lo"] is not None:
            w("  %-15s %5.1f%%  [%5.1f%%, %5.1f%%]  worst %5.1f%%  (the "
              "testbed's repeatability: each full run taken as the\n"
              "                  prediction of the mean of the case's "
              "other runs; docs/accuracy.md says what it bounds)\n"
              % ("run vs run", 100 * st["mape"], 100 * st["lo"],
                 100 * st["hi"], 100 * st["worst"]))
    print_canary(results, w)
    print_monitor(results, w, summ)
    ok = [r for r in results if "error" not in r]
    if ok:
        pd = sum(r["profile_device_s"] for r in ok)
        pw = sum(r["profile_wall_s"] for r in ok)
        fd = sum(r["full_device_s"] for r in ok)
        fw = sum(r["full_wall_s"] for r in ok)
        w("\nprofiling cost: sub-systems %.0f device-s (%.0f s wall, "
          "2 devices at a time) vs full runs %.0f device-s (%.0f s wall); "
          "measure-bw %.0f s wall\n" % (pd, pw, fd, fw,
                                        sum(r["measure_bw_s"] for r in ok)))
        for r in ok:
            w("  %-13s profile %5.0f dev-s, full run %5.0f dev-s (%d ranks x "
              "%.0f s; %d steps, %d warm-up)\n"
              % (r["case"], r["profile_device_s"], r["full_device_s"],
                 len(r["ring"]), r["full_wall_s"], r["iters"], r["warmup"]))
        w("\nprofile vs full run, per type (means after warm-up; full run: "
          "wall-clock phases of ddp_run.py; bwd includes waiting for the "
          "all-reduce)\n")
        for r in ok:
            for t, p in r["profile"].items():
                ranks = [v for h, v in r["full_ranks"].items()
                         if h in [x for x, tt in zip(r["ring"], r["ring_types"])
                                  if tt == t]]
                if not ranks:
                    continue
                fwd = sum(v["phases"]["t_fwd_ns"] for v in ranks) / len(ranks)
                bwd = sum(v["phases"]["t_bwd_ns"] for v in ranks) / len(ranks)
                share = sum(v["window_cpu_s"] / v["window_s"]
                            for v in ranks) / len(ranks)
                w("  %-13s %-5s quota %.2f: profile fwd %7.1fms bwd(ops) "
                  "%7.1fms comm %.2fns/B | full fwd %7.1fms bwd %7.1fms, "
                  "CPU used %.2f cores\n"
                  % (r["case"], t, r["types"][t]["quota"],
                     p["t_fwd_ns"] / 1e6, (p["t_bwd_ns"] or 0) / 1e6,
                     p.get("comm_ns_per_byte") or 0.0, fwd / 1e6,
                     bwd / 1e6, share))
    print_drift(ok, w, summ)
    return mape


def print_drift(ok, w, summ):
    """The compute-drift block of the report (compute_drift), for the
    cases that have it."""
    dr = [r for r in ok if r.get("compute_drift")]
    if not dr:
        return
    w("\nthe testbed's compute drift (diagnostic, uses the measured run: "
      "not a prediction): per type, the full runs' compute (forward + "
      "backward up to its last gradient; the forward alone in runs before "
      "2026-12-02) over the profile's; the recommended replay, and the "
      "same replay with each device's compute scaled by its type's drift\n")
    for r in dr:
        e = r["err"].get("recommended")
        w("  %-13s %-32s recommended %7s  drift replay %7s\n"
          % (r["case"], " ".join("%s x%.2f" % (t, v) for t, v in
                                 sorted(r["compute_drift"].items())),
             fmt_err(e), fmt_err(r.get("err_drift_replay"))))
        for t, q in sorted((r.get("compute_drift_parts") or {}).items()):
            if q.get("bwd") is not None:
                w("  %-13s   %-5s forward x%.2f, backward x%.2f; DDP waited "
                  "%.1f ms for the all-reduces after the last gradient\n"
                  % ("", t, q["fwd"], q["bwd"], q["ar_tail_ns"] / 1e6))
    a, b = summ.get("drift_recommended"), summ.get("drift_replay")
    if a and b:
        w("  over %d cases: recommended MAPE %.1f%% (worst %.1f%%), drift "
          "replay %.1f%% (worst %.1f%%)\n"
          % (summ["drift_cases"], 100 * a["mape"], 100 * a["worst"],
             100 * b["mape"], 100 * b["worst"]))
