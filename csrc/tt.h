/* tt.h -- the fixed-size transposition table of the search.
 *
 * A power-of-two array of 64-byte buckets, one cache line each, holding
 * TT_WAYS entries; a board always lands in the same bucket, whatever the
 * depth. An entry holds a board, the remaining depth it was searched to and
 * its value, and is valid only in the generation it was written in, so
 * clearing the whole table is one increment. Nothing is allocated after
 * tt_init().
 *
 * Two rules for a hit, chosen per table:
 *   exact         the entry's depth equals the depth asked for: the value is
 *                 the one the search would compute (without pruning)
 *   reuse_deeper  the entry's depth is at least the depth asked for: a
 *                 deeper, better-informed value replaces the shallower one
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
    int reuse_deeper;     /* hit rule: 0 exact depth, 1 this depth or deeper */
    uint32_t generation;
} tt_table;

/* Allocates the largest power-of-two table that fits in bytes. Returns 0, or
 * -1 when out of memory. bytes below one bucket turns the table off. */
int tt_init(tt_table *t, size_t bytes);
void tt_free(tt_table *t);
void tt_clear(tt_table *t);

/* Returns the bucket of board. */
static inline tt_bucket *tt_bucket_of(const tt_table *t, board_t board)
{
    /* Fibonacci hashing: the top bits of the product mix every input bit. */
    uint64_t h = board * 0x9e3779b97f4a7c15ULL;
    return t->buckets + ((h >> t->shift) & t->mask);
}

/* Asks the CPU to start loading the bucket of board. */
static inline void tt_prefetch(const tt_table *t, board_t board)
{
#if defined(__GNUC__) || defined(__clang__)
    if (t->buckets) __builtin_prefetch(tt_bucket_of(t, board));
#else
    (void)t; (void)board;
#endif
}

/* Looks up board for a search of depth in the current generation, by the
 * table's hit rule: 1 and *value when found. */
static inline int tt_probe(const tt_table *t, board_t board, int depth, double *value)
{
    if (!t->buckets) return 0;
    const tt_bucket *bucket = tt_bucket_of(t, board);
    for (int i = 0; i < TT_WAYS; i++) {
        const tt_entry *e = &bucket->way[i];
        if (e->generation != t->generation || e->board != board) continue;
        if (e->depth == (uint32_t)depth || (t->reuse_deeper && e->depth > (uint32_t)depth)) {
            *value = e->value;
            return 1;
        }
    }
    return 0;
}

/* Stores (board, depth) -> value: over the same board if it is there with
 * the reuse_deeper rule (the new search is deeper, or it would have hit), else
 * in a stale way if there is one, else over the shallowest entry, the
 * cheapest to search again. */
static inline void tt_store(tt_table *t, board_t board, int depth, double value)
{
    if (!t->buckets) return;
    tt_bucket *bucket = tt_bucket_of(t, board);
    tt_entry *victim = &bucket->way[0];
    for (int i = 0; i < TT_WAYS; i++) {
        tt_entry *e = &bucket->way[i];
        if (e->generation != t->generation) { victim = e; break; }
        if (t->reuse_deeper && e->board == board) { victim = e; break; }
        if (e->depth < victim->depth) victim = e;
    }
    victim->board = board;
    victim->value = value;
    victim->generation = t->generation;
    victim->depth = (uint32_t)depth;
}

#endif /* TT_H_INCLUDED */
