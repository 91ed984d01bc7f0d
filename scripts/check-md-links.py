#!/usr/bin/env python3
"""Checks that every Markdown link in the repository resolves inside it.

For every tracked .md file (git ls-files; without git, every .md under the
root outside build directories and .git), every inline link or image
[text](target), every reference definition [label]: target, every
autolink <scheme:...> and every <a href="..."> / <img src="..."> outside
code is checked:

  * a target with a scheme (http:, https:, mailto:, ...) leaves the
    repository: an error (a user's clone must be enough);
  * a relative path must name a file or directory that exists, and must
    stay inside the repository once resolved (no ../shared/...);
  * an anchor (#section, alone or after a .md path) must be the GitHub slug
    of a heading of that file, or an explicit <a name>/<a id> in it;
  * a document named by a relative path in the prose or a code span
    ("see `../shared/docs/METHOD.md`") must exist inside the repository
    too: a reader of a clone cannot open anything else.

Usage: check-md-links.py [ROOT]  (default: the repository holding this
script).  Prints one line per broken link, "file:line: target: why", and
exits 1 when there is any, else 0 with a count.
"""
import os
import re
import subprocess
import sys

FENCE = re.compile(r'^\s{0,3}(`{3,}|~{3,})')
INLINE = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)')
REFDEF = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$')
AUTOLINK = re.compile(r'<([a-zA-Z][a-zA-Z0-9+.-]*:[^>\s]*)>')
HTML = re.compile(r'<(?:a|img)\b[^>]*\b(?:href|src)\s*=\s*"([^"]*)"', re.I)
ANCHOR = re.compile(r'<a\b[^>]*\b(?:name|id)\s*=\s*"([^"]*)"', re.I)
HEADING = re.compile(r'^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$')
OUTPATH = re.compile(r'(?<![\w/.])((?:\.\./)+[\w./-]*\.md)\b')
SCHEME = re.compile(r'^[a-zA-Z][a-zA-Z0-9+.-]*:')


def md_files(root):
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z', '*.md'],
                             capture_output=True, check=True).stdout
        files = [f for f in out.decode().split('\0') if f]
        if files:
            return sorted(files)
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x != '.git' and not x.startswith('build')]
        files += [os.path.relpath(os.path.join(d, n), root)
                  for n in names if n.endswith('.md')]
    return sorted(files)


def strip_code(line):
    """The line with its `code spans` blanked (same length)."""
    return re.sub(r'(`+)(.+?)\1', lambda m: ' ' * len(m.group(0)), line)


def lines_outside_fences(text):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    for no, line in enumerate(text.split('\n'), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
            continue
        if fence is not None:
            if line.strip().startswith(fence) and \
                    line.strip().strip(fence[0]) == '':
                fence = None
            continue
        yield no, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    t = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # links: text
    t = t.replace('`', '')
    t = re.sub(r'<[^>]+>', '', t)
    t = t.strip().lower()
    t = re.sub(r'[^\w\- ]', '', t)
    return t.replace(' ', '-')


_anchors = {}


def anchors(path):
    """The anchors a Markdown file defines (headings' slugs, <a name>)."""
    if path in _anchors:
        return _anchors[path]
    found, seen = set(), {}
    with open(path, encoding='utf-8') as f:
        text = f.read()
    for _, line in lines_outside_fences(text):
        m = HEADING.match(line)
        if m:
            s = slug(m.group(2))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else '%s-%d' % (s, n))
        for a in ANCHOR.findall(line):
            found.add(a)
    _anchors[path] = found
    return found


def check_target(root, md, target):
    """None when target resolves, else why not."""
    if SCHEME.match(target):
        return 'leaves the repository (a URL)'
    path, _, frag = target.partition('#')
    here = os.path.dirname(os.path.join(root, md))
    dest = os.path.normpath(os.path.join(here, path)) if path else \
        os.path.join(root, md)
    real_root = os.path.realpath(root)
    real = os.path.realpath(dest)
    if os.path.commonpath([real_root, real]) != real_root:
        return 'leaves the repository'
    if not os.path.exists(dest):
        return 'no such file'
    if frag:
        if not dest.endswith('.md') or os.path.isdir(dest):
            return None      # an anchor into a non-Markdown file: not checked
        if frag not in anchors(dest):
            return 'no heading with anchor #%s in %s' % (
                frag, os.path.relpath(dest, root))
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bad = n = 0
    for md in md_files(root):
        with open(os.path.join(root, md), encoding='utf-8') as f:
            text = f.read()
        for no, line in lines_outside_fences(text):
            for p in OUTPATH.findall(line):
                here = os.path.dirname(os.path.join(root, md))
                real = os.path.realpath(os.path.join(here, p))
                rr = os.path.realpath(root)
                if os.path.commonpath([rr, real]) != rr or \
                        not os.path.exists(real):
                    bad += 1
                    print('%s:%d: %s: names a document outside the '
                          'repository' % (md, no, p))
            line = strip_code(line)
            targets = INLINE.findall(line) + HTML.findall(line) + \
                AUTOLINK.findall(line)
            m = REFDEF.match(line)
            if m:
                targets.append(m.group(1))
            for t in targets:
                n += 1
                why = check_target(root, md, t) if t else 'an empty target'
                if why:
                    bad += 1
                    print('%s:%d: %s: %s' % (md, no, t, why))
    if bad:
        print('%d of %d links broken' % (bad, n))
        return 1
    print('%d links, all inside the repository and resolving' % n)
    return 0


if __name__ == '__main__':
    sys.exit(main())
