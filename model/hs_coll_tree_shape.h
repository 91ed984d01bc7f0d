/*
 * hs_coll_tree_shape.h -- the peers of the double binary tree all-reduce
 * (hs_coll_tree_shape.c), inline: its shape and closed form (model/) and
 * its progress in the replay (sim/hs_coll_tree.c, per chunk) both ask
 * them.
 *
 * The trees.  Over the K nodes, tree 0 is NCCL's binary tree rooted at
 * node 0 (hs_tree_btree: leaves and interior nodes alternate), tree 1 its
 * mirror (K even) or its shift by one node (K odd) (hs_tree_dtree), so a
 * node interior in one is mostly a leaf in the other (NCCL's
 * ncclGetBtree and ncclGetDtree, src/graph/trees.cc; docs/nccl-notes.md
 * section 3).  Inside a node the tree is a chain through its devices: in
 * tree 0 in listing order, its head (the device that talks to the other
 * nodes) the first; in tree 1 in reverse order, its head the last, so the
 * two trees load the two directions of every chain link alike and, with 2
 * or more devices, a node's two heads are different devices.
 *
 * A device's links in tree t (hs_coll_tree_links): its parent (the
 * previous device of its node's chain, or for the head the head of the
 * parent node; none for the root node's head) and up to 3 children, in
 * this order: the heads of the child nodes (NCCL's d0, d1), then the next
 * device of the chain.
 *
 * Rounds.  Each tree carries half the payload M in P chunks (the
 * scenario's tree_chunks:, default HS_TREE_CHUNKS = 8), so 2P chunks of
 * M / (2P) bytes; chunk c
 * belongs to tree c mod 2.  A device runs R = 8P + 1 rounds, one chunk on
 * its wire at a time:
 *   rounds 0 .. 2P-1      reduce, one chunk c each: a device with a
 *                         parent sends its reduced chunk c to it once it
 *                         has chunk c from every child of tree c mod 2
 *                         (the root: nothing, at once).  The chunks go in
 *                         order, trees alternating, except on a device
 *                         that is a leaf of one tree and not of the
 *                         other: it sends that tree's P chunks first
 *                         (they need nothing), then the other's
 *                         (hs_coll_tree_up_chunk), so that two devices
 *                         interior in different trees do not wait on
 *                         each other chunk by chunk;
 *   rounds 2P .. 8P-1     broadcast, r = 2P + 3c + slot: in slot i it
 *                         sends chunk c to its i-th child of tree c mod 2
 *                         (nothing past its children); slot 0 of a device
 *                         with children first needs chunk c from its
 *                         parent, or, the root, from all its children
 *                         (chunk c is then reduced);
 *   round 8P              nothing to send; it needs the last chunk of
 *                         each tree from its parent (so a leaf's chunks
 *                         have all come: they arrive in order).
 * A round waits only for what its own send needs, so a device that is a
 * leaf of one tree never holds up its sends in the other (NCCL runs the
 * two trees on separate channels).  That is NCCL's up-then-down tree
 * kernel (every chunk reduced up, then every chunk broadcast down), both
 * trees' chunks interleaved on one device, its sends to its children one
 * after the other.
 */
#ifndef HS_COLL_TREE_SHAPE_H
#define HS_COLL_TREE_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "hs_collective.h"
#include "hs_nodes.h"

/* Chunks per tree the pipeline runs by default (both trees: twice as
   many); the scenario's tree_chunks: sets it (1..64). */
#define HS_TREE_CHUNKS 8

/* No device (a root's parent, an absent child). */
#define HS_TREE_NONE UINT32_MAX

/* P, the chunks per tree on scenario s. */
static inline int64_t hs_coll_tree_chunks(const hs_scenario_t *s)
{
    return s->tree_chunks > 0 ? (int64_t)s->tree_chunks : HS_TREE_CHUNKS;
}

/* Rounds of one tree all-reduce on s: 2P reduce, 3 x 2P broadcast, 1
   final. */
static inline int64_t hs_coll_tree_rounds(const hs_scenario_t *s)
{
    return 8 * hs_coll_tree_chunks(s) + 1;
}

/* Node `rank`'s parent and children (-1: none) in NCCL's binary tree of
   n >= 1 nodes rooted at 0 (ncclGetBtree's arithmetic): the parent of a
   rank whose lowest set bit is b is (rank ^ b) | 2b, or rank ^ b when that
   is out of range; its children rank -+ b/2, the upper one halved until
   it is in range. */
static inline void hs_tree_btree(int64_t n, int64_t rank, int64_t *up,
                                 int64_t *d0, int64_t *d1)
{
    int64_t bit, low, hi;

    for (bit = 1; bit < n; bit <<= 1)
        if (bit & rank)
            break;
    if (rank == 0) {
        *up = -1;
        *d0 = -1;
        *d1 = n > 1 ? bit >> 1 : -1;
        return;
    }
    *up = (rank ^ bit) | (bit << 1);
    if (*up >= n)
        *up = rank ^ bit;
    low = bit >> 1;
    *d0 = low == 0 ? -1 : rank - low;
    hi = low == 0 ? -1 : rank + low;
    while (hi >= n) {
        hi = low == 0 ? -1 : rank + low;
        low >>= 1;
    }
    *d1 = hi;
}

/* The same in tree t of the double binary tree: t = 0 the binary tree,
   t = 1 its mirror r -> n-1-r (n even) or shift r -> r+1 mod n (n odd). */
static inline void hs_tree_dtree(int64_t n, int t, int64_t rank,
                                 int64_t *up, int64_t *d0, int64_t *d1)
{
    int64_t u, a, b;

    if (t == 0) {
        hs_tree_btree(n, rank, up, d0, d1);
        return;
    }
    if (n % 2 == 1) {
        hs_tree_btree(n, (rank - 1 + n) % n, &u, &a, &b);
        *up = u < 0 ? -1 : (u + 1) % n;
        *d0 = a < 0 ? -1 : (a + 1) % n;
        *d1 = b < 0 ? -1 : (b + 1) % n;
    } else {
        hs_tree_btree(n, n - 1 - rank, &u, &a, &b);
        *up = u < 0 ? -1 : n - 1 - u;
        *d0 = a < 0 ? -1 : n - 1 - a;
        *d1 = b < 0 ? -1 : n - 1 - b;
    }
}

/* Device x's links in tree t. */
typedef struct hs_tree_links_s {
    uint32_t parent;      /* HS_TREE_NONE for the root */
    uint32_t kids[3];     /* n_kids of them: child nodes' heads, then the
                             next device of the chain */
    uint32_t n_kids;
} hs_tree_links_t;

/* The head of node n in tree t (its first device in tree 0, its last in
   tree 1). */
static inline uint32_t hs_coll_tree_head(const hs_nodes_t *nd, uint32_t n,
                                         int t)
{
    return t == 0 ? nd->node_first[n] : nd->node_first[n + 1] - 1;
}

/* Device x's parent and children in tree t (hs_nodes_t of s required). */
static inline void hs_coll_tree_links(const hs_scenario_t *s, int t,
                                      uint32_t x, hs_tree_links_t *o)
{
    const hs_nodes_t *nd = s->nodes;
    uint32_t n = nd->dev_node[x], f = nd->node_first[n];
    uint32_t l = nd->node_first[n + 1] - f, j = x - f;
    uint32_t q = t == 0 ? j : l - 1 - j;   /* position in the chain */
    int64_t up, d0, d1;

    o->n_kids = 0;
    if (q > 0)
        o->parent = t == 0 ? x - 1 : x + 1;
    else {
        hs_tree_dtree((int64_t)nd->n_nodes, t, n, &up, &d0, &d1);
        o->parent = up < 0 ? HS_TREE_NONE
                           : hs_coll_tree_head(nd, (uint32_t)up, t);
        if (d0 >= 0)
            o->kids[o->n_kids++] = hs_coll_tree_head(nd, (uint32_t)d0, t);
        if (d1 >= 0)
            o->kids[o->n_kids++] = hs_coll_tree_head(nd, (uint32_t)d1, t);
    }
    if (q + 1 < l)
        o->kids[o->n_kids++] = t == 0 ? x + 1 : x - 1;
}

/* Round r (0 .. hs_coll_tree_rounds(s)-1) of device x: whom it sends to
   (HS_TREE_NONE: nobody), and the rounds of other devices whose chunks it
   needs before it enters: need[i] sends its chunk in its own round
   need_r[i]. */
typedef struct hs_tree_step_s {
    uint32_t to;
    uint32_t n_need;
    uint32_t need[3];
    int64_t need_r[3];
} hs_tree_step_t;

/* The slot of child x among parent p's children in tree t. */
static inline uint32_t hs_coll_tree_slot(const hs_scenario_t *s, int t,
                                         uint32_t p, uint32_t x)
{
    hs_tree_links_t pl;
    uint32_t i;

    hs_coll_tree_links(s, t, p, &pl);
    for (i = 0; i < pl.n_kids; i++)
        if (pl.kids[i] == x)
            return i;
    return 0;   /* not reached: x is a child of p */
}

/* The tree device x sends its reduce chunks of first: the one it is a
   leaf of (no children: its sends need nothing) when it has children in
   the other; -1 (chunks in order, trees alternating) otherwise. */
static inline int hs_coll_tree_leaf_first(const hs_scenario_t *s,
                                          uint32_t x)
{
    hs_tree_links_t a, b;

    hs_coll_tree_links(s, 0, x, &a);
    hs_coll_tree_links(s, 1, x, &b);
    if (a.n_kids == 0 && b.n_kids > 0)
        return 0;
    if (b.n_kids == 0 && a.n_kids > 0)
        return 1;
    return -1;
}

/* The chunk of device x's reduce round r (0 .. 2P-1). */
static inline int64_t hs_coll_tree_up_chunk(const hs_scenario_t *s,
                                            uint32_t x, int64_t r)
{
    int64_t P = hs_coll_tree_chunks(s);
    int lf = hs_coll_tree_leaf_first(s, x);

    if (lf < 0)
        return r;
    return r < P ? 2 * r + lf : 2 * (r - P) + (1 - lf);
}

/* The reduce round in which device x sends chunk c (the inverse). */
static inline int64_t hs_coll_tree_up_round(const hs_scenario_t *s,
                                            uint32_t x, int64_t c)
{
    int64_t P = hs_coll_tree_chunks(s);
    int lf = hs_coll_tree_leaf_first(s, x);

    if (lf < 0)
        return c;
    return c % 2 == lf ? c / 2 : P + c / 2;
}

/* The tree (0 or 1) of the chunk device x sends in round r (0 .. R-1);
   0 for the last round, which sends nothing.  Pure. */
static inline int hs_coll_tree_round_tree(const hs_scenario_t *s,
                                          uint32_t x, int64_t r)
{
    const int64_t P2 = 2 * hs_coll_tree_chunks(s);

    if (r < P2)
        return (int)(hs_coll_tree_up_chunk(s, x, r) % 2);
    if (r < 4 * P2)
        return (int)(((r - P2) / 3) % 2);
    return 0;
}

/* Fills *o with round r of device x (the layout above). */
static inline void hs_coll_tree_step(const hs_scenario_t *s, uint32_t x,
                                     int64_t r, hs_tree_step_t *o)
{
    const int64_t P2 = 2 * hs_coll_tree_chunks(s);
    hs_tree_links_t lk;
    int64_t c, slot;
    uint32_t i;
    int t;

    o->n_need = 0;
    o->to = HS_TREE_NONE;
    if (r < P2) {
        c = hs_coll_tree_up_chunk(s, x, r);
        hs_coll_tree_links(s, (int)(c % 2), x, &lk);
        if ((o->to = lk.parent) == HS_TREE_NONE)
            return;
        for (i = 0; i < lk.n_kids; i++) {
            o->need[o->n_need] = lk.kids[i];
            o->need_r[o->n_need++] = hs_coll_tree_up_round(s, lk.kids[i], c);
        }
        return;
    }
    if (r == 4 * P2) {      /* the last chunk of each tree from the parent */
        for (t = 0; t < 2; t++) {
            hs_coll_tree_links(s, t, x, &lk);
            if (lk.parent == HS_TREE_NONE)
                continue;
            o->need[o->n_need] = lk.parent;
            o->need_r[o->n_need++] =
                P2 + 3 * (P2 - 2 + t) +
                hs_coll_tree_slot(s, t, lk.parent, x);
        }
        return;
    }
    c = (r - P2) / 3;
    slot = (r - P2) % 3;
    hs_coll_tree_links(s, (int)(c % 2), x, &lk);
    if (slot >= lk.n_kids)
        return;
    o->to = lk.kids[slot];
    if (slot > 0)
        return;
    if (lk.parent != HS_TREE_NONE) {
        o->need[0] = lk.parent;
        o->need_r[0] = P2 + 3 * c +
                       hs_coll_tree_slot(s, (int)(c % 2), lk.parent, x);
        o->n_need = 1;
        return;
    }
    for (i = 0; i < lk.n_kids; i++) {   /* the root: chunk c reduced */
        o->need[o->n_need] = lk.kids[i];
        o->need_r[o->n_need++] = hs_coll_tree_up_round(s, lk.kids[i], c);
    }
}

/* The link device x's chunks to device y take (y in x's node: the
   intra-node link; else the inter-node one, each end's NICs shared by
   its node's heads that talk across nodes at once: 2 with 2 or more
   devices, else 1).  Returns 0 when no bandwidth applies. */
int hs_coll_tree_link(const hs_scenario_t *s, uint32_t x, uint32_t y,
                      double *bw_bytes_per_s, int64_t *lat_ns);

/*
 * The schedule of one tree all-reduce (hs_coll_tree_shape.c): every device
 * opens it at its own time, a round starts when the device's previous
 * round is done and the chunks it needs have arrived, a send takes the
 * link's latency plus M / (2P) bytes over its bandwidth (hs_chunk_ns).
 * That is the max-plus recursion
 *   done(x, r) = max(done(x, r-1), max_i done(need_i, need_r_i)) + t(x, r)
 * (done(x, -1) = x's opening), evaluated with a worklist in O(N R): a
 * device moves on as far as the rounds it needs are known, then wakes its
 * tree neighbours.  The closed form runs it with every device opening at
 * 0; the replay's fast path (sim/hs_treefast.c) with each step's openings.
 * Memory (R + 9) N int64 and a little per device
 * (hs_coll_tree_sched_state_bytes).
 */
typedef struct hs_coll_tree_sched_s hs_coll_tree_sched_t;

/* The bytes a schedule of s takes (what the check holds to
   HS_LIMIT_STATE_BYTES).  Pure. */
size_t hs_coll_tree_sched_state_bytes(const hs_scenario_t *s);

/* A new schedule of s (nodes required; its links and send times computed
   once) into *out; free with hs_coll_tree_sched_free.  HS_ERR_NOMEM. */
hs_err_t hs_coll_tree_sched_new(const hs_scenario_t *s,
                                hs_coll_tree_sched_t **out, hs_error_t *err);

/* Runs one all-reduce: device x opens it at open_ns[x] (open_ns NULL: all
   at 0); done_ns[x] (N of them, the caller's) when x's last round is done,
   INT64_MAX for a device that never gets there.  Returns how many such
   devices (0: every one finished). */
size_t hs_coll_tree_sched_run(hs_coll_tree_sched_t *cf,
                              const int64_t *open_ns, int64_t *done_ns);

/* Sets cf's send times for an all-reduce whose payload on a device of
   type t is bytes[t * nb + b] (a gradient bucket's; bytes NULL: the
   profiles' payloads, as hs_coll_tree_sched_new set them); the next
   hs_coll_tree_sched_run uses them.  No allocation. */
void hs_coll_tree_sched_payload(hs_coll_tree_sched_t *cf,
                                const hs_scenario_t *s, const double *bytes,
                                size_t nb, size_t b);

/* Chunks sent in one all-reduce, all devices together (the replay's ARRIVE
   events per all-reduce). */
uint64_t hs_coll_tree_sched_chunks(const hs_coll_tree_sched_t *cf);

/* Frees cf (NULL is fine). */
void hs_coll_tree_sched_free(hs_coll_tree_sched_t *cf);

#endif
