#!/usr/bin/env python3
"""test_output_schemas: every command's JSON against its schema, and one answer.

    test_output_schemas.py HETSIM SOURCE_DIR

1. schemas/ and docs/output.md are what scripts/schemas.py makes.
2. On every shipped scenario that hetsim can answer from the repository
   alone (and the embedded default), predict, simulate, validate and sweep
   print JSON that validates against schemas/*.schema.json (Debian's
   python3-jsonschema, draft-07).
3. The recommended predictor and its step, epoch and total are the same
   number in predict, simulate, validate and sweep for the same scenario
   (advise's given configuration too, where advise's schema is there).

Prints one line per check; exits 1 on the first failed group, with what
differed.
"""
import glob
import json
import os
import subprocess
import sys

try:
    import jsonschema
except ImportError:  # the test command installs python3-jsonschema
    print("test_output_schemas: FAIL: python3-jsonschema is not installed "
          "for %s (scripts/setup.sh installs it)" % sys.executable)
    sys.exit(1)

HETSIM, SRC = sys.argv[1], sys.argv[2]

# Shipped scenarios that are inputs of the live pipeline, not answerable
# from the repository alone: each names files that `hetsim profile` and the
# testbed make (profiles, a measured links CSV).
LIVE_ONLY = {
    "scenarios/live-mlp.yaml": "its profile comes from `hetsim profile`",
}
LIVE_DIRS = {
    "scenarios/testbed": "the testbed writes their links.csv when it runs",
}

failures = []


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)
    return ok


def run(*args):
    p = subprocess.run([HETSIM] + list(args), cwd=SRC, capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def schema(name):
    with open(os.path.join(SRC, "schemas", name + ".schema.json")) as f:
        s = json.load(f)
    # the draft the schema names ($schema)
    return jsonschema.validators.validator_for(s)(s)


def valid(v, doc, what):
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    for e in errs[:5]:
        print("     %s: %s" % ("/".join(str(x) for x in e.path), e.message))
    return check(not errs, "%s validates against its schema" % what)


def answer(d):
    return (d["predictor_recommended"], d["step_recommended_ns"],
            d["epoch_recommended_ns"], d["total_recommended_ns"])


def scenarios():
    out = [None]     # the embedded default
    for path in sorted(glob.glob(os.path.join(SRC, "scenarios", "**",
                                              "*.yaml"), recursive=True)):
        rel = os.path.relpath(path, SRC)
        if rel in LIVE_ONLY or os.path.dirname(rel) in LIVE_DIRS:
            why = LIVE_ONLY.get(rel) or LIVE_DIRS[os.path.dirname(rel)]
            print("skip %s: %s" % (rel, why))
            continue
        out.append(rel)
    return out


def main():
    rc = subprocess.run([sys.executable,
                         os.path.join(SRC, "scripts", "schemas.py"),
                         "--check"], capture_output=True, text=True)
    check(rc.returncode == 0,
          "schemas/ and docs/output.md match scripts/schemas.py " +
          rc.stdout.strip())
    v = {n: schema(n) for n in ("predict", "simulate", "validate", "sweep")}
    adv = {}
    for q in ("ring", "batch", "mix"):
        p = os.path.join(SRC, "schemas", "advise-%s.schema.json" % q)
        if os.path.exists(p):
            adv[q] = schema("advise-" + q)
    n = 0
    for sc in scenarios():
        name = sc or "<default>"
        pos = [sc] if sc else []
        code, out, err = run("predict", *pos, "--json", "--per-device")
        if not check(code == 0, "%s: predict exits 0 (%s)" %
                     (name, err.strip()[:200])):
            continue
        pred = json.loads(out)
        valid(v["predict"], pred, "%s: predict --json --per-device" % name)
        code, out, err = run("predict", *pos, "--json")
        valid(v["predict"], json.loads(out), "%s: predict --json" % name)
        # a sweep point that changes nothing: the same answer
        code, out, err = run("sweep", *pos, "--json", "--vary",
                             "job.epochs=%d" % pred["epochs"])
        check(code == 0, "%s: sweep exits 0 (%s)" % (name, err.strip()[:200]))
        sw = json.loads(out)
        valid(v["sweep"], sw, "%s: sweep --json" % name)
        check(answer(sw["points"][0]) == answer(pred),
              "%s: sweep's recommended figures are predict's: %s vs %s" %
              (name, answer(sw["points"][0]), answer(pred)))
        if pred["predictor_recommended"] != "replay":
            check("answer budget" in pred["predictor_why"],
                  "%s: predict says why it did not replay: %s" %
                  (name, pred["predictor_why"]))
            n += 1
            continue
        code, out, err = run("simulate", *pos, "--json", "--per-device")
        check(code == 0, "%s: simulate exits 0" % name)
        sim = json.loads(out)
        valid(v["simulate"], sim, "%s: simulate --json --per-device" % name)
        check(answer(sim) == answer(pred),
              "%s: simulate's recommended figures are predict's: %s vs %s" %
              (name, answer(sim), answer(pred)))
        check(sim["step_replay_ns"] == pred["step_replay_ns"] and
              sim["step_source_ns"] == pred["step_source_ns"] and
              sim["step_extended_ns"] == pred["step_extended_ns"],
              "%s: every predictor's step is the same in predict and "
              "simulate" % name)
        code, out, err = run("validate", *pos, "--json")
        val = json.loads(out)
        valid(v["validate"], val, "%s: validate --json" % name)
        check(answer(val) == answer(pred),
              "%s: validate's recommended figures are predict's" % name)
        for q, sv in adv.items():
            code, out, err = run("advise", q, *pos, "--json")
            if code != 0:
                print("     advise %s: exit %d (%s)" % (q, code,
                                                     err.strip()[:160]))
                continue
            doc = json.loads(out)
            valid(sv, doc, "%s: advise %s --json" % (name, q))
            if q in ("ring", "batch"):
                # the given configuration, judged as predict answers it
                given = [c for c in doc["candidates"]
                         if c["label"] == "given"]
                if given:
                    check(answer(given[0]) == answer(pred),
                          "%s: advise %s's given configuration has "
                          "predict's recommended figures: %s vs %s" %
                          (name, q, answer(given[0]), answer(pred)))
        n += 1
    check(n >= 10, "%d scenarios answered (at least 10 expected)" % n)
    if failures:
        print("test_output_schemas: %d checks failed" % len(failures))
        return 1
    print("test_output_schemas: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
