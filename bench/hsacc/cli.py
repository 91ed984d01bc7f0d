"""bench/accuracy's command line (main): the options, listing the cases
and the draws, --report, --write-templates, and the loops over the cases
(run.py) with the report at the end (report.py)."""

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

from . import __doc__ as USAGE
from .cases import (ADVISE_CASES, CASES, SMOKE, draw_cases, pick_cases,
                    with_iters)
from .common import MODELS, MODES, ROOT, CaseError, T, fmt_ms
from .monitor import STEADY_MAX_S
from .report import print_advise, print_smoke_reference, print_table, summarize
from .repredict import repredict_main
from .run import run_advise_case, run_case, scenario_text, skip_reason


def main(argv):
    ap = argparse.ArgumentParser(prog="bench/accuracy",
                                 description=USAGE.split("\n")[0])
    ap.add_argument("--hetsim", default=os.path.join(ROOT, "build", "hetsim"))
    ap.add_argument("--cases", default=None)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--work", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--write-templates", action="store_true")
    ap.add_argument("--report", nargs="+", default=None, metavar="JSON",
                    help="print the table of earlier --json results "
                         "(several files: their cases together)")
    ap.add_argument("--repredict", nargs="+", default=None, metavar="JSON",
                    help="predict the cases of earlier --json results "
                         "again with --hetsim, from the recorded data "
                         "(no testbed): recorded vs new per case and "
                         "predictor, and each predictor's MAPE")
    ap.add_argument("--draw", type=int, default=0,
                    help="draw K random cases instead of the fixed ones")
    ap.add_argument("--seed", type=int, default=None,
                    help="the draw's seed (required with --draw)")
    ap.add_argument("--repeat", type=int, default=None,
                    help="full runs per case (their mean is the measured "
                         "step; the table shows their spread); default 1, "
                         "with --advise 2 per configuration")
    ap.add_argument("--retry", type=int, default=0,
                    help="profile again, or run the full cluster once "
                         "more, when the host monitor flags the phase "
                         "(up to R times each; every attempt is kept)")
    ap.add_argument("--steady-wait", type=float, default=STEADY_MAX_S,
                    metavar="S",
                    help="wait up to S seconds for a steady host before "
                         "each profile attempt and full run (0: never)")
    ap.add_argument("--iters", type=int, default=None, metavar="N",
                    help="N iterations (N/3 warm-up) for every case's "
                         "profile and full run instead of its own")
    ap.add_argument("--no-canary", action="store_true",
                    help="no canary readings between the phases")
    ap.add_argument("--advise", choices=("ring", "batch"), default=None,
                    help="does the advice hold? the advise case for the "
                         "question (or --cases): original vs recommended, "
                         "predicted and measured")
    a = ap.parse_args(argv)
    if a.repeat is None:
        a.repeat = 2 if a.advise else 1
    if (a.repeat < 1 or a.retry < 0 or a.steady_wait < 0
            or (a.iters is not None and a.iters < 6)):
        sys.stderr.write("--repeat must be >= 1, --retry and --steady-wait"
                         " >= 0, --iters >= 6\n")
        return 2
    if a.repredict:
        if a.report:
            sys.stderr.write("--repredict and --report: one at a time\n")
            return 2
        return repredict_main(a.repredict, os.path.abspath(a.hetsim),
                              a.json, a.work, a.keep)
    if a.report:
        results, adv = [], []
        for path in a.report:
            with open(path) as f:
                d = json.load(f)
            sys.stdout.write(d["header"] + "\n")
            results += d.get("results", [])
            adv += d.get("advise_results", [])
        if results:
            summ = summarize(results)
            print_table(results, summ=summ)
            if a.json:
                # the figures as data (what tests and scripts read)
                T.write_json(a.json, {"header": " + ".join(a.report),
                                      "summary": summ})
        if adv:
            print_advise(adv)
        return 0
    cases = [SMOKE] if a.smoke else CASES
    if a.draw:
        if a.seed is None or a.draw < 1 or a.smoke:
            sys.stderr.write("--draw K needs --seed S, K >= 1, and no "
                             "--smoke\n")
            return 2
        cases = draw_cases(a.draw, a.seed)
        if a.cases:
            # cases of that draw by name (one drawn case again, e.g. a
            # tuning case after a change)
            cases = pick_cases(cases, a.cases, "--draw %d --seed %d --list"
                               % (a.draw, a.seed))
            if cases is None:
                return 2
            a.cases = None
    if a.advise:
        if a.draw or a.smoke:
            sys.stderr.write("--advise takes no --draw or --smoke\n")
            return 2
        want = (a.cases.split(",") if a.cases else
                ["advise-" + a.advise])
        cases = [c for c in ADVISE_CASES if c["name"] in want]
        if len(cases) != len(want) or any(c["question"] != a.advise
                                           for c in cases):
            sys.stderr.write("--advise %s: unknown case, or not a %s case, "
                             "in %s (see --list)\n"
                             % (a.advise, a.advise, ",".join(want)))
            return 2
        a.cases = None
    if a.list:
        for c in (cases if a.draw else CASES + [SMOKE] + ADVISE_CASES):
            print("%-13s %s" % (c["name"], c["note"]))
            if a.draw:
                print("%-13s types %s; ring %s" % (
                    "", ", ".join("%s %.2f cores batch %d" % (t, q, b)
                                  for t, (q, b) in c["types"].items()),
                    " ".join("%s@%s" % (h, r) for h, _, r, _ in c["ring"])))
        return 0
    if a.cases:
        cases = pick_cases(CASES + [SMOKE], a.cases, "--list")
        if cases is None:
            return 2
    if a.write_templates:
        dst = os.path.join(ROOT, "scenarios", "testbed")
        os.makedirs(dst, exist_ok=True)
        for i, c in enumerate(CASES + [SMOKE]):
            tb = T.Testbed([T.Host(h) for h, _, _, _ in c["ring"]],
                           tag="tmpl")
            tb.id = "TESTBED"
            text = scenario_text(c, tb, 29700 + 10 * i, "links.csv")
            text = text.replace(MODELS + "/", "../models/")
            text = text.replace(T.ROOT + "/", "")
            text = text.replace(
                "# generated by bench/accuracy; testbed TESTBED\n",
                "# The input scenario bench/accuracy generates for this case "
                "(types without\n# profiles: `hetsim profile` measures "
                "them).  At run time TESTBED is the\n# testbed id "
                "(hetsim-testbed-<pid>), links.csv holds the tbf rates "
                "until\n# `hetsim measure-bw` replaces them, and paths are "
                "absolute.  Written by\n# `bench/accuracy "
                "--write-templates`.\n")
            with open(os.path.join(dst, c["name"] + ".yaml"), "w") as f:
                f.write(text)
            print("wrote", os.path.join(dst, c["name"] + ".yaml"))
        return 0
    if a.iters is not None:
        cases = [with_iters(c, a.iters) for c in cases]
    hetsim = os.path.abspath(a.hetsim)
    why = skip_reason(hetsim)
    if why:
        print("SKIP: bench/accuracy: %s" % why)
        return 77
    T.cleanup_stale()
    work = a.work or tempfile.mkdtemp(prefix="hetsim-accuracy-")
    os.makedirs(work, exist_ok=True)
    ver = subprocess.run([T.PYTHON, "-c", "import torch; "
                          "print(torch.__version__)"],
                         stdout=subprocess.PIPE,
                         universal_newlines=True).stdout.strip()
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = [l.split(":", 1)[1].strip() for l in f
                   if l.startswith("model name")][0]
    except (OSError, IndexError):
        pass
    head = ("hetsim accuracy benchmark, %s; %s, %d cores (%s), Linux %s, "
            "torch %s (gloo); work dir %s\n"
            % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
               platform.node(), os.cpu_count(), cpu, platform.release(), ver,
               work))
    # a private copy: a rebuild meanwhile does not change the binary.  The
    # copy looks for its data files (the profiling harness) beside itself
    # (base/hs_datadir.h) and would not find them: HETSIM_DATADIR names
    # this source tree, unless the caller named one
    shutil.copy2(hetsim, os.path.join(work, "hetsim"))
    hetsim = os.path.join(work, "hetsim")
    if not os.environ.get("HETSIM_DATADIR"):
        os.environ["HETSIM_DATADIR"] = ROOT
    sys.stdout.write(head)
    sys.stdout.flush()
    if a.advise:
        return advise_main(a, cases, hetsim, work, head)
    results = []
    failed = 0
    try:
        for i, c in enumerate(cases):
            t0 = time.time()
            sys.stdout.write("case %s (%s)... " % (c["name"], c["note"]))
            sys.stdout.flush()
            try:
                r = run_case(c, hetsim, work, i, a.repeat, a.retry,
                             a.steady_wait, not a.no_canary)
                r["iters"], r["warmup"] = c["iters"], c["warmup"]
                sys.stdout.write("measured %s, closed %s, replay %s "
                                 "(%.0f s)\n"
                                 % (fmt_ms(r["measured_ns"]),
                                    fmt_ms(r["closed_ns"]),
                                    "/".join(fmt_ms(r["replay_ns"][m])
                                             for m in MODES),
                                    time.time() - t0))
            except (CaseError, T.TestbedError, OSError, KeyError,
                    ValueError) as e:
                failed += 1
                r = {"case": c["name"], "error": str(e)}
                sys.stdout.write("FAILED (%.0f s): %s\n"
                                 % (time.time() - t0, e))
            sys.stdout.flush()
            results.append(r)
    except T.Interrupted:
        sys.stdout.write("\ninterrupted; the testbed was removed\n")
        return 130
    finally:
        summ = None
        if a.json:
            summ = summarize(results)
            T.write_json(a.json, {"header": head.strip(), "results": results,
                                  "summary": summ})
        if not a.work and not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    sys.stdout.write("\n" + head)
    print_table(results, summ=summ)
    if a.smoke:
        print_smoke_reference(results)
    return 1 if failed else 0


def advise_main(a, cases, hetsim, work, head):
    """--advise: run each advise case, print the advise table."""
    results = []
    failed = 0
    try:
        for i, c in enumerate(cases):
            t0 = time.time()
            sys.stdout.write("case %s (%s)... " % (c["name"], c["note"]))
            sys.stdout.flush()
            try:
                r = run_advise_case(c, hetsim, work, i, a.repeat)
                sys.stdout.write("measured %s -> %s (%.0f s)\n"
                                 % (fmt_ms(r["measured"][0]),
                                    fmt_ms(r["measured"][1]),
                                    time.time() - t0))
            except (CaseError, T.TestbedError, OSError, KeyError,
                    ValueError, IndexError, TypeError) as e:
                failed += 1
                r = {"case": c["name"], "error": "%s: %s"
                     % (type(e).__name__, e)}
                sys.stdout.write("FAILED (%.0f s): %s\n"
                                 % (time.time() - t0, r["error"]))
            sys.stdout.flush()
            results.append(r)
    except T.Interrupted:
        sys.stdout.write("\ninterrupted; the testbed was removed\n")
        return 130
    finally:
        if a.json:
            T.write_json(a.json, {"header": head.strip(),
                                  "advise_results": results})
        if not a.work and not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    sys.stdout.write("\n" + head + "\n")
    print_advise(results)
    return 1 if failed else 0
