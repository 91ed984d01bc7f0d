#!/usr/bin/env python3
"""Fails on an #include that runs against the library's layers.

    scripts/check-layers.py [ROOT]

The rule (docs/internals.md, "Layers"): base < model < sim < whatif, and a
folder includes headers of its own folder and of the folders below it only:

    base     nothing else
    model    base
    sim      base, model
    whatif   base, model, sim
    traces   base, model, sim (reading profiler traces: ingestion)
    output   base, model, sim, whatif (writing: HDF5, Chrome, plots, the
             sweep's tables; and reading back what it wrote)
    live     base, model, traces
    capi     base, model, sim, whatif, traces, output, live (the flat C entry
             points the Python package calls: a client of the library
             inside it, like cli)
    cli      everything (the thin client)

A private header (`*_int.h`) is included only from its own folder.  A
quoted include is resolved by its name against the library's folders (one
include path, so names are unique); system headers (<...>) and generated
ones are not checked.  Exit status 0 when every include keeps the rule,
1 with one line per violation (file:line: what is wrong).
"""
import os
import re
import sys

ALLOWED = {
    "base": set(),
    "model": {"base"},
    "sim": {"base", "model"},
    "whatif": {"base", "model", "sim"},
    "traces": {"base", "model", "sim"},
    "output": {"base", "model", "sim", "whatif"},
    "live": {"base", "model", "traces"},
    "capi": {"base", "model", "sim", "whatif", "traces", "output", "live"},
    "cli": {"base", "model", "sim", "whatif", "traces", "output", "live",
            "capi"},
}

# Edges against the rule that are known and kept until they are removed:
# (including file, included header).  None since the writers left traces/
# for output/.
EXCEPTIONS = set()

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    home = {}   # header name -> folder
    for d in ALLOWED:
        for f in sorted(os.listdir(os.path.join(root, d))):
            if f.endswith(".h"):
                if f in home:
                    print("%s/%s: header name also in %s/ (one include path: "
                          "names must be unique)" % (d, f, home[f]))
                    return 1
                home[f] = d
    bad = 0
    checked = 0
    for d in ALLOWED:
        for f in sorted(os.listdir(os.path.join(root, d))):
            if not f.endswith((".c", ".h")):
                continue
            rel = "%s/%s" % (d, f)
            with open(os.path.join(root, d, f), encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    h = os.path.basename(m.group(1))
                    to = home.get(h)
                    if to is None or to == d:
                        continue
                    checked += 1
                    if h.endswith("_int.h"):
                        print("%s:%d: includes %s/%s, private to %s/"
                              % (rel, n, to, h, to))
                        bad += 1
                    elif to not in ALLOWED[d] and (rel, h) not in EXCEPTIONS:
                        print("%s:%d: includes %s/%s: %s/ may include only %s"
                              % (rel, n, to, h, d,
                                 ", ".join(sorted(ALLOWED[d])) or "its own headers"))
                        bad += 1
    if bad:
        print("check-layers: %d include(s) against the layers "
              "(docs/internals.md, \"Layers\")" % bad)
        return 1
    print("check-layers: %d includes across folders, all within the layers" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
