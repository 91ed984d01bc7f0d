#!/usr/bin/python3
"""The ground-truth testbed: a heterogeneous ring cluster on one Linux machine.

Each test host is a network namespace "<id>-<host>" with one veth link,
"eth0", plugged into a bridge that lives in its own namespace "<id>-br" (so
nothing is added to the machine's own network namespace).  Host addresses
are 198.18.0.<k>/24 (RFC 2544 benchmarking range).  A host's egress is
shaped with `tc tbf` (optionally behind `netem delay`): the ring edge
host -> next host runs at the sending host's rate.  A host with per-pair
rates (Host.pair_rates, {destination host: bit/s}: a directed link
sender -> receiver slower or faster than the sender's own rate) gets an
htb root instead: class 1:10, the default, at the host's rate, and one
class 1:2<j> per listed destination at its pair rate, chosen by a
`u32 match ip dst ADDR/32` filter.  The classes sit side by side under
the root (no borrowing): a host sending to two destinations at once may
send more than its own rate in all, which a ring (one destination per
host) never does.  A host's compute speed
is set by a CPU quota, with either cgroup version (cgroup_backend() picks,
and the testbed says which: Testbed.cgroup_version, a "cgroup: ..." line
from `up` and `quota-check`, and "cgroup" in run_cluster's results):
  v1 (cpu controller mounted at /sys/fs/cgroup/cpu): group
     /sys/fs/cgroup/cpu/<id>/<host>, cpu.cfs_period_us = 10 ms and
     cpu.cfs_quota_us = cores * period, weight cpu.shares; CPU time from
     /sys/fs/cgroup/cpuacct/<id>/<host>/cpuacct.usage;
  v2 (the unified hierarchy at /sys/fs/cgroup with the cpu controller, as a
     stock Debian 12 host): group /sys/fs/cgroup/<id>/<host>, cpu.max =
     "cores*period period", weight cpu.weight; CPU time from cpu.stat's
     usage_usec.
HETSIM_TESTBED_CGROUP=v1|v2 forces a version.  <id> is
"hetsim-testbed-<pid>" of the process that built it.

Processes enter a host through bench/testbed/inrun (cgroup placement, then
`ip netns exec`).  Testbed.down() kills every process left in the host
cgroups and namespaces, deletes the namespaces (and with them every veth
and qdisc) and removes the cgroups; it runs on normal exit, on exceptions
and on SIGINT/SIGTERM/SIGHUP (Testbed is a context manager and installs
handlers that turn those signals into an exception).  `testbed.py cleanup`
removes what a killed (SIGKILL) run left behind: every hetsim-testbed-<pid>
namespace and cgroup whose pid is no longer alive.

Command line (root):
  testbed.py up HOST:RATE[:QUOTA[:DELAY]] ... [--pair SRC:DST:RATE ...]
                                                build, print the id, wait for ^C
  testbed.py cleanup                            remove leftovers of dead runs
  testbed.py quota-check [--json FILE]          the quota applied, and its speeds
  testbed.py pair-check [--json FILE]           is a directed pair rate applied?
  testbed.py cgroup-selftest                    both cgroup backends on fake trees
RATE like 200mbit (or "none"), QUOTA in cores (0.5), DELAY like 1ms;
--pair f0:s1:60mbit shapes what f0 sends to s1 (only that direction).
--json FILE also writes the check's figures as JSON (what tests read):
  quota-check {"cgroup", "quotas": [{"quota", "set_cores", "rate_median",
              "cores_median", "rates", "cg_cores", "cg_window_s",
              "cg_throttled"}], "ratios": [{"a", "b", "median_rates_ratio",
              "per_window"}]} (rates in matmuls per second; cg_*: the
              host's cgroup over the windows, quota_check());
  pair-check  {"testbed", "pairs": [{"pair", "set_bps", "measured_bps"}]}.
"""

import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INRUN = os.path.join(HERE, "inrun")
PYTHON = "/usr/bin/python3"
CG_ROOT = "/sys/fs/cgroup"
CG_CPU = CG_ROOT + "/cpu"        # v1 cpu controller
CG_ACCT = CG_ROOT + "/cpuacct"   # v1 cpuacct controller
PREFIX = "hetsim-testbed-"
SUBNET = "198.18.0"
PERIOD_US = 10000
# One compute thread per process: a quota of q cores then means "a device
# q times as fast as one core".  Without OPENBLAS_NUM_THREADS, BLAS worker
# threads spin inside the quota and the speed is no longer proportional.
#
# And a fixed allocator: glibc's malloc otherwise moves its mmap threshold
# as a process frees large blocks, so whether a step's tensors come from
# memory the process already has or from fresh pages depends on its
# history, and a fresh page is dear here (in this VM 50 MB of new pages
# cost 139 ms of CPU, the same 50 MB reused 1.8 ms).  With the thresholds
# free to move, the same model's forward took 32-49 ms of CPU in one process
# and another, and 30-36 ms after a profiler had run against 68-94 ms
# before (2026-12-01, docs/accuracy.md): a device's speed was its
# process's allocator history, not its quota.  Fixed thresholds (never
# mmap, never trim, below 1 GiB) make it the quota's again; an emulated
# device, like a real one, then has one speed.  Every process the testbed
# starts (profiling ranks through the scenario's env, full runs, the
# calibration) gets the same.
THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "OPENBLAS_NUM_THREADS": "1",
              "MALLOC_MMAP_THRESHOLD_": "1073741824",
              "MALLOC_TRIM_THRESHOLD_": "1073741824"}


class TestbedError(Exception):
    pass


class Interrupted(BaseException):
    """Raised from a signal handler so that cleanup code runs."""


def sh(argv, check=True, capture=True, timeout=60, env=None):
    """Runs argv (never through a shell); returns stdout text.  env: extra
    environment variables."""
    full = None
    if env:
        full = dict(os.environ)
        full.update(env)
    r = subprocess.run(argv, stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.PIPE if capture else None,
                       timeout=timeout, universal_newlines=True, env=full)
    if check and r.returncode != 0:
        raise TestbedError("%s: exit %d: %s" % (" ".join(argv), r.returncode,
                                                (r.stderr or "").strip()))
    return r.stdout or ""


def parse_rate(text):
    """'200mbit' / '1gbit' / '500kbit' / 'none' -> bits per second or None."""
    if text in (None, "", "none", "0"):
        return None
    m = re.fullmatch(r"([0-9.]+)\s*([kmg]?)(bit|bps)?", text.strip().lower())
    if not m:
        raise TestbedError("bad rate %r (use e.g. 200mbit)" % text)
    mult = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)]
    return float(m.group(1)) * mult


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def write_json(path, obj):
    """obj to path as JSON (indented), through a temporary file and a
    rename: a reader never sees half of it, and an interrupted write
    leaves the previous file as it was."""
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(path + ".tmp", path)


def skip_reason(progs=("ip", "tc", "bridge")):
    """Why this machine cannot run a testbed with torch.distributed ranks
    in it (root, a cgroup CPU controller, the programs progs, Debian's
    python3-torch with torch.distributed), or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, tc, cgroups)"
    if cgroup_problem():
        return cgroup_problem()
    for prog in progs:
        if shutil.which(prog) is None:
            return "%s not installed" % prog
    r = subprocess.run([PYTHON, "-c", "import torch.distributed as d; "
                        "assert d.is_available()"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        return "%s cannot import torch.distributed" % PYTHON
    return None


def _read_stat(path):
    """A cgroup "key value" file (cpu.stat) as a dict; {} when unreadable."""
    st = {}
    try:
        with open(path) as f:
            for line in f:
                k, v = line.split()
                st[k] = int(v)
    except (OSError, ValueError):
        pass
    return st


class CgroupV1(object):
    """CPU quota through cgroup v1: the cpu (and cpuacct) controllers."""
    version = "v1"
    knob = "cpu.cfs_quota_us"

    def tops(self, tb_id):
        """The testbed's top groups, one per controller hierarchy."""
        return [os.path.join(c, tb_id) for c in (CG_CPU, CG_ACCT)
                if os.path.isdir(c)]

    def procs_dir(self, tb_id, host):
        return os.path.join(CG_CPU, tb_id, host)

    def make(self, tb_id, host=None, weight_shares=None):
        for top in self.tops(tb_id):
            os.makedirs(top if host is None else os.path.join(top, host),
                        exist_ok=True)
        if weight_shares is not None:
            _write(os.path.join(CG_CPU, tb_id, "cpu.shares"),
                   str(weight_shares))

    def set_quota(self, tb_id, host, quota_us, period_us):
        d = self.procs_dir(tb_id, host)
        _write(os.path.join(d, "cpu.cfs_period_us"), str(period_us))
        _write(os.path.join(d, "cpu.cfs_quota_us"),
               str(-1 if quota_us is None else quota_us))

    def quota(self, tb_id, host):
        """(quota us or None for no limit, period us) as the group holds
        them."""
        d = self.procs_dir(tb_id, host)
        with open(os.path.join(d, "cpu.cfs_quota_us")) as f:
            q = int(f.read().strip())
        with open(os.path.join(d, "cpu.cfs_period_us")) as f:
            per = int(f.read().strip())
        return (None if q < 0 else q), per

    def cpu_ns(self, tb_id, host):
        with open(os.path.join(CG_ACCT, tb_id, host, "cpuacct.usage")) as f:
            return int(f.read().strip())

    def throttled(self, tb_id, host):
        st = _read_stat(os.path.join(CG_CPU, tb_id, host, "cpu.stat"))
        return st.get("nr_throttled", 0), st.get("throttled_time", 0)


class CgroupV2(object):
    """CPU quota through cgroup v2: the unified hierarchy's cpu
    controller, enabled for the testbed's subtree."""
    version = "v2"
    knob = "cpu.max"

    def tops(self, tb_id):
        return [os.path.join(CG_ROOT, tb_id)]

    def procs_dir(self, tb_id, host):
        return os.path.join(CG_ROOT, tb_id, host)

    def make(self, tb_id, host=None, weight_shares=None):
        top = os.path.join(CG_ROOT, tb_id)
        if host is not None:
            os.makedirs(os.path.join(top, host), exist_ok=True)
            return
        _enable_cpu(CG_ROOT)
        os.makedirs(top, exist_ok=True)
        _enable_cpu(top)
        if weight_shares is not None:
            # v1 shares (1024 = default) to v2 weight (100 = default)
            _write(os.path.join(top, "cpu.weight"),
                   str(min(max(weight_shares * 100 // 1024, 1), 10000)))

    def set_quota(self, tb_id, host, quota_us, period_us):
        _write(os.path.join(self.procs_dir(tb_id, host), "cpu.max"),
               "%s %d" % ("max" if quota_us is None else quota_us,
                          period_us))

    def quota(self, tb_id, host):
        """(quota us or None for "max", period us) as cpu.max holds them."""
        with open(os.path.join(self.procs_dir(tb_id, host), "cpu.max")) as f:
            q, per = f.read().split()
        return (None if q == "max" else int(q)), int(per)

    def cpu_ns(self, tb_id, host):
        st = _read_stat(os.path.join(CG_ROOT, tb_id, host, "cpu.stat"))
        if "usage_usec" not in st:
            raise OSError("no usage_usec")
        return st["usage_usec"] * 1000

    def throttled(self, tb_id, host):
        st = _read_stat(os.path.join(CG_ROOT, tb_id, host, "cpu.stat"))
        return st.get("nr_throttled", 0), st.get("throttled_usec", 0) * 1000


def _enable_cpu(d):
    """Adds the cpu controller to d's cgroup.subtree_control (v2)."""
    with open(os.path.join(d, "cgroup.subtree_control")) as f:
        if "cpu" in f.read().split():
            return
    _write(os.path.join(d, "cgroup.subtree_control"), "+cpu")


def cgroup_problem():
    """Why no CPU quota can be set here, or None."""
    try:
        cgroup_backend()
    except TestbedError as e:
        return str(e)
    return None


def cgroup_backend():
    """The cgroup version this machine offers a CPU quota with: v2 when
    /sys/fs/cgroup is the unified hierarchy with the cpu controller, v1
    when the cpu controller is mounted at /sys/fs/cgroup/cpu (a v1 or
    hybrid host; a hybrid host's /sys/fs/cgroup/unified has no cpu).
    HETSIM_TESTBED_CGROUP=v1|v2 forces one.  Raises TestbedError."""
    want = os.environ.get("HETSIM_TESTBED_CGROUP", "")
    ctl = os.path.join(CG_ROOT, "cgroup.controllers")
    v2 = False
    try:
        with open(ctl) as f:
            v2 = "cpu" in f.read().split()
    except OSError:
        pass
    v1 = os.path.exists(os.path.join(CG_CPU, "cpu.cfs_quota_us"))
    if want not in ("", "v1", "v2"):
        raise TestbedError("HETSIM_TESTBED_CGROUP=%s: use v1 or v2" % want)
    if v2 and want != "v1":
        return CgroupV2()
    if v1 and want != "v2":
        return CgroupV1()
    raise TestbedError("no cgroup CPU controller: neither v2 (%s with cpu) "
                       "nor v1 (%s/cpu.cfs_quota_us)%s"
                       % (ctl, CG_CPU, " for HETSIM_TESTBED_CGROUP=" + want
                          if want else ""))


class Host(object):
    """One test host: a name, its shaped egress rate (bit/s, None = not
    shaped), an optional netem delay (ms), a CPU quota (cores, None =
    unlimited) and per-pair rates ({destination host name: bit/s}: what
    this host sends to that host runs at that rate instead)."""

    def __init__(self, name, rate_bps=None, quota=None, delay_ms=0.0,
                 pair_rates=None):
        if not re.fullmatch(r"[a-z][a-z0-9]{0,7}", name):
            raise TestbedError("host name %r: use [a-z][a-z0-9]{0,7}" % name)
        self.name = name
        self.rate_bps = rate_bps
        self.quota = quota
        self.delay_ms = delay_ms
        self.pair_rates = dict(pair_rates or {})
        self.addr = None


class Testbed(object):
    def __init__(self, hosts, period_us=PERIOD_US, tag=None, shares=262144):
        names = [h.name for h in hosts]
        if len(set(names)) != len(names) or "br" in names:
            raise TestbedError("host names must be distinct and not 'br'")
        if not 1 <= len(hosts) <= 250:
            raise TestbedError("1..250 hosts")
        for h in hosts:
            for dst, bps in h.pair_rates.items():
                if dst not in names or dst == h.name:
                    raise TestbedError("host %s: pair rate to %r, which is "
                                       "not another host" % (h.name, dst))
                if not bps or bps <= 0:
                    raise TestbedError("host %s: pair rate to %s must be > 0"
                                       % (h.name, dst))
            if h.pair_rates and h.delay_ms:
                raise TestbedError("host %s: per-pair rates and a netem "
                                   "delay together are not supported"
                                   % h.name)
        self.hosts = list(hosts)
        self.period_us = period_us
        self.shares = shares
        self.id = PREFIX + str(os.getpid()) + (("x" + tag) if tag else "")
        for k, h in enumerate(self.hosts):
            h.addr = "%s.%d" % (SUBNET, k + 1)
        self._up = False
        self._old_handlers = {}
        self.cgroup = None       # the backend, chosen by up()
        self.cgroup_version = None

    # ---- names --------------------------------------------------------
    def ns(self, host):
        return "%s-%s" % (self.id, host if isinstance(host, str)
                          else host.name)

    def host(self, name):
        for h in self.hosts:
            if h.name == name:
                return h
        raise KeyError(name)

    def cg(self, host):
        """The group host's processes go into (its CPU quota)."""
        return self.cgroup.procs_dir(self.id, host)

    def argv(self, host, cmd):
        """The argv that runs cmd as host (netns + quota)."""
        return [INRUN, self.id, host, "--"] + list(cmd)

    def launcher(self):
        """A hetsim profiling.launcher template for this testbed."""
        return [INRUN, self.id, "{name}", "--"]

    # ---- setup --------------------------------------------------------
    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            self._old_handlers[sig] = signal.signal(sig, _raise_interrupted)
        try:
            self.up()
        except BaseException:
            self.down()
            self._restore()
            raise
        return self

    def __exit__(self, *exc):
        # A second signal during teardown must not stop the teardown.
        for sig in self._old_handlers:
            signal.signal(sig, signal.SIG_IGN)
        try:
            self.down()
        finally:
            self._restore()
        return False

    def _restore(self):
        for sig, h in self._old_handlers.items():
            signal.signal(sig, h)
        self._old_handlers = {}

    def up(self):
        if os.geteuid() != 0:
            raise TestbedError("the testbed needs root")
        self.cgroup = cgroup_backend()
        self.cgroup_version = self.cgroup.version
        self._up = True
        br = self.ns("br")
        sh(["ip", "netns", "add", br])
        sh(["ip", "-n", br, "link", "set", "lo", "up"])
        sh(["ip", "-n", br, "link", "add", "br0", "type", "bridge"])
        sh(["ip", "-n", br, "link", "set", "br0", "up"])
        # The machine is shared (builds, other benchmarks): the testbed's
        # group gets the highest CFS weight, so its hosts get their quota
        # whenever they are runnable.  The quotas cap them; the weight only
        # protects them from processes outside the testbed.
        self.cgroup.make(self.id, weight_shares=self.shares)
        for k, h in enumerate(self.hosts):
            ns = self.ns(h)
            port = "p%d" % k
            sh(["ip", "netns", "add", ns])
            sh(["ip", "-n", ns, "link", "set", "lo", "up"])
            sh(["ip", "-n", ns, "link", "add", "eth0", "type", "veth",
                "peer", "name", port, "netns", br])
            sh(["ip", "-n", br, "link", "set", port, "master", "br0"])
            sh(["ip", "-n", br, "link", "set", port, "up"])
            sh(["ip", "-n", ns, "addr", "add", h.addr + "/24", "dev", "eth0"])
            sh(["ip", "-n", ns, "link", "set", "eth0", "up"])
            self.shape(h)
            self.cgroup.make(self.id, h.name)
            self.set_quota(h, h.quota)
        # Wait until every link is up and every bridge port forwards.
        deadline = time.time() + 10
        while True:
            ok = all("state UP" in sh(["ip", "-n", self.ns(h), "-o", "link",
                                       "show", "eth0"])
                     for h in self.hosts)
            ok = ok and sh(["bridge", "-n", br, "link"]).count(
                "state forwarding") == len(self.hosts)
            if ok:
                break
            if time.time() > deadline:
                raise TestbedError("testbed links did not come up")
            time.sleep(0.1)

    def shape(self, h):
        """(Re)applies host h's egress shaping: tbf at h.rate_bps, behind
        netem delay h.delay_ms when > 0; or, when h has per-pair rates,
        the htb tree of shape_pairs()."""
        ns = self.ns(h)
        sh(["tc", "-n", ns, "qdisc", "del", "dev", "eth0", "root"],
           check=False)
        if h.pair_rates:
            self.shape_pairs(h)
            return
        parent = ["root"]
        if h.delay_ms and h.delay_ms > 0:
            try:
                sh(["tc", "-n", ns, "qdisc", "add", "dev", "eth0", "root",
                    "handle", "1:", "netem", "delay", "%gms" % h.delay_ms,
                    "limit", "100000"])
            except TestbedError as e:
                raise TestbedError("host %s: netem delay unavailable (no "
                                   "sch_netem in this kernel?): %s"
                                   % (h.name, e))
            parent = ["parent", "1:1"]
        if h.rate_bps:
            # burst: 4 ms at the rate (at least 32 KiB, so that segmented
            # GSO packets fit); queue: up to 200 ms of data.
            burst = max(int(h.rate_bps / 8 * 0.004), 32768)
            sh(["tc", "-n", ns, "qdisc", "add", "dev", "eth0"] + parent +
               ["handle", "10:", "tbf", "rate", "%dbit" % int(h.rate_bps),
                "burst", str(burst), "latency", "200ms"])

    def shape_pairs(self, h):
        """Host h's egress as an htb tree: the default class 1:10 at
        h.rate_bps (10 gbit/s when the host is not shaped), and per
        destination d of h.pair_rates (sorted by name) a class 1:(20+j) at
        its rate with a u32 filter on d's address.  Burst as tbf's: 4 ms
        at the rate, at least 32 KiB; each class's queue a bfifo of 200 ms
        at its rate (tbf's latency), at least 256 KiB."""
        ns = self.ns(h)
        tc = ["tc", "-n", ns]

        def klass(classid, bps):
            burst = max(int(bps / 8 * 0.004), 32768)
            sh(tc + ["class", "add", "dev", "eth0", "parent", "1:",
                     "classid", classid, "htb", "rate", "%dbit" % int(bps),
                     "ceil", "%dbit" % int(bps), "burst", str(burst),
                     "cburst", str(burst), "quantum", "65536"])
            # queue: up to 200 ms of data, as tbf's latency 200ms
            sh(tc + ["qdisc", "add", "dev", "eth0", "parent", classid,
                     "bfifo", "limit", str(max(int(bps / 8 * 0.2),
                                               262144))])

        sh(tc + ["qdisc", "add", "dev", "eth0", "root", "handle", "1:",
                 "htb", "default", "10"])
        klass("1:10", h.rate_bps or 10e9)
        for j, dst in enumerate(sorted(h.pair_rates)):
            classid = "1:%d" % (20 + j)
            klass(classid, h.pair_rates[dst])
            sh(tc + ["filter", "add", "dev", "eth0", "parent", "1:",
                     "protocol", "ip", "prio", "1", "u32", "match", "ip",
                     "dst", self.host(dst).addr + "/32", "flowid", classid])

    def set_quota(self, h, cores):
        if isinstance(h, str):
            h = self.host(h)
        h.quota = cores
        q = None if not cores else max(int(round(cores * self.period_us)),
                                       1000)
        self.cgroup.set_quota(self.id, h.name, q, self.period_us)

    def cpu_ns(self, host):
        """CPU time used so far by the processes of host (v1 cpuacct, v2
        cpu.stat), or None where it cannot be read."""
        try:
            return self.cgroup.cpu_ns(self.id, host)
        except (OSError, ValueError):
            return None

    def throttled(self, host):
        """(nr_throttled, throttled_time_ns) of host's cpu cgroup."""
        return self.cgroup.throttled(self.id, host)

    def quota_cores(self, host):
        """The quota host's cgroup holds, in cores; None: no limit."""
        q, per = self.cgroup.quota(self.id, host)
        return None if q is None else q / per

    # ---- teardown -----------------------------------------------------
    def down(self):
        """Removes everything up() made; safe to call twice or after a
        partial up().  Returns the list of problems (also printed)."""
        problems = remove_testbed(self.id)
        self._up = False
        return problems


def _raise_interrupted(signum, frame):
    raise Interrupted("signal %d" % signum)


def _kill_pids(pids):
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def _cg_pids(d):
    pids = []
    for root, dirs, files in os.walk(d):
        try:
            with open(os.path.join(root, "cgroup.procs")) as f:
                pids += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return pids


def _cg_tops(tb_id):
    """Every existing top group of testbed tb_id, v1 and v2 alike."""
    return [os.path.join(c, tb_id) for c in (CG_CPU, CG_ACCT, CG_ROOT)
            if os.path.isdir(os.path.join(c, tb_id))]


def remove_testbed(tb_id):
    """Kills the processes of testbed tb_id and removes its namespaces and
    cgroups.  Returns a list of problems (empty when all went)."""
    problems = []
    nss = [n for n in list_netns() if n.startswith(tb_id + "-")]
    tops = _cg_tops(tb_id)
    for attempt in range(50):
        pids = []
        for top in tops:
            pids += _cg_pids(top)
        for n in nss:
            out = subprocess.run(["ip", "netns", "pids", n],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL,
                                 universal_newlines=True).stdout
            pids += [int(x) for x in out.split()]
        pids = [p for p in set(pids) if p != os.getpid()]
        if not pids:
            break
        _kill_pids(pids)
        time.sleep(0.1)
    else:
        problems.append("processes still alive: %s" % pids)
    for n in nss:
        r = subprocess.run(["ip", "netns", "del", n], stderr=subprocess.PIPE,
                           universal_newlines=True)
        if r.returncode != 0:
            problems.append("ip netns del %s: %s" % (n, r.stderr.strip()))
    for top in tops:
        for root, dirs, files in os.walk(top, topdown=False):
            for _ in range(50):
                try:
                    os.rmdir(root)
                    break
                except OSError as e:
                    err = e
                    time.sleep(0.1)
            else:
                problems.append("rmdir %s: %s" % (root, err))
    for p in problems:
        sys.stderr.write("testbed: cleanup: %s\n" % p)
    return problems


def list_netns():
    out = subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL,
                         universal_newlines=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def cleanup_stale():
    """Removes every testbed whose creating process is gone."""
    ids = set()
    for n in list_netns():
        m = re.match(r"(%s(\d+)(x[a-z0-9]+)?)-" % PREFIX, n)
        if m:
            ids.add((m.group(1), int(m.group(2))))
    for ctl in (CG_CPU, CG_ACCT, CG_ROOT):
        if os.path.isdir(ctl):
            for d in os.listdir(ctl):
                m = re.fullmatch(r"%s(\d+)(x[a-z0-9]+)?" % PREFIX, d)
                if m:
                    ids.add((d, int(m.group(1))))
    removed = []
    for tb_id, pid in sorted(ids):
        if pid != os.getpid() and not os.path.exists("/proc/%d" % pid):
            remove_testbed(tb_id)
            removed.append(tb_id)
    return removed


# ---- running processes in the testbed -----------------------------------
class Proc(object):
    def __init__(self, name, argv, env, log_dir):
        self.name = name
        self.out_path = os.path.join(log_dir, name + ".out")
        self.err_path = os.path.join(log_dir, name + ".err")
        full_env = dict(os.environ)
        full_env.update(env)
        with open(self.out_path, "w") as o, open(self.err_path, "w") as e:
            self.p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                      stdout=o, stderr=e, env=full_env,
                                      start_new_session=True)

    def kill(self):
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, signal.SIGKILL)
            except OSError:
                pass
            self.p.wait()

    def tail(self, n=400):
        try:
            with open(self.err_path) as f:
                return f.read()[-n:].strip()
        except OSError:
            return ""


def run_all(procs, timeout_s):
    """Waits for every Proc; kills all when one fails or on timeout.
    Raises TestbedError naming the first failure."""
    deadline = time.time() + timeout_s
    try:
        while True:
            live = [p for p in procs if p.p.poll() is None]
            bad = [p for p in procs if p.p.poll() not in (None, 0)]
            if bad:
                raise TestbedError("%s failed (exit %d): %s"
                                   % (bad[0].name, bad[0].p.returncode,
                                      bad[0].tail()))
            if not live:
                return
            if time.time() > deadline:
                raise TestbedError("timeout after %ds waiting for %s"
                                   % (timeout_s, ", ".join(p.name
                                                           for p in live)))
            time.sleep(0.05)
    finally:
        for p in procs:
            p.kill()


def gloo_ranks(ring):
    """Maps the ring order to gloo ranks.  gloo's ring all-reduce
    (gloo/allreduce.cc, used by ProcessGroupGloo for allreduce) sends to
    rank-1 and receives from rank+1, so data flows rank r -> r-1.  For the
    ring [d0, d1, ..., d(N-1)] (d_k sends to d_(k+1)) the ranks are
    d0 = 0, d_k = N-k.  Returns {host name: rank}."""
    n = len(ring)
    return {h: (0 if k == 0 else n - k) for k, h in enumerate(ring)}


def run_cluster(tb, ring, model, batch_of, iters, warmup, out_dir,
                port=29600, timeout_s=600, extra_env=None):
    """Runs the FULL cluster for real: one ddp_run.py rank per host of ring
    (gloo ranks from gloo_ranks), each in its namespace under its quota.
    batch_of: {host: batch}.  Returns a dict: mean step (ns) after warm-up
    per rank and overall, per-phase means, CPU seconds, wall seconds."""
    ranks = gloo_ranks(ring)
    master = [h for h in ring if ranks[h] == 0][0]
    os.makedirs(out_dir, exist_ok=True)
    procs = []
    cpu0 = {h: tb.cpu_ns(h) for h in ring}
    thr0 = {h: tb.throttled(h) for h in ring}
    t0 = time.time()
    for h in sorted(ring, key=lambda h: ranks[h]):
        env = {"RANK": str(ranks[h]), "WORLD_SIZE": str(len(ring)),
               "LOCAL_RANK": "0", "MASTER_ADDR": tb.host(master).addr,
               "MASTER_PORT": str(port), "GLOO_SOCKET_IFNAME": "eth0"}
        env.update(THREAD_ENV)
        env.update(extra_env or {})
        cmd = [PYTHON, os.path.join(HERE, "ddp_run.py"), "--model", model,
               "--batch", str(batch_of[h]), "--iters", str(iters),
               "--warmup", str(warmup), "--host", h, "--out", out_dir,
               "--timeout", str(timeout_s)]
        procs.append(Proc("rank%d-%s" % (ranks[h], h), tb.argv(h, cmd), env,
                          out_dir))
    run_all(procs, timeout_s)
    wall = time.time() - t0
    res = {"wall_s": wall, "ranks": {}, "hosts": ring,
           "gloo_rank": ranks, "cgroup": tb.cgroup_version}
    means = []
    for h in ring:
        with open(os.path.join(out_dir, "rank%d.json" % ranks[h])) as f:
            r = json.load(f)
        s = r["step_start_ns"]
        k = len(s) - 1 - warmup
        mean = (s[-1] - s[warmup]) / k
        steps = [s[i + 1] - s[i] for i in range(warmup, len(s) - 1)]
        ph = {}
        for key in ("t_dl_ns", "t_fwd_ns", "t_bwd_ns", "t_opt_ns",
                    "t_grad_ns"):
            v = r.get(key, [])[warmup:]
            if v:
                ph[key] = sum(v) / len(v)
        c1 = tb.cpu_ns(h)
        thr1 = tb.throttled(h)
        res["ranks"][h] = {
            "rank": ranks[h], "mean_step_ns": mean, "phases": ph,
            "step_min_ns": min(steps), "step_max_ns": max(steps),
            "window_cpu_s": r["cpu_ns"] / 1e9,
            "window_s": (s[-1] - s[warmup]) / 1e9,
            "cpu_s": None if c1 is None or cpu0[h] is None
            else (c1 - cpu0[h]) / 1e9,
            "nr_throttled": thr1[0] - thr0[h][0]}
        means.append(mean)
    res["mean_step_ns"] = sum(means) / len(means)
    res["device_s"] = wall * len(ring)
    return res


# ---- the quota check ------------------------------------------------------
_BUSY = r"""
import os, sys, time, torch
# every host on the same core (their quotas add up to less than one), so
# that a busy neighbour on another core cannot slow one of them alone
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
torch.set_num_threads(1)
a = torch.randn(256, 256); b = torch.randn(256, 256)
for _ in range(5): a @ b
windows, window_s = int(sys.argv[1]), float(sys.argv[2])
for _ in range(windows):
    t = time.perf_counter(); c = time.process_time(); n = 0
    while time.perf_counter() - t < window_s:
        a @ b
        n += 1
    wall = time.perf_counter() - t
    print("%.3f %.4f" % (n / wall, (time.process_time() - c) / wall),
          flush=True)
"""


def json_arg(args):
    """The FILE of "--json FILE" in args, or None; raises ValueError when
    --json has no FILE or args hold anything else."""
    if not args:
        return None
    if len(args) != 2 or args[0] != "--json":
        raise ValueError("expected [--json FILE], got %s" % " ".join(args))
    return args[1]


def quota_check(quotas=(0.5, 0.25), windows=5, window_s=1.5, info=None):
    """Runs the same matmul loop under each quota, all at the same time and
    on the same core (so that a noisy neighbour slows them alike; the quotas
    must add up to less than one core), in testbed hosts; each reports
    matmuls per second and cores used per window.  Beside that, the host's
    cgroup is read as each window's row arrives: its CPU time (v1
    cpuacct.usage, v2 cpu.stat usage_usec) and throttle count (cpu.stat
    nr_throttled) from the end of the first window to the end of the last,
    and the quota it holds (v1 cpu.cfs_quota_us / cpu.cfs_period_us, v2
    cpu.max).  Returns one dict per quota: "quota" (asked), "set_cores"
    (the group's quota, read back; None: no limit), "rates" (matmuls per
    s, per window), "rate_median", "cores_median" (the process's own CPU
    time over wall time, per window: their median), "cg_cores" (the
    group's CPU time over the wall time between the first and the last
    row), "cg_window_s", "cg_throttled" (periods throttled meanwhile);
    info (a dict), when given, gets the testbed's "cgroup" version."""
    hosts = [Host("q%d" % i, quota=q) for i, q in enumerate(quotas)]
    out = []
    with Testbed(hosts) as tb:
        if info is not None:
            info["cgroup"] = tb.cgroup_version
        print(cgroup_line(tb))
        sys.stdout.flush()
        env = dict(os.environ)
        env.update(THREAD_ENV)
        procs = [subprocess.Popen(tb.argv(h.name, [PYTHON, "-c", _BUSY,
                                                   str(windows),
                                                   str(window_s)]),
                                  stdout=subprocess.PIPE, env=env)
                 for h in hosts]
        # per host: [(monotonic s, group CPU ns, nr_throttled, row text)]
        seen = {h.name: [] for h in hosts}
        try:
            _read_rows(tb, hosts, procs, seen,
                       time.monotonic() + 60 + 2 * windows * window_s)
            for h, p in zip(hosts, procs):
                if p.wait() != 0:
                    raise TestbedError("quota-check: host %s exited %d"
                                       % (h.name, p.returncode))
                rows = [tuple(map(float, r.split()))
                        for _, _, _, r in seen[h.name]]
                if len(rows) != windows:
                    raise TestbedError("quota-check: host %s printed %d "
                                       "rows, not %d" % (h.name, len(rows),
                                                         windows))
                rates = [r for r, _ in rows]
                cores = sorted(c for _, c in rows)
                (t0, c0, n0, _), (t1, c1, n1, _) = (seen[h.name][0],
                                                    seen[h.name][-1])
                cg = (None if c0 is None or c1 is None or t1 <= t0
                      else (c1 - c0) / 1e9 / (t1 - t0))
                out.append({"quota": h.quota,
                            "set_cores": tb.quota_cores(h.name),
                            "rate_median": sorted(rates)[len(rates) // 2],
                            "cores_median": cores[len(cores) // 2],
                            "rates": rates, "cg_cores": cg,
                            "cg_window_s": t1 - t0,
                            "cg_throttled": n1 - n0})
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    return out


def _read_rows(tb, hosts, procs, seen, deadline):
    """Reads the rows procs print (one line per window) until each has
    closed its output; at each row, snapshots the host's cgroup (CPU ns,
    nr_throttled) into seen[host] with the row.  Raises TestbedError past
    deadline (time.monotonic())."""
    sel = selectors.DefaultSelector()
    part = {}
    for h, p in zip(hosts, procs):
        sel.register(p.stdout, selectors.EVENT_READ, h.name)
        part[h.name] = b""
    while sel.get_map():
        left = deadline - time.monotonic()
        if left <= 0:
            raise TestbedError("quota-check: no result within the time "
                               "allowed")
        for key, _ in sel.select(timeout=left):
            name = key.data
            data = os.read(key.fileobj.fileno(), 4096)
            if not data:
                sel.unregister(key.fileobj)
                continue
            part[name] += data
            while b"\n" in part[name]:
                line, part[name] = part[name].split(b"\n", 1)
                if line.strip():
                    seen[name].append((time.monotonic(), tb.cpu_ns(name),
                                       tb.throttled(name)[0],
                                       line.decode()))
    sel.close()


def iperf(tb, src, dst, secs=2, omit=1, port=5301):
    """Measures src -> dst with iperf3 (a server in dst, a client in src,
    both through inrun: namespace and cgroup).  Returns bit/s received."""
    srv = subprocess.Popen(tb.argv(dst, ["iperf3", "-s", "-1", "-p",
                                         str(port)]),
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 5
        while True:
            r = subprocess.run(tb.argv(src, [
                "iperf3", "-c", tb.host(dst).addr, "-p", str(port), "-J",
                "-t", str(secs), "-O", str(omit)]), stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, universal_newlines=True,
                timeout=30 + secs + omit)
            # iperf3 3.12 -J can exit 0 with {"error": ...} (a server not
            # listening yet): success is a result, not the exit status
            try:
                js = json.loads(r.stdout)
            except ValueError:
                js = {}
            got = js.get("end", {}).get("sum_received", {}).get(
                "bits_per_second")
            if r.returncode == 0 and got is not None and "error" not in js:
                return float(got)
            why = js.get("error") or r.stderr or r.stdout
            if "refused" not in why or time.time() > deadline:
                raise TestbedError("iperf3 %s -> %s: exit %d: %s"
                                   % (src, dst, r.returncode, why[-300:]))
            time.sleep(0.1)
    finally:
        try:
            srv.wait(timeout=5)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()


def pair_check(host_rate="300mbit", pair_rate="60mbit", secs=2, info=None):
    """Three hosts a, b, c at host_rate, a's link to b alone at pair_rate
    (directed).  Measures a -> b (the pair rate), a -> c (a's default
    class: the host rate) and b -> a (the other direction: b's own tbf,
    the host rate).  Returns [(label, set bit/s, measured bit/s)]; info (a
    dict), when given, gets the testbed's id ("testbed")."""
    hr, pr = parse_rate(host_rate), parse_rate(pair_rate)
    hosts = [Host("a", hr, pair_rates={"b": pr}), Host("b", hr),
             Host("c", hr)]
    out = []
    with Testbed(hosts, tag="pair") as tb:
        if info is not None:
            info["testbed"] = tb.id
        print("testbed %s" % tb.id)
        sys.stdout.flush()
        for k, (src, dst, want) in enumerate((("a", "b", pr),
                                              ("a", "c", hr),
                                              ("b", "a", hr))):
            got = iperf(tb, src, dst, secs=secs, port=5301 + k)
            out.append(("%s->%s" % (src, dst), want, got))
    return out


def cgroup_selftest():
    """Drives both backends against fake cgroup trees in a temporary
    directory (the files each kernel interface shows, as plain files) and
    checks what they write and read: the path a machine cannot exercise
    for real (this one has one version only) is still run.  Needs no
    root.  Returns a list of problems (empty: all good)."""
    global CG_ROOT, CG_CPU, CG_ACCT
    saved = (CG_ROOT, CG_CPU, CG_ACCT)
    problems = []

    def expect(path, want):
        try:
            with open(path) as f:
                got = f.read().strip()
        except OSError as e:
            got = "<%s>" % e
        if got != want:
            problems.append("%s: %r, want %r" % (path, got, want))

    tmp = tempfile.mkdtemp(prefix="hetsim-cgtest-")
    try:
        for version in ("v1", "v2"):
            root = os.path.join(tmp, version)
            CG_ROOT = root
            CG_CPU = os.path.join(root, "cpu")
            CG_ACCT = os.path.join(root, "cpuacct")
            if version == "v1":
                os.makedirs(CG_CPU)
                os.makedirs(CG_ACCT)
                _write(os.path.join(CG_CPU, "cpu.cfs_quota_us"), "-1")
            else:
                os.makedirs(root)
                _write(os.path.join(root, "cgroup.controllers"),
                       "cpuset cpu io memory pids")
                _write(os.path.join(root, "cgroup.subtree_control"),
                       "memory pids")
            os.environ.pop("HETSIM_TESTBED_CGROUP", None)
            b = cgroup_backend()
            if b.version != version:
                problems.append("%s tree detected as %s" % (version,
                                                            b.version))
                continue
            tb_id = PREFIX + "0"
            if version == "v2":
                # the kernel makes these files in a new group
                os.makedirs(os.path.join(root, tb_id))
                _write(os.path.join(root, tb_id, "cgroup.subtree_control"),
                       "")
            b.make(tb_id, weight_shares=262144)
            b.make(tb_id, "h")
            b.set_quota(tb_id, "h", 2500, 10000)
            if version == "v1":
                d = os.path.join(CG_CPU, tb_id)
                expect(os.path.join(d, "cpu.shares"), "262144")
                expect(os.path.join(d, "h", "cpu.cfs_period_us"), "10000")
                expect(os.path.join(d, "h", "cpu.cfs_quota_us"), "2500")
                _write(os.path.join(CG_ACCT, tb_id, "h", "cpuacct.usage"),
                       "1234567\n")
                _write(os.path.join(d, "h", "cpu.stat"),
                       "nr_periods 10\nnr_throttled 3\n"
                       "throttled_time 4000\n")
                want_ns, want_thr = 1234567, (3, 4000)
            else:
                d = os.path.join(root, tb_id)
                expect(os.path.join(root, "cgroup.subtree_control"), "+cpu")
                expect(os.path.join(d, "cgroup.subtree_control"), "+cpu")
                expect(os.path.join(d, "cpu.weight"), "10000")
                expect(os.path.join(d, "h", "cpu.max"), "2500 10000")
                _write(os.path.join(d, "h", "cpu.stat"),
                       "usage_usec 1234\nuser_usec 1000\nsystem_usec 234\n"
                       "nr_periods 10\nnr_throttled 3\n"
                       "throttled_usec 4\n")
                want_ns, want_thr = 1234000, (3, 4000)
            if b.cpu_ns(tb_id, "h") != want_ns:
                problems.append("%s cpu_ns %r, want %r"
                                % (version, b.cpu_ns(tb_id, "h"), want_ns))
            if b.throttled(tb_id, "h") != want_thr:
                problems.append("%s throttled %r, want %r"
                                % (version, b.throttled(tb_id, "h"),
                                   want_thr))
            if b.quota(tb_id, "h") != (2500, 10000):
                problems.append("%s quota read back %r, want (2500, 10000)"
                                % (version, b.quota(tb_id, "h")))
            b.set_quota(tb_id, "h", None, 10000)
            expect(os.path.join(b.procs_dir(tb_id, "h"), b.knob),
                   "-1" if version == "v1" else "max 10000")
            if b.quota(tb_id, "h") != (None, 10000):
                problems.append("%s quota read back %r, want (None, 10000)"
                                % (version, b.quota(tb_id, "h")))
            if sorted(_cg_tops(tb_id)) != sorted(b.tops(tb_id)):
                problems.append("%s tops %r vs %r" % (
                    version, _cg_tops(tb_id), b.tops(tb_id)))
    finally:
        CG_ROOT, CG_CPU, CG_ACCT = saved
        shutil.rmtree(tmp, ignore_errors=True)
    return problems


def cgroup_line(tb):
    """The line that says which cgroup version set the quotas."""
    return "cgroup: %s (%s)" % (tb.cgroup_version, tb.cgroup.knob)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv[0] == "cleanup":
        for tb_id in cleanup_stale():
            print("removed", tb_id)
        return 0
    if argv[0] == "cgroup-selftest":
        problems = cgroup_selftest()
        for p in problems:
            print("cgroup-selftest:", p)
        try:
            here = cgroup_backend().version
        except TestbedError as e:
            here = "none (%s)" % e
        print("cgroup-selftest: v1 and v2 backends %s; this machine: %s"
              % ("FAILED" if problems else "ok", here))
        return 1 if problems else 0
    if argv[0] in ("quota-check", "pair-check"):
        try:
            jpath = json_arg(argv[1:])
        except ValueError as e:
            sys.stderr.write("%s: %s\n" % (argv[0], e))
            return 2
    if argv[0] == "quota-check":
        info = {}
        res = quota_check(info=info)
        base = res[0]
        info["quotas"] = res
        info["ratios"] = []
        for r in res:
            print("quota %.2f cores (the group holds %s): %.1f matmul/s, "
                  "%.3f cores used (%.3f of quota %.2f's rate); the cgroup: "
                  "%s cores over %.1f s, throttled in %d periods"
                  % (r["quota"], "no limit" if r["set_cores"] is None
                     else "%.3f" % r["set_cores"], r["rate_median"],
                     r["cores_median"], r["rate_median"] / base["rate_median"],
                     base["quota"], "-" if r["cg_cores"] is None
                     else "%.3f" % r["cg_cores"], r["cg_window_s"],
                     r["cg_throttled"]))
            print("  per window:", " ".join("%.1f" % x for x in r["rates"]))
        # per-window ratio of the first quota's rate to each other's: the
        # windows ran at the same time, so they saw the same neighbours.
        # A figure, not a check: the reference beside it is the quotas'
        # own ratio (the VM's vCPUs change speed, docs/testbed.md)
        for r in res[1:]:
            ratios = sorted(a / b for a, b in zip(base["rates"], r["rates"])
                            if b > 0)
            if ratios and r["rate_median"] > 0:
                print("ratio %.2f/%.2f: %.3f of the median rates, %.3f the "
                      "median of the per-window ratios (%s); reference: the "
                      "quotas' ratio %.3f"
                      % (base["quota"], r["quota"],
                         base["rate_median"] / r["rate_median"],
                         ratios[len(ratios) // 2] if len(ratios) % 2 else
                         (ratios[len(ratios) // 2 - 1] +
                          ratios[len(ratios) // 2]) / 2,
                         " ".join("%.2f" % x for x in ratios),
                         base["quota"] / r["quota"]))
                info["ratios"].append({"a": base["quota"], "b": r["quota"],
                                       "median_rates_ratio":
                                           base["rate_median"] /
                                           r["rate_median"],
                                       "per_window": ratios})
        if jpath:
            write_json(jpath, info)
        return 0
    if argv[0] == "pair-check":
        info = {}
        res = pair_check(info=info)
        for label, want, got in res:
            print("pair %s: set %.1f Mbit/s, measured %.1f Mbit/s (%+.1f%%)"
                  % (label, want / 1e6, got / 1e6,
                     100 * (got - want) / want))
        info["pairs"] = [{"pair": label, "set_bps": want, "measured_bps": got}
                         for label, want, got in res]
        if jpath:
            write_json(jpath, info)
        return 0
    if argv[0] == "up":
        hosts = []
        pairs = []
        args = list(argv[1:])
        while "--pair" in args:
            i = args.index("--pair")
            if i + 1 >= len(args) or args[i + 1].count(":") != 2:
                sys.stderr.write("--pair SRC:DST:RATE\n")
                return 2
            pairs.append(args[i + 1].split(":"))
            del args[i:i + 2]
        for spec in args:
            parts = spec.split(":")
            hosts.append(Host(parts[0], parse_rate(parts[1]
                                                   if len(parts) > 1 else None),
                              float(parts[2]) if len(parts) > 2 and parts[2]
                              else None,
                              float(parts[3].rstrip("ms"))
                              if len(parts) > 3 else 0.0))
        for src, dst, rate in pairs:
            [h for h in hosts if h.name == src][0].pair_rates[dst] = \
                parse_rate(rate)
        try:
            with Testbed(hosts) as tb:
                print(tb.id)
                print(cgroup_line(tb))
                for h in hosts:
                    print("  %-8s %-12s rate %s quota %s%s"
                          % (h.name, h.addr, h.rate_bps, h.quota,
                             "".join(" to %s %s" % (d, r) for d, r in
                                     sorted(h.pair_rates.items()))))
                sys.stdout.flush()
                while True:
                    time.sleep(3600)
        except (Interrupted, KeyboardInterrupt):
            pass      # the with statement has removed the testbed
        return 0
    sys.stderr.write("unknown command %s\n" % argv[0])
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
