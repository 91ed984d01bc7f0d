/* hs_testnet.c -- the namespace test network (hs_testnet.h). */
#include "hs_testnet.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_test.h"

const char *hs_test_which(const char *prog, char *buf, size_t len)
{
    static const char *const dirs[] = {"/usr/sbin", "/usr/bin", "/sbin",
                                       "/bin", "/usr/local/bin", NULL};
    int i;

    for (i = 0; dirs[i] != NULL; i++) {
        snprintf(buf, len, "%s/%s", dirs[i], prog);
        if (access(buf, X_OK) == 0)
            return buf;
    }
    return NULL;
}

int hs_test_sh(char *const argv[], char **err_out)
{
    hs_run_t r;
    int st;

    if (hs_run(argv, &r) != 0)
        return -1;
    st = r.status;
    if (st != 0 && err_out == NULL)
        fprintf(stderr, "  [%s %s %s ...] -> %d: %s", argv[0], argv[1],
                argv[2] ? argv[2] : "", st, r.err);
    if (err_out != NULL)
        *err_out = strdup(r.err ? r.err : "");
    hs_run_free(&r);
    return st;
}

/* Networks to remove at exit or on a signal. */
static hs_testnet_t *hs__nets[4];

static void hs__down_all(void)
{
    size_t i;

    for (i = 0; i < sizeof hs__nets / sizeof hs__nets[0]; i++)
        if (hs__nets[i] != NULL)
            hs_testnet_down(hs__nets[i]);
}

static void hs__on_signal(int sig)
{
    hs__down_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void hs__track(hs_testnet_t *t)
{
    static int hooked;
    size_t i;

    if (!hooked) {
        atexit(hs__down_all);
        signal(SIGINT, hs__on_signal);
        signal(SIGTERM, hs__on_signal);
        hooked = 1;
    }
    for (i = 0; i < sizeof hs__nets / sizeof hs__nets[0]; i++)
        if (hs__nets[i] == NULL || hs__nets[i] == t) {
            hs__nets[i] = t;
            return;
        }
}

/* Kills what is left in namespace ns and deletes it. */
static void hs__ns_del(const hs_testnet_t *t, const char *ns)
{
    char *pids = NULL;
    char *argv_p[] = {(char *)t->ip, "netns", "pids", (char *)ns, NULL};
    char *argv_d[] = {(char *)t->ip, "netns", "del", (char *)ns, NULL};

    if (hs_test_sh(argv_p, &pids) == 0 && pids != NULL) {
        char *p = pids, *end;

        for (;;) {
            long pid = strtol(p, &end, 10);

            if (end == p)
                break;
            if (pid > 1)
                kill((pid_t)pid, SIGKILL);
            p = end;
        }
    }
    free(pids);
    pids = NULL;
    hs_test_sh(argv_d, &pids);
    free(pids);
}

void hs_testnet_down(hs_testnet_t *t)
{
    int i;

    for (i = 0; i <= t->n; i++)
        if (t->made[i]) {
            hs__ns_del(t, t->ns[i]);
            t->made[i] = 0;
        }
}

#define HS__RUN(...)                                                        \
    do {                                                                    \
        char *hs__v[] = {__VA_ARGS__, NULL};                                \
        if (hs_test_sh(hs__v, NULL) != 0)                                   \
            goto fail;                                                      \
    } while (0)

int hs_testnet_up(hs_testnet_t *t, const char *tag, int n,
                  const char *const *suffix, int octet2,
                  const unsigned *rate_mbit, char *why, size_t why_len)
{
    long pid = (long)getpid();
    char *err = NULL;
    char *sw;
    int i;

    memset(t, 0, sizeof *t);
    t->n = n;
    if (n < 1 || n > HS_TESTNET_MAX) {
        snprintf(why, why_len, "a test network has 1..%d hosts",
                 HS_TESTNET_MAX);
        return 0;
    }
    if (geteuid() != 0) {
        snprintf(why, why_len, "needs root");
        return 0;
    }
    if (hs_test_which("ip", t->ip, sizeof t->ip) == NULL ||
        hs_test_which("tc", t->tc, sizeof t->tc) == NULL) {
        snprintf(why, why_len, "ip or tc (iproute2) not installed");
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (suffix != NULL)
            snprintf(t->ns[i], sizeof t->ns[i], "%s%ld%s", tag, pid,
                     suffix[i]);
        else
            snprintf(t->ns[i], sizeof t->ns[i], "%s%ldh%d", tag, pid, i);
        snprintf(t->addr[i], sizeof t->addr[i], "198.%d.%ld.%d", octet2,
                 pid % 200, 10 + i);
    }
    snprintf(t->ns[n], sizeof t->ns[n], "%s%ldsw", tag, pid);
    sw = t->ns[n];
    hs__track(t);
    {
        char *argv[] = {t->ip, "netns", "add", sw, NULL};

        if (hs_test_sh(argv, &err) != 0) {
            snprintf(why, why_len, "`ip netns add` fails here: %s",
                     err ? err : "");
            free(err);
            return 0;
        }
        free(err);
        t->made[n] = 1;
    }
    HS__RUN(t->ip, "-n", sw, "link", "add", "br0", "type", "bridge");
    HS__RUN(t->ip, "-n", sw, "link", "set", "br0", "up");
    for (i = 0; i < n; i++) {
        char pe[32], cidr[48], rate[32], burst[32];

        /* peer names live in the switch namespace: at most 15 bytes */
        snprintf(pe, sizeof pe, "%.4s%ld%d", tag, pid % 100000, i);
        snprintf(cidr, sizeof cidr, "%s/24", t->addr[i]);
        snprintf(rate, sizeof rate, "%umbit", rate_mbit[i]);
        /* 4 ms at the rate, at least 64 KiB (as the testbed's tbf): a
           bucket much smaller than the kernel's timer tick lets a fast
           link through well below its rate */
        snprintf(burst, sizeof burst, "%ub",
                 rate_mbit[i] * 500u > 65536u ? rate_mbit[i] * 500u : 65536u);
        HS__RUN(t->ip, "netns", "add", t->ns[i]);
        t->made[i] = 1;
        HS__RUN(t->ip, "-n", t->ns[i], "link", "add", "eth0", "type", "veth",
                "peer", "name", pe, "netns", sw);
        HS__RUN(t->ip, "-n", sw, "link", "set", pe, "master", "br0");
        HS__RUN(t->ip, "-n", sw, "link", "set", pe, "up");
        HS__RUN(t->ip, "-n", t->ns[i], "addr", "add", cidr, "dev", "eth0");
        HS__RUN(t->ip, "-n", t->ns[i], "link", "set", "eth0", "up");
        HS__RUN(t->ip, "-n", t->ns[i], "link", "set", "lo", "up");
        HS__RUN(t->ip, "netns", "exec", t->ns[i], t->tc, "qdisc", "add",
                "dev", "eth0", "root", "tbf", "rate", rate, "burst", burst,
                "latency", "50ms");
    }
    return 1;
fail:
    snprintf(why, why_len, "test network setup failed");
    hs_testnet_down(t);
    return -1;
}
