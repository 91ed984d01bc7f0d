#!/usr/bin/env python3
"""Validates `hetsim advise ring|batch|mix --json` on every shipped scenario
(scenarios/*.yaml) against schemas/advise-{ring,batch,mix}.schema.json with
python3-jsonschema (Debian's), and checks that every property of the
schemas has a description.  A question a scenario cannot answer (exit 2
with its reason, e.g. no profiles, a hierarchical collective, listed
devices) is skipped and said; each question must validate on at least one
scenario, with the replay and with --no-replay, and with the outcome
"none" at least once.

usage: schema_advise.py HETSIM SOURCE_DIR
"""
import glob
import json
import os
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("schema_advise: python3-jsonschema is missing "
             "(apt-get install python3-jsonschema; scripts/setup.sh does)")


def undocumented(node, path="#"):
    """Paths of properties without a description."""
    out = []
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if not isinstance(sub, dict) or not sub.get("description"):
                out.append(f"{path}/properties/{name}")
        for key, sub in node.items():
            out += undocumented(sub, f"{path}/{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            out += undocumented(sub, f"{path}/{i}")
    return out


def run(hetsim, args):
    p = subprocess.run([hetsim, "advise"] + args + ["--json", "--quiet"],
                       capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def main():
    hetsim, src = sys.argv[1], sys.argv[2]
    validators, bad = {}, 0
    for q in ("ring", "batch", "mix"):
        path = os.path.join(src, "schemas", f"advise-{q}.schema.json")
        with open(path) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        for u in undocumented(schema):
            print(f"{path}: {u} has no description")
            bad += 1
        validators[q] = jsonschema.Draft202012Validator(schema)
    seen = {(q, m): 0 for q in ("ring", "batch", "mix")
            for m in ("replay", "no-replay")}
    outcomes = set()

    def check(q, scen, args, mode):
        nonlocal bad
        rc, out, err = run(hetsim, [q, scen] + args)
        if rc == 2:
            print(f"skip: advise {q} {os.path.basename(scen)} "
                  f"{' '.join(args)}: {err.strip().splitlines()[-1]}")
            return None
        doc = json.loads(out)
        errors = sorted(validators[q].iter_errors(doc), key=str)
        for e in errors:
            print(f"advise {q} {scen} {' '.join(args)}: "
                  f"{'/'.join(map(str, e.absolute_path))}: {e.message}")
        bad += len(errors)
        if rc not in (0, 1) or (rc == 1 and q != "mix"):
            print(f"advise {q} {scen}: exit {rc}: {err}")
            bad += 1
        seen[(q, mode)] += 1
        outcomes.add((q, doc.get("outcome")))
        print(f"ok: advise {q} {os.path.basename(scen)} {' '.join(args)}: "
              f"outcome {doc.get('outcome')}, recommended "
              f"{doc.get('recommended')}")
        return doc

    for scen in sorted(glob.glob(os.path.join(src, "scenarios", "*.yaml"))):
        for mode, extra in (("replay", []), ("no-replay", ["--no-replay"])):
            check("ring", scen, extra, mode)
            doc = check("batch", scen, extra, mode)
            if doc is None:
                continue
            prices, caps = [], {}
            for t in doc["types"]:
                prices += ["--price", f"{t['name']}=1"]
                caps[t["name"]] = max(1, t["batch_given"] // 2)
            # gradient accumulation: every type holds half its batch
            mdoc = check("batch", scen, [a for n, c in caps.items()
                                         for a in ("--max-batch",
                                                   f"{n}={c}")] +
                         ["--max-micro", "4"] + extra, mode)
            for t in (mdoc or {}).get("types", []):
                v = t["micro_batches_recommended"]
                m = t["micro_batch_recommended"]
                if v * m != t["batch_recommended"] or (
                        mdoc["outcome"] != "none" and
                        (m > caps[t["name"]] or v > 4)):
                    print(f"advise batch {scen} --max-micro 4: type "
                          f"{t['name']}: {v} x {m} is not "
                          f"{t['batch_recommended']} within "
                          f"{caps[t['name']]} x 4")
                    bad += 1
            check("mix", scen, prices + ["--budget", "1e12"] + extra, mode)
            check("mix", scen, prices + ["--deadline", "200h"] + extra,
                  mode)
    for key, n in sorted(seen.items()):
        if n == 0:
            print(f"advise {key[0]} ({key[1]}): validated on no scenario")
            bad += 1
    for q in ("ring", "batch", "mix"):
        print(f"{q}: outcomes seen: "
              f"{sorted(o for k, o in outcomes if k == q)}")
    if not any(o == "none" for _, o in outcomes):
        print("no answer said 'no better configuration found'")
        bad += 1
    print(f"schema_advise: {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
