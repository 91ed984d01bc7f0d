"""bench/accuracy -- hetsim's prediction error against real heterogeneous runs.

For every case: build the testbed (bench/testbed/testbed.py: one network
namespace per device behind a bridge, tc tbf on each host's egress, or
htb with a class per destination where a case sets directed pair rates,
a cgroup CPU quota per device type), then follow the method end to end
with the hetsim CLI:

  1. hetsim profile     2-device sub-system per type, inside the testbed
                        (profiling.launcher = bench/testbed/inrun)
  2. hetsim measure-bw  iperf3 over every ring edge (quotas lifted while
                        it runs: it measures the link, not the CPU)
  3. hetsim predict --json, hetsim simulate --json --overlap patent|buckets|none
  4. the FULL cluster trains for real (bench/testbed/ddp_run.py, gloo,
     ranks mapped so that gloo's ring is the scenario's ring) and its mean
     step time after warm-up is measured
  5. error = (predicted - measured) / measured, per predictor

and print one table row per case, the MAPE of each predictor, and the
profiling cost (device-seconds in sub-systems) against the full run's.

usage: bench/accuracy [--hetsim PATH] [--cases NAME,...] [--smoke]
                      [--draw K --seed S] [--work DIR] [--keep]
                      [--steady-wait S] [--iters N] [--no-canary]
                      [--json FILE] [--list] [--repeat R] [--retry R]
                      [--write-templates] [--report JSON...]
       bench/accuracy --advise ring|batch [--cases NAME] [--repeat R]
                      [--json FILE] [--work DIR] [--keep]
       bench/accuracy --repredict JSON... [--hetsim PATH] [--json FILE]
                      [--work DIR] [--keep]

  --hetsim PATH       the hetsim binary (default: build/hetsim)
  --cases A,B         run only these cases (--list shows them; with
                      --draw, cases of that draw by name, e.g. s413-02)
  --smoke             one small case (what tests/test_testbed_smoke.c runs,
                      with --iters 12 --retry 0 --steady-wait 0
                      --no-canary); the report adds its errors'
                      reference bands (8 runs, 2026-12-01)
  --draw K --seed S   K random cases drawn from the families below with
                      seed S, instead of the fixed cases (the blind
                      protocol: model changes are chosen on one seed's
                      draws and judged on a seed picked after the change
                      is frozen; --list with --draw prints the draw)
  --work DIR          keep scenarios, profiles and logs in DIR (default: a
                      temporary directory, removed unless --keep)
  --json FILE         also write the results as JSON, with "summary": the
                      report's figures as data (summarize()); with
                      --report, the summary of the files given
  --repeat R          run the full cluster R times per case (mean; the
                      table's "spread" is (max-min)/mean of the R runs)
  --retry R           a host monitor (one sampler pinned to each vCPU)
                      runs all along every case; profile again, or run
                      the full cluster once more, when it flags the phase
                      (the host slowed inside it), up to R times each.
                      The measured step is the mean of the runs that
                      held; every attempt is kept and reported; when no
                      profile attempt held, the one the host slowed least
                      is used
  --steady-wait S     before each profile attempt and full run, wait up
                      to S seconds (default 120; 0: never) for every
                      vCPU to read steady over the last 6 s
  --iters N           every case's profile and full run take N iterations,
                      N/3 of them warm-up (default: each case's own; fewer
                      are faster and noisier: for checking the mechanics)
  --no-canary         no host-speed canary readings between the phases
                      (the host monitor still runs)
  --report JSON...    print the table (and the MAPE's bootstrap interval)
                      of earlier --json results, several files together
  --repredict JSON... the cases of earlier --json results predicted again
                      with --hetsim from the recorded data alone (no
                      testbed, no torch): each case's profiled scenario
                      rebuilt by the live run's code (the recorded links,
                      profiles and replay mode), then hetsim predict and
                      simulate as step 3; per case and predictor the
                      recorded and the new prediction, their difference
                      and both errors, then each predictor's MAPE recorded
                      vs new over all cases and the held ones (--json: the
                      comparison as data).  Results without profile_files
                      (before 2026-12-03) give only the profiles' figures:
                      the predictors that read gradient buckets are then
                      not compared.  Exit 0 when it ran (differences are
                      information), 2 when a file cannot be read or a case
                      lacks a field (named, skipped, counted)
  --write-templates   write each case's input scenario (before profiling)
                      to scenarios/testbed/<case>.yaml and exit
  --advise Q          does the advice hold?  For the advise case of
                      question Q (advise-ring, advise-batch, or --cases):
                      profile, measure-bw (--ordered-pairs for ring),
                      `hetsim advise Q --json` on the profiled scenario
                      (batch: the global batch kept), then the full
                      cluster for real in the original and in the
                      recommended configuration (ring: gloo ranks mapped
                      so that gloo's ring is the new order; batch: the
                      per-type batches), alternately, R times each
                      (default 2); prints the predicted step before and
                      after (replay in the profiled scenario's mode, and
                      the closed form), the measured (mean, spread), the
                      predicted and measured gain and each error

Needs root, cgroup v1 (cpu controller), iproute2, iperf3 and Debian's
python3-torch.  Exit status: 0 ok, 1 a case failed, 2 usage, 77 the machine
cannot run the testbed (the reason is printed as "SKIP: ...").

The package (bench/hsacc/; bench/accuracy is its command line):
  cases.py    the fixed cases, the smoke and advise cases, the seeded
              draws of the blind protocol (--draw K --seed S)
  monitor.py  the host's speed: the spot canary, the host monitor (one
              sampler pinned to each vCPU) and the steady-host wait
  run.py      running a case: its scenario, profile and measure-bw, the
              predictions, the full runs, the compute drift; advise cases
  report.py   the report: the tables, the summary as data (summarize())
  repredict.py  --repredict: recorded cases rebuilt and predicted again
  cli.py      the options (main), what bench/accuracy runs
  common.py   paths, the testbed module, the per-process settings,
              CaseError and the number formats the others share
"""
