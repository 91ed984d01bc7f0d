/*
 * hs_testnet.h -- a test network of hosts in network namespaces, for the
 * tests that talk over a real network (measure-bw, the whole pipeline).
 *
 * n hosts, each a namespace with one interface "eth0" addressed in the
 * benchmarking range 198.18.0.0/15, joined by a bridge in a switch
 * namespace; each host's egress shaped with `tc tbf` to its own rate.
 * Traffic never leaves namespaces the test made.  Everything is removed by
 * hs_testnet_down, at exit and on SIGINT/SIGTERM (processes left in a
 * namespace are killed first).
 */
#ifndef HS_TESTNET_H
#define HS_TESTNET_H

#include <stddef.h>

#define HS_TESTNET_MAX 8

typedef struct hs_testnet_s {
    int n;
    char ip[256], tc[256];               /* paths of ip and tc */
    char ns[HS_TESTNET_MAX + 1][48];     /* hosts, then [n] the switch */
    char addr[HS_TESTNET_MAX][32];
    int made[HS_TESTNET_MAX + 1];
} hs_testnet_t;

/* The path of prog in the usual system directories, in buf, or NULL. */
const char *hs_test_which(const char *prog, char *buf, size_t len);

/* Runs argv quietly and returns its exit status (-1: could not run).  With
   err_out, *err_out gets its stderr (malloc'd); without, a failure prints
   it. */
int hs_test_sh(char *const argv[], char **err_out);

/*
 * Builds the network: n hosts (n <= HS_TESTNET_MAX) named
 * "<tag><pid><suffix[i]>" (suffix NULL: "h<i>"), at 198.<octet2>.<pid %
 * 200>.<10+i>, host i shaped to rate_mbit[i].  Returns 1 when ready; 0 when
 * this machine cannot (not root, no ip/tc, namespaces refused; the reason
 * in why); -1 when the setup failed part way (cleaned up).
 */
int hs_testnet_up(hs_testnet_t *t, const char *tag, int n,
                  const char *const *suffix, int octet2,
                  const unsigned *rate_mbit, char *why, size_t why_len);

/* Kills what runs in the namespaces and deletes them.  Idempotent. */
void hs_testnet_down(hs_testnet_t *t);

#endif
