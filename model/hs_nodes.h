/*
 * hs_nodes.h -- a cluster described as nodes (the scenario's `nodes:`
 * section, docs/scenario.md "Nodes"): node kinds (a device type, devices
 * per node, the intra-node link, the NICs), how many nodes of each kind,
 * and the links between nodes (a default, rows per pair of node kinds,
 * rows per pair of nodes).  hs_scenario.c reads it, hs_scenario_resolve.c
 * expands it through the hooks below; nothing here is N x N: the
 * expansion is O(N + nodes + rows) in time and memory.
 *
 * Expansion.  Nodes are numbered kind by kind in the order the kinds are
 * listed, node i of kind K named "K-i"; a node's devices are "K-i-j"
 * (j = 0 .. devices-1, the local rank), their address the node's name.
 * Devices are listed node by node, so the listing order (ring: listing,
 * the default) is the ring NCCL builds: through the devices of a node,
 * then on to the next node.  Every device type's count is the sum over
 * the kinds of that type.
 *
 * Links.  Two devices of one node: the kind's intra-node bandwidth and
 * latency.  Devices of two nodes: a node-pair row (exact direction, then
 * the other), else the last kind-pair row (either order), else the
 * inter-node default (nodes.inter_bandwidth, else network.default_
 * bandwidth; latency nodes.inter_latency, else network.latency); then
 * capped by the NICs of both ends.  NIC sharing: a node's NICs give it
 * nics x nic_bandwidth out and as much in; the collective's inter-node
 * edges that leave (enter) one node at the same time share that equally.
 * The flat ring in NCCL order has one edge out of and one into each node
 * (no sharing); an explicit ring that leaves a node m times divides its
 * NICs by m; the hierarchical all-reduce sends from all L devices of a
 * node at once across nodes, each to a device of the next node: L edges
 * out of the node and L into the next, so each gets 1/L of both ends'
 * NICs (L of the sending node, also when the nodes differ in size).  A
 * pair query
 * (hs_scenario_link) answers a lone edge (no sharing), as the ring in
 * NCCL order sees it.
 *
 * Edge arrays.  With nodes the scenario's ring_bw_bytes_per_s and
 * ring_lat_ns hold 3N entries: [0, N) the ring edges by ring position (as
 * always), [N, 2N) device x's intra-node edge of the hierarchical
 * all-reduce (x to the next local rank of its node, at N + x), [2N, 3N)
 * its inter-node edge (x to the same local rank of the next node, at
 * 2N + x; local rank j mod L' on a next node of L' devices).
 * Collectives name an edge by that index (hs_coll_round_t), which
 * hs_edge_index (hs_edge.h) computes.
 *
 * Ownership: the scenario owns its hs_nodes_t (hs_nodes_free in
 * hs_scenario_free, hs_nodes_clone in hs_scenario_clone).
 */
#ifndef HS_NODES_H
#define HS_NODES_H

#include <stddef.h>
#include <stdint.h>

#include "hs_error.h"

struct hs_scenario_s;
struct hs_yaml_ctx_s;
struct yaml_node_s;

typedef struct hs_node_kind_s {
    char *name;
    uint32_t type;                /* device type index */
    uint32_t devices;             /* per node, >= 1 */
    uint32_t count;               /* nodes of this kind, 0 allowed */
    double intra_bw_bytes_per_s;  /* > 0 (required when devices > 1) */
    int64_t intra_lat_ns;         /* default 0 */
    uint32_t nics;                /* 0 = no NIC cap */
    double nic_bw_bytes_per_s;    /* per NIC */
    unsigned long line, col;      /* where it was declared */
} hs_node_kind_t;

/* A link row between two kinds or two nodes (by index). */
typedef struct hs_node_link_s {
    uint32_t a, b;
    double bw_bytes_per_s;
    int64_t lat_ns;               /* -1 = the inter-node default */
} hs_node_link_t;

/* A node-pair row as written (names), kept to re-resolve. */
typedef struct hs_node_row_s {
    char *a, *b;
    double bw_bytes_per_s;
    int64_t lat_ns;
} hs_node_row_t;

typedef struct hs_nodes_s {
    size_t n_kinds;
    hs_node_kind_t *kinds;
    double inter_bw_bytes_per_s;  /* 0 = network.default_bandwidth */
    int64_t inter_lat_ns;         /* -1 = network.latency */
    size_t n_kind_links;
    hs_node_link_t *kind_links;   /* in the order given; a later row wins */
    size_t n_rows;
    hs_node_row_t *rows;          /* node-pair rows as written */
    unsigned long line, col;      /* of the nodes: section */
    /* derived by hs_nodes_gen_devices */
    size_t n_nodes;
    uint32_t *node_first;         /* [n_nodes + 1]: first device of node */
    uint32_t *node_kind;          /* [n_nodes] */
    uint32_t *dev_node;           /* [N]: the node of device x */
    uint32_t local;               /* devices per node when every node has
                                     as many, else 0 */
    uint32_t local_max;           /* devices of the largest node */
    hs_node_link_t *node_links;   /* n_rows, sorted by (a, b), by index */
    size_t n_node_links;
} hs_nodes_t;

/*
 * Reads the `nodes:` mapping n into a new s->nodes and sets every device
 * type's count from it (a type whose count was given and differs fails).
 * Errors at their file:line:col (an unknown device type or node kind, a
 * node name that does not exist, a kind without an intra-node bandwidth).
 */
hs_err_t hs_nodes_parse(struct hs_yaml_ctx_s *c, struct yaml_node_s *n,
                        struct hs_scenario_s *s);

/* Generates the devices node by node (names in the scenario's arena),
   the node tables and the 3N edge arrays; resolves the node-pair rows.
   Fails with HS_ERR_SCHEMA for fewer than 2 devices or an unknown node
   in a row, HS_ERR_NOMEM. */
hs_err_t hs_nodes_gen_devices(struct hs_scenario_s *s, hs_error_t *err);

/* Fills the ring edges [0, N) and the hierarchical edges [N, 3N).  An
   inter-node edge with no bandwidth (a hierarchical one: when the
   collective is hierarchical) fails with HS_ERR_NETWORK at (line, col)
   of s->file ("nodes a-0 -> b-1 have no inter-node bandwidth ...");
   network.links or type_links given beside nodes: fail with
   HS_ERR_SCHEMA. */
hs_err_t hs_nodes_edges(struct hs_scenario_s *s, unsigned long line,
                        unsigned long col, hs_error_t *err);

/*
 * The link from device a to device b of a scenario with nodes, the NICs
 * of a's node shared by share_a edges and b's by share_b (1 = a lone
 * edge).  Returns 1, or 0 when no bandwidth applies.
 */
int hs_nodes_link(const struct hs_scenario_s *s, uint32_t a, uint32_t b,
                  uint32_t share_a, uint32_t share_b, double *bw_bytes_per_s,
                  int64_t *lat_ns);

/*
 * Checks the scenario's collective (s->collective, NULL = ring): a known
 * name, and what the collective needs of the cluster (its check: the
 * hierarchical all-reduce wants nodes).  Errors at (line,
 * col) of s->file when line > 0 (where `collective:` was given), else
 * "file: ...".
 */
hs_err_t hs_nodes_check_collective(const struct hs_scenario_s *s,
                                   unsigned long line, unsigned long col,
                                   hs_error_t *err);

/* Deep copy (NULL gives NULL).  HS_OK or HS_ERR_NOMEM. */
hs_err_t hs_nodes_clone(const hs_nodes_t *src, hs_nodes_t **out,
                        hs_error_t *err);

/* Frees n and all it owns.  n may be NULL. */
void hs_nodes_free(hs_nodes_t *n);

/* The index of the kind named `name`, or -1. */
long hs_nodes_find_kind(const hs_nodes_t *n, const char *name);

/*
 * For an error about an unknown node kind `name`: "; did you mean 'X'?"
 * when a kind's name is close, then " (kinds: a, b)", written into buf
 * (cap bytes, truncated to fit); returns buf.
 */
const char *hs_nodes_kind_hint(const hs_nodes_t *n, const char *name,
                               char *buf, size_t cap);

#endif
