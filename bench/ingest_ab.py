#!/usr/bin/env python3
"""ingest_ab.py REF_HETSIM NEW_HETSIM N TRACE... -- two builds' `hetsim
ingest --summary --warmup 20` on the same traces, N runs each, the two
alternating (the order swapped every run), each in its own child: the
median and least CPU time (user + sys from wait4), MB/s of JSON by the
median, the ratio, and each build's peak RSS.  For comparing builds on a
shared machine, where wall times stretch and CPU times less so; a
benchmark, it asserts nothing (a run that fails stops it)."""
import os, resource, subprocess, sys, statistics
if len(sys.argv) < 5 or not sys.argv[3].isdigit() or int(sys.argv[3]) < 1:
    print("usage: ingest_ab.py REF_HETSIM NEW_HETSIM N TRACE...  (N >= 1)",
          file=sys.stderr)
    sys.exit(2)
ref, new, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for t in sys.argv[4:]:
    res = {"ref": [], "new": []}; rss = {"ref": 0, "new": 0}
    mb = None
    for i in range(n):
        for name, b in (("ref", ref), ("new", new)) if i % 2 == 0 else (("new", new), ("ref", ref)):
            pid = os.fork()
            if pid == 0:
                fd = os.open(os.devnull, os.O_WRONLY); os.dup2(fd, 1); os.dup2(fd, 2)
                os.execv(b, [b, "ingest", "--summary", "--warmup", "20", t])
            _, st, ru = os.wait4(pid, 0)
            assert st == 0, (b, t, st)
            res[name].append(ru.ru_utime + ru.ru_stime); rss[name] = max(rss[name], ru.ru_maxrss)
    js = int(subprocess.run(["sh", "-c", f"gzip -dc {t} | wc -c" if t.endswith(".gz") else f"wc -c < {t}"], capture_output=True, text=True).stdout.split()[0]) / 1e6
    r, w = statistics.median(res["ref"]), statistics.median(res["new"])
    print(f"{t}: {js:.1f} MB JSON, {n} runs each alternating; CPU s median ref {r:.3f} new {w:.3f} "
          f"-> {js/r:.1f} vs {js/w:.1f} MB/s (x{r/w:.3f}); min ref {min(res['ref']):.3f} new {min(res['new']):.3f}; "
          f"peak RSS ref {rss['ref']/1024:.1f} MB new {rss['new']/1024:.1f} MB", flush=True)
