/*
 * hs_hash.h -- the one string hash of hetsim: FNV-1a, 64 bits.  Used by
 * the scenario's name tables, the trace ingestion's string keys and the
 * HDF5 writer's scenario fingerprint.  Inline: it sits on hot paths.
 */
#ifndef HS_HASH_H
#define HS_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HS_FNV_OFFSET 0xcbf29ce484222325ULL
#define HS_FNV_PRIME 0x100000001b3ULL

/* FNV-1a 64 of the n bytes at p; continues from h (start: HS_FNV_OFFSET). */
static inline uint64_t hs_fnv1a_update(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = (const unsigned char *)p;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= s[i];
        h *= HS_FNV_PRIME;
    }
    return h;
}

/* FNV-1a 64 of the n bytes at p. */
static inline uint64_t hs_fnv1a(const void *p, size_t n)
{
    return hs_fnv1a_update(HS_FNV_OFFSET, p, n);
}

/* FNV-1a 64 of the NUL-terminated string s. */
static inline uint64_t hs_fnv1a_str(const char *s)
{
    uint64_t h = HS_FNV_OFFSET;

    for (; *s != '\0'; s++) {
        h ^= (unsigned char)*s;
        h *= HS_FNV_PRIME;
    }
    return h;
}

#endif
