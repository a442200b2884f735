/* tt.h -- the fixed-size transposition table of the search.
 *
 * A power-of-two array of 64-byte buckets, one cache line each, holding
 * TT_WAYS entries. An entry is keyed by (board, remaining depth) and is valid
 * only in the generation it was written in, so clearing the whole table is
 * one increment. Nothing is allocated after tt_init().
 */
#ifndef TT_H_INCLUDED
#define TT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define TT_WAYS 2

typedef struct {
    board_t board;
    double value;
    uint32_t generation;  /* 0 = never written */
    uint32_t depth;       /* remaining depth the value was searched to */
} tt_entry;

typedef struct {
    tt_entry way[TT_WAYS];
    uint8_t pad[64 - TT_WAYS * sizeof(tt_entry)];
} tt_bucket;

typedef struct {
    tt_bucket *buckets;   /* NULL when the table is off */
    void *memory;         /* what was allocated (buckets is aligned inside it) */
    size_t mask;          /* bucket count - 1 */
    int shift;            /* 64 - log2(bucket count): the hash bits kept */
    uint32_t generation;
} tt_table;

/* Allocates the largest power-of-two table that fits in bytes. Returns 0, or
 * -1 when out of memory. bytes below one bucket turns the table off. */
int tt_init(tt_table *t, size_t bytes);
void tt_free(tt_table *t);
void tt_clear(tt_table *t);

/* Returns the bucket that holds (board, depth) if anything does. */
static inline tt_bucket *tt_bucket_of(const tt_table *t, board_t board, int depth)
{
    /* Fibonacci hashing: the top bits of the product mix every input bit. */
    uint64_t h = (board ^ ((uint64_t)depth << 59)) * 0x9e3779b97f4a7c15ULL;
    return t->buckets + ((h >> t->shift) & t->mask);
}

/* Asks the CPU to start loading the bucket of (board, depth). */
static inline void tt_prefetch(const tt_table *t, board_t board, int depth)
{
#if defined(__GNUC__) || defined(__clang__)
    if (t->buckets) __builtin_prefetch(tt_bucket_of(t, board, depth));
#else
    (void)t; (void)board; (void)depth;
#endif
}

/* Looks up (board, depth) in the current generation: 1 and *value when found. */
static inline int tt_probe(const tt_table *t, board_t board, int depth, double *value)
{
    if (!t->buckets) return 0;
    const tt_bucket *bucket = tt_bucket_of(t, board, depth);
    for (int i = 0; i < TT_WAYS; i++) {
        const tt_entry *e = &bucket->way[i];
        if (e->generation == t->generation && e->board == board && e->depth == (uint32_t)depth) {
            *value = e->value;
            return 1;
        }
    }
    return 0;
}

/* Stores (board, depth) -> value in a stale way of its bucket if there is
 * one, else over the shallowest entry, the cheapest to search again. */
static inline void tt_store(tt_table *t, board_t board, int depth, double value)
{
    if (!t->buckets) return;
    tt_bucket *bucket = tt_bucket_of(t, board, depth);
    tt_entry *victim = &bucket->way[0];
    for (int i = 0; i < TT_WAYS; i++) {
        tt_entry *e = &bucket->way[i];
        if (e->generation != t->generation) { victim = e; break; }
        if (e->depth < victim->depth) victim = e;
    }
    victim->board = board;
    victim->value = value;
    victim->generation = t->generation;
    victim->depth = (uint32_t)depth;
}

#endif /* TT_H_INCLUDED */
