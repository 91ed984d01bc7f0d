#!/usr/bin/env python3
"""Crude C function-length counter for the library folders.

Counts each function definition's lines from the line holding its name
(the signature) to the line of its closing brace, inclusive.  The parser is
deliberately simple: it strips comments, string and character literals,
tracks brace depth, and takes every top-level `{ ... }` block whose opening
is preceded by `name(...)` (and not by `=`, `struct`, `enum` or `union`) as
a function body.  Good enough for this code base's style; not a C parser.

Usage:
  scripts/func-lengths.py [--top N] [--max L] [--only DIR,DIR...] [--root R]

Prints the N longest functions (default 20) as `lines  file:line  name`.
With --max L, exits 1 (after listing them) if any function in the scanned
folders is longer than L lines.  --only restricts the scan to the listed
library folders.  No dependencies beyond the standard library.
"""
import argparse
import os
import re
import sys

LIB_DIRS = ["base", "model", "sim", "whatif", "output", "traces", "live",
            "capi", "cli"]
EXCLUDE_PARTS = {"tests", "test", "bench", "fuzz"}


def strip_code(text):
    """Blank out comments, strings and char literals, keeping newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n":
                    break
                j += 1
            j = min(j + 1, n)
            out.append(c + "".join(ch if ch == "\n" else " "
                                   for ch in text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_preproc(text):
    """Blank out preprocessor lines (with continuations)."""
    lines = text.split("\n")
    cont = False
    for k, line in enumerate(lines):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            lines[k] = ""
        else:
            cont = False
    return "\n".join(lines)


NAME_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\($")


def functions(path):
    """Yield (name, first_line, last_line) for each function in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = strip_preproc(strip_code(f.read()))
    depth = 0
    start = 0  # offset after the last top-level `;` or `}`
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "{":
            if depth == 0:
                head = text[start:i]
                found = function_head(head)
                if found is not None:
                    name, off = found
                    j = match_brace(text, i)
                    first = text.count("\n", 0, start + off) + 1
                    last = text.count("\n", 0, j) + 1
                    yield name, first, last
                    i = j + 1
                    start = i
                    continue
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                start = i + 1
        elif c == ";" and depth == 0:
            start = i + 1
        i += 1


def match_brace(text, i):
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def function_head(head):
    """Return (name, offset of name in head) if head ends a function
    signature `... name(params)`, else None."""
    s = head.rstrip()
    if not s.endswith(")"):
        return None
    if "=" in s:
        return None
    # find the matching '(' of the parameter list
    depth = 0
    for k in range(len(s) - 1, -1, -1):
        if s[k] == ")":
            depth += 1
        elif s[k] == "(":
            depth -= 1
            if depth == 0:
                break
    else:
        return None
    m = NAME_RE.search(s[:k + 1])
    if not m:
        return None
    name = m.group(1)
    if name in ("if", "while", "for", "switch", "return", "sizeof"):
        return None
    pre = s[:m.start(1)]
    if re.search(r"\b(struct|enum|union)\s*$", pre):
        return None
    return name, m.start(1)


def scan(root, dirs):
    rows = []
    for d in dirs:
        top = os.path.join(root, d)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(x for x in dirnames if x not in EXCLUDE_PARTS)
            for fn in sorted(filenames):
                if not fn.endswith(".c"):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, root)
                for name, first, last in functions(path):
                    rows.append((last - first + 1, rel, first, name))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=20,
                    help="how many of the longest functions to print")
    ap.add_argument("--max", type=int, default=None,
                    help="fail if a function is longer than this many lines")
    ap.add_argument("--only", default=None,
                    help="comma-separated folders to scan (default: all "
                         "library folders: %s)" % ",".join(LIB_DIRS))
    ap.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), os.pardir),
        help="repository root (default: this script's parent folder)")
    a = ap.parse_args()
    dirs = LIB_DIRS if a.only is None else [x for x in a.only.split(",") if x]
    for d in dirs:
        if not os.path.isdir(os.path.join(a.root, d)):
            print("func-lengths: no folder '%s' under %s" % (d, a.root),
                  file=sys.stderr)
            return 2
    rows = scan(a.root, dirs)
    for length, rel, line, name in rows[:a.top]:
        print("%5d  %s:%d  %s" % (length, rel, line, name))
    if a.max is not None:
        over = [r for r in rows if r[0] > a.max]
        if over:
            print("func-lengths: %d function(s) longer than %d lines:"
                  % (len(over), a.max), file=sys.stderr)
            for length, rel, line, name in over:
                print("  %d  %s:%d  %s" % (length, rel, line, name),
                      file=sys.stderr)
            return 1
        print("func-lengths: %d functions, none longer than %d lines"
              % (len(rows), a.max))
    return 0


if __name__ == "__main__":
    sys.exit(main())
