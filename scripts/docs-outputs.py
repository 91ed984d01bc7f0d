#!/usr/bin/env python3
"""Regenerates (--update) or checks (--check) every command output quoted in
README.md and docs/*.md.

A quoted output is a fenced block right after a marker line:

    <!-- output: build/hetsim predict -->
    ```
    $ build/hetsim predict
    ...what it prints...
    ```

A fenced block that starts with "$ hetsim" or "$ build/hetsim" and has no
marker is an error (a quote nobody reruns).

The block is "$ COMMAND", then the command's standard output, then its
standard error (kept apart and in that order, so the text does not depend
on how the two streams interleave).  Its exit status is not quoted.  Two
more markers prepare what later commands of the same page need, and quote
nothing:

    <!-- run: mkdir -p tour -->          a shell command that must exit 0
    <!-- file: two-types.yaml -->        the next fenced block, written to
                                         that file before later commands

A command whose output is Markdown itself (a table) is quoted raw, without
a fence or a "$" line, between two markers:

    <!-- output-raw: bash scripts/bad-inputs.sh build/hetsim -->
    ...its output, as is...
    <!-- end output -->

Every command of a page runs with /bin/sh -c, in order, in one scratch
directory made for that page, so the repository is never written to.  The
scratch directory holds symbolic links to the repository's scenarios/,
live/, scripts/ and tests/ folders and to the build directory (as build/, so
`build/hetsim` works), and the build directory is first on PATH (so a bare
`hetsim` works too).  LC_ALL=C, TZ=UTC, TMPDIR=/tmp.

What truly varies from run to run is normalised, and nothing else is:
  * the scratch directory's absolute path becomes /path/to/hetsim (where
    the user's clone would be) in what is written and compared;
  * the name of the temporary folder scripts/bad-inputs.sh makes
    (hetsim-bad.XXXXXX, mktemp's) is compared as a placeholder too;
  * the CPU time advise's searches took ("search: exact, 0.012 s;",
    "searched N mixes, ..., 0.049 s", "search_cpu_s") is compared as a
    placeholder, so a quote that differs only there is left as it is, and
    --update writes the time of the run that updated it.
Every other character, figures and file sizes included, must match.

Usage: docs-outputs.py --check|--update [--build DIR] [FILE.md ...]
  --check   exit 1 with a unified diff per block that differs (or a marker
            whose block is missing), 0 when every block matches
  --update  rewrite the blocks that differ in place
  --build   the build directory holding hetsim (default: ROOT/build)
  FILE.md   only these pages (default: README.md and docs/*.md)
"""
import argparse
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARK = re.compile(r'^<!--\s*(output|output-raw|run|file):\s*(.*?)\s*-->\s*$')
END_RAW = '<!-- end output -->'
FENCE = re.compile(r'^(`{3,}|~{3,})(.*)$')
PLACEHOLDER = '/path/to/hetsim'
# (pattern, replacement) of the figures that differ between two runs of the
# same command: wall or CPU time, nothing computed from the scenario
VARYING = [
    (re.compile(r'^(search: \w+, )\d+\.\d+( s;)'), r'\1#.###\2'),
    (re.compile(r'^(searched .*, )\d+\.\d+( s)$'), r'\1#.###\2'),
    (re.compile(r'("search_cpu_s": )[-+0-9.eE]+'), r'\1#'),
    (re.compile(r'(hetsim-bad\.)[A-Za-z0-9]{6}'), r'\1XXXXXX'),
]
TIMEOUT_S = 300


def fence_end(lines, i):
    """Index of the line closing the fence opened at lines[i]."""
    f = FENCE.match(lines[i]).group(1)
    for j in range(i + 1, len(lines)):
        if lines[j].strip() == f[0] * len(f) or \
                (lines[j].startswith(f) and lines[j].strip(f[0]) == ''):
            return j
    return None


def scratch_dir(root, build):
    d = tempfile.mkdtemp(prefix='hetsim-docs-')
    for name in ('scenarios', 'live', 'scripts', 'tests'):
        os.symlink(os.path.join(root, name), os.path.join(d, name))
    os.symlink(build, os.path.join(d, 'build'))
    return d


def normalise(text, scratch):
    for p in {scratch, os.path.realpath(scratch)}:
        text = text.replace(p, PLACEHOLDER)
    return text


def comparable(lines):
    """lines with the figures that vary between runs masked."""
    out = []
    for line in lines:
        for pat, rep in VARYING:
            line = pat.sub(rep, line)
        out.append(line)
    return out


def run(cmd, cwd, build):
    env = dict(os.environ, LC_ALL='C', TZ='UTC', TMPDIR='/tmp',
               PATH=build + os.pathsep + os.environ.get('PATH', ''))
    env.pop('COLUMNS', None)
    p = subprocess.run(['/bin/sh', '-c', cmd], cwd=cwd, env=env,
                       stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=TIMEOUT_S)
    out = p.stdout.decode('utf-8', 'replace')
    err = p.stderr.decode('utf-8', 'replace')
    if out and not out.endswith('\n'):
        out += '\n'
    return p.returncode, out + err


def process(path, root, build, update):
    """Returns the number of blocks that differ (fixed when update)."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    rel = os.path.relpath(path, root)
    scratch = None
    bad = 0
    i = 0
    try:
        while i < len(lines):
            m = MARK.match(lines[i])
            if not m and FENCE.match(lines[i]):
                # a fence with no marker: skip it whole; a quoted session
                # ("$ hetsim ...") without a marker is an error
                end = fence_end(lines, i)
                if end is None:
                    print('%s:%d: unclosed fence' % (rel, i + 1))
                    return bad + 1
                if end > i + 1 and re.match(r'\$ (build/)?hetsim\b',
                                            lines[i + 1]):
                    print('%s:%d: a quoted output without an <!-- output: '
                          '--> marker' % (rel, i + 2))
                    bad += 1
                i = end + 1
                continue
            if not m:
                i += 1
                continue
            kind, arg = m.group(1), m.group(2)
            if scratch is None:
                scratch = scratch_dir(root, build)
            if kind == 'run':
                rc, text = run(arg, scratch, build)
                if rc != 0:
                    print('%s:%d: `%s` failed (exit %d):\n%s' %
                          (rel, i + 1, arg, rc, text))
                    bad += 1
                i += 1
                continue
            if kind == 'output-raw':
                try:
                    end = lines.index(END_RAW, i + 1)
                except ValueError:
                    print('%s:%d: no "%s" after the marker' %
                          (rel, i + 1, END_RAW))
                    return bad + 1
                body = lines[i + 1:end]
                _, text = run(arg, scratch, build)
                want = normalise(text, scratch).rstrip('\n').split('\n')
                if comparable(body) != comparable(want):
                    bad += 1
                    if update:
                        lines[i + 1:end] = want
                        end = i + 1 + len(want)
                        print('%s:%d: updated `%s`' % (rel, i + 1, arg))
                    else:
                        sys.stdout.writelines(difflib.unified_diff(
                            [b + '\n' for b in body],
                            [w + '\n' for w in want],
                            '%s:%d (quoted)' % (rel, i + 2),
                            '`%s` (now)' % arg))
                i = end + 1
                continue
            # output and file: the fenced block right after the marker
            j = i + 1
            if j >= len(lines) or not FENCE.match(lines[j]):
                print('%s:%d: marker "%s" is not followed by a fenced block'
                      % (rel, i + 1, lines[i]))
                bad += 1
                i += 1
                continue
            end = fence_end(lines, j)
            if end is None:
                print('%s:%d: unclosed fence' % (rel, j + 1))
                return bad + 1
            body = lines[j + 1:end]
            if kind == 'file':
                with open(os.path.join(scratch, arg), 'w') as f:
                    f.write('\n'.join(body) + '\n')
                i = end + 1
                continue
            _, text = run(arg, scratch, build)
            want = ['$ ' + arg] + normalise(text, scratch).rstrip('\n') \
                .split('\n')
            if comparable(body) != comparable(want):
                bad += 1
                if update:
                    lines[j + 1:end] = want
                    end = j + 1 + len(want)
                    print('%s:%d: updated `%s`' % (rel, j + 1, arg))
                else:
                    sys.stdout.writelines(difflib.unified_diff(
                        [b + '\n' for b in body], [w + '\n' for w in want],
                        '%s:%d (quoted)' % (rel, j + 2),
                        '`%s` (now)' % arg))
            i = end + 1
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    if update and bad:
        with open(path, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument('--check', action='store_true')
    g.add_argument('--update', action='store_true')
    ap.add_argument('--build')
    ap.add_argument('files', nargs='*')
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.path.abspath(a.build or os.path.join(root, 'build'))
    if not os.access(os.path.join(build, 'hetsim'), os.X_OK):
        print('no hetsim in %s (build it, or give --build DIR)' % build)
        return 2
    files = [os.path.abspath(f) for f in a.files] or \
        [os.path.join(root, 'README.md')] + \
        sorted(glob.glob(os.path.join(root, 'docs', '*.md')))
    bad = sum(process(f, root, build, a.update) for f in files)
    if a.check and bad:
        print('%d quoted output(s) differ from what the tool prints now; '
              'rerun: scripts/docs-outputs.py --update' % bad)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
