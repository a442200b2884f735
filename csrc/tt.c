/* tt.c -- allocation and clearing of the transposition table. */
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "tt.h"

int tt_init(tt_table *t, size_t bytes)
{
    t->buckets = NULL;
    t->memory = NULL;
    t->mask = 0;
    t->shift = 63;
    t->reuse_deeper = 0;
    t->generation = 1;
    if (bytes < sizeof(tt_bucket)) return 0;
    size_t count = 1;
    int bits = 0;
    while (count * 2 * sizeof(tt_bucket) <= bytes && bits < 40) {
        count *= 2;
        bits++;
    }
    size_t total = count * sizeof(tt_bucket);
    /* One spare line lets the buckets start on a 64-byte boundary. */
    t->memory = malloc(total + 64);
    if (!t->memory) return -1;
    t->buckets = (tt_bucket *)(((uintptr_t)t->memory + 63) & ~(uintptr_t)63);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* Fewer TLB misses on random probes, where the kernel allows it. */
    madvise((void *)((uintptr_t)t->buckets & ~(uintptr_t)4095), total, MADV_HUGEPAGE);
#endif
    /* Touch every page now: a fresh table would otherwise take a page fault
     * on almost every store of the first searches (about 1 us each). */
    memset(t->buckets, 0, total);
    t->mask = count - 1;
    t->shift = bits ? 64 - bits : 63;  /* a shift by 64 would be undefined */
    return 0;
}

void tt_free(tt_table *t)
{
    free(t->memory);
    t->memory = NULL;
    t->buckets = NULL;
}

void tt_clear(tt_table *t)
{
    if (++t->generation == 0) {
        /* After 2^32 clears the counter wraps: really wipe, then start at 1. */
        if (t->buckets) memset(t->buckets, 0, (t->mask + 1) * sizeof(tt_bucket));
        t->generation = 1;
    }
}
